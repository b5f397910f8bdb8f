-- Driver: a small REST API behind the router with logging, auth and timing
-- middleware, fed with a mix of requests, as an OpenResty content handler is.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local router = require("router")
local format, random = string.format, math.random

local REQUESTS = tonumber(arg and arg[1]) or 30000
math.randomseed(11)

local app = router.new()
local log = {}
local users = {}
for i = 1, 500 do users[i] = { id = i, name = "user" .. i, posts = i % 13 } end

app:use(function(req, res, next)
  local ok = next()
  log[#log % 1000 + 1] = router.log_line(req, res.status)
  return ok
end)

app:use(function(req, res, next)
  local token = req.headers["Authorization"]
  if req.path:sub(1, 7) == "/admin/" and token ~= "Bearer secret" then
    res.status = 401
    res.body[1] = "unauthorized"
    return
  end
  return next()
end)

app:get("/", function(req, res) res.body[1] = "welcome" end)
app:get("/health", function(req, res) router.json(res, "status", "ok", "uptime", 12345) end)
app:get("/users/:id", function(req, res)
  local u = users[tonumber(req.params.id)]
  if not u then
    res.status = 404
    return
  end
  router.json(res, "id", u.id, "name", u.name, "posts", u.posts)
end)
app:get("/users/:id/posts/:post", function(req, res)
  router.json(res, "user", req.params.id, "post", req.params.post, "page", req.args.page or 1)
end)
app:post("/users", function(req, res)
  local name = req.body:match("name=([%w_]+)")
  if not name then error("missing name") end
  users[#users + 1] = { id = #users + 1, name = name, posts = 0 }
  res.status = 201
end)
app:get("/files/*path", function(req, res) res.body[1] = "file " .. req.params.path end)
app:delete("/admin/users/:id", function(req, res) users[tonumber(req.params.id)] = nil end)

local uris = {
  function(i) return "GET", "/" end,
  function(i) return "GET", "/health" end,
  function(i) return "GET", "/users/" .. (i % 600) end,
  function(i) return "GET", format("/users/%d/posts/%d?page=%d&sort=new", i % 500, i % 40, i % 5) end,
  function(i) return "POST", "/users" end,
  function(i) return "GET", "/files/static/css/site" .. (i % 9) .. ".css" end,
  function(i) return "DELETE", "/admin/users/" .. (i % 500 + 1) end,
  function(i) return "GET", "/nope/" .. i end,
}

local statuses = {}
for i = 1, REQUESTS do
  local method, uri = uris[random(#uris)](i)
  local req = {
    method = method, uri = uri, body = (i % 17 == 0) and "" or "name=new_" .. i,
    headers = { ["User-Agent"] = "bench/1.0", Authorization = i % 2 == 0 and "Bearer secret" or nil },
  }
  local status = app:dispatch(req)
  statuses[status] = (statuses[status] or 0) + 1
end

assert(statuses[200] and statuses[404] and statuses[500])
print(format("router: 200=%d 201=%d 401=%d 404=%d 500=%d, last log: %s",
  statuses[200], statuses[201] or 0, statuses[401] or 0, statuses[404], statuses[500], log[1]))
