-- Driver: generates a day of access-log lines and runs the aggregation, the
-- way a cron job over /var/log/nginx/access.log would.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local accesslog = require("accesslog")
local random, format, floor = math.random, string.format, math.floor

local LINES = tonumber(arg and arg[1]) or 40000
math.randomseed(2024)

local methods = { "GET", "GET", "GET", "POST", "PUT", "DELETE" }
local paths = { "/", "/api/users/%d", "/api/users/%d/posts/%d", "/static/app.js?v=%d",
                "/api/orders/%x-%x-4abc", "/login", "/search?q=item%d" }
local agents = { "Mozilla/5.0 (X11; Linux x86_64)", "curl/7.88.1", "Googlebot/2.1", "python-requests/2.31" }
local statuses = { 200, 200, 200, 200, 304, 404, 500, 301 }

local lines = {}
for i = 1, LINES do
  local sec = floor(i * 86400 / LINES)
  local path = format(paths[random(#paths)], random(1, 5000), random(1, 300))
  lines[i] = format('10.0.%d.%d - %s [%02d/Oct/2023:%02d:%02d:%02d +0200] "%s %s HTTP/1.1" %d %d "%s" "%s" %.3f',
    random(0, 255), random(1, 254), i % 10 == 0 and "alice" or "-", 10 + floor(sec / 86400),
    floor(sec / 3600) % 24, floor(sec / 60) % 60, sec % 60, methods[random(#methods)], path,
    statuses[random(#statuses)], random(100, 50000), i % 3 == 0 and "https://example.org/" or "-",
    agents[random(#agents)], random() * random())
  if i % 997 == 0 then lines[i] = "garbage " .. lines[i] end
end

local stats = accesslog.stats()
for i = 1, #lines do
  stats:add(lines[i])
end

-- time parsing of a sample (os.time is slow; real code caches per second)
local first, last
for i = 1, #lines, 50 do
  local r = accesslog.parse(lines[i])
  if r then
    local t = accesslog.parse_time(r.time)
    first = first or t
    last = t
  end
end

local top = stats:top_routes(5)
assert(stats.total + stats.bad == LINES and #top == 5)
print(format("logparse: %s\n%s\nspan %d s", stats:report(), table.concat(top, "\n"), last - first))
