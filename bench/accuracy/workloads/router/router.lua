-- router.lua: an HTTP request router with middleware, in the style of
-- lua-resty-router and lapis: routes with ":params" and "*splat", compiled
-- to Lua patterns, per-method tables, middleware chains run around the
-- handler, and protected handler calls that turn errors into 500s.
local router = {}

local gsub, match, find, upper, format = string.gsub, string.match, string.find, string.upper, string.format
local ipairs, pcall, type, setmetatable, select, tostring = ipairs, pcall, type, setmetatable, select, tostring
local concat, insert = table.concat, table.insert

local Router = {}
Router.__index = Router

function router.new()
  return setmetatable({ routes = {}, middleware = {}, static = {} }, Router)
end

-- "/users/:id/posts/*rest" -> "^/users/([^/]+)/posts/(.*)$", { "id", "rest" }
local function compile(path)
  local names = {}
  local pattern = gsub(path, "[%-%.%+%?%%]", "%%%0")
  pattern = gsub(pattern, ":([%w_]+)", function(name)
    names[#names + 1] = name
    return "([^/]+)"
  end)
  pattern = gsub(pattern, "%*([%w_]*)", function(name)
    names[#names + 1] = name ~= "" and name or "splat"
    return "(.*)"
  end)
  return "^" .. pattern .. "$", names
end

function Router:add(method, path, handler)
  method = upper(method)
  if not find(path, "[:*]") then
    self.static[method .. " " .. path] = handler
    return self
  end
  local pattern, names = compile(path)
  local list = self.routes[method]
  if not list then
    list = {}
    self.routes[method] = list
  end
  list[#list + 1] = { pattern = pattern, names = names, handler = handler, path = path }
  return self
end

for _, m in ipairs({ "get", "post", "put", "delete", "patch" }) do
  Router[m] = function(self, path, handler) return self:add(m, path, handler) end
end

function Router:use(fn)
  self.middleware[#self.middleware + 1] = fn
  return self
end

function Router:match(method, path)
  local h = self.static[method .. " " .. path]
  if h then return h, {} end
  local list = self.routes[method]
  if not list then return nil end
  for i = 1, #list do
    local r = list[i]
    local caps = { match(path, r.pattern) }
    if caps[1] then
      local params = {}
      for j, name in ipairs(r.names) do params[name] = caps[j] end
      return r.handler, params
    end
  end
  return nil
end

local function parse_query(qs)
  local args = {}
  for k, v in qs:gmatch("([^&=]+)=?([^&]*)") do
    v = gsub(v, "%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end)
    if args[k] then
      if type(args[k]) ~= "table" then args[k] = { args[k] } end
      insert(args[k], v)
    else
      args[k] = v
    end
  end
  return args
end
router.parse_query = parse_query

-- Dispatches a request table { method, uri, headers, body } and returns
-- status, headers, body.
function Router:dispatch(req)
  local path, qs = match(req.uri, "^([^?]*)%??(.*)$")
  req.path = path
  req.args = parse_query(qs)
  local handler, params = self:match(req.method, path)
  local res = { status = 200, headers = {}, body = {} }
  if not handler then
    res.status = 404
    res.body[1] = "not found: " .. path
  else
    req.params = params
    -- run middleware as a chain: each gets a next() that continues it
    local chain = self.middleware
    local function run(i)
      local mw = chain[i]
      if mw then
        return mw(req, res, function() return run(i + 1) end)
      end
      return handler(req, res)
    end
    local ok, err = pcall(run, 1)
    if not ok then
      res.status = 500
      res.body = { "internal error: " .. tostring(err) }
    end
  end
  return res.status, res.headers, concat(res.body)
end

-- Helpers handlers use.
function router.json(res, ...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n, 2 do
    local k, v = select(i, ...)
    parts[#parts + 1] = format("%q:%s", k, type(v) == "number" and tostring(v) or format("%q", tostring(v)))
  end
  res.headers["Content-Type"] = "application/json"
  res.body[#res.body + 1] = "{" .. concat(parts, ",") .. "}"
end

function router.log_line(req, status)
  return format("%s %s %d %s", req.method, req.uri, status, req.headers["User-Agent"] or "-")
end

return router
