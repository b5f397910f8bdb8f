-- accesslog.lua: parses nginx "combined" access-log lines and aggregates
-- them: requests per status and per route, bytes, latency percentiles and
-- per-minute rates, as a log-shipping or monitoring script does.
local accesslog = {}

local match, gsub, sub, find, lower, format = string.match, string.gsub, string.sub,
  string.find, string.lower, string.format
local tonumber, pairs, ipairs, setmetatable = tonumber, pairs, ipairs, setmetatable
local concat, sort, insert = table.concat, table.sort, table.insert
local time, floor = os.time, math.floor

local MONTHS = { Jan = 1, Feb = 2, Mar = 3, Apr = 4, May = 5, Jun = 6,
                 Jul = 7, Aug = 8, Sep = 9, Oct = 10, Nov = 11, Dec = 12 }

local LINE_PATTERN = '^(%S+) %S+ (%S+) %[([^%]]+)%] "(%u+) ([^ "]+) HTTP/([%d%.]+)" (%d%d%d) (%d+) "([^"]*)" "([^"]*)" ([%d%.]+)$'

-- "10/Oct/2023:13:55:36 +0000" -> epoch seconds (UTC offset applied)
function accesslog.parse_time(s)
  local d, mon, y, h, mi, sec, sign, oh, om = match(s, "^(%d+)/(%a+)/(%d+):(%d+):(%d+):(%d+) ([%+%-])(%d%d)(%d%d)$")
  if not d then return nil end
  local t = time({ year = tonumber(y), month = MONTHS[mon], day = tonumber(d),
                   hour = tonumber(h), min = tonumber(mi), sec = tonumber(sec) })
  local offset = (tonumber(oh) * 60 + tonumber(om)) * 60
  if sign == "+" then t = t - offset else t = t + offset end
  return t
end

-- Replaces ids in a path so that /users/123/posts/9 becomes /users/:id/posts/:id.
function accesslog.route(path)
  local q = find(path, "?", 1, true)
  if q then path = sub(path, 1, q - 1) end
  path = gsub(path, "/%d+", "/:id")
  path = gsub(path, "/[0-9a-f]+%-[0-9a-f%-]+", "/:uuid")
  return lower(path)
end

function accesslog.parse(line)
  local ip, user, ts, method, path, proto, status, bytes, referer, agent, rt = match(line, LINE_PATTERN)
  if not ip then return nil, "unparsable line" end
  return {
    ip = ip, user = user ~= "-" and user or nil, time = ts, method = method, path = path,
    proto = proto, status = tonumber(status), bytes = tonumber(bytes),
    referer = referer ~= "-" and referer or nil, agent = agent, rt = tonumber(rt),
  }
end

local Stats = {}
Stats.__index = Stats

function accesslog.stats()
  return setmetatable({
    total = 0, bad = 0, bytes = 0, status = {}, routes = {}, minutes = {},
    latencies = {}, agents = {}, errors = {},
  }, Stats)
end

local function bump(t, k, n)
  t[k] = (t[k] or 0) + (n or 1)
end

function Stats:add(line)
  local r, err = accesslog.parse(line)
  if not r then
    self.bad = self.bad + 1
    self.errors[#self.errors + 1] = err
    return
  end
  self.total = self.total + 1
  self.bytes = self.bytes + r.bytes
  bump(self.status, r.status)
  local route = r.method .. " " .. accesslog.route(r.path)
  local rs = self.routes[route]
  if not rs then
    rs = { count = 0, bytes = 0, slow = 0 }
    self.routes[route] = rs
  end
  rs.count = rs.count + 1
  rs.bytes = rs.bytes + r.bytes
  if r.rt > 0.5 then rs.slow = rs.slow + 1 end
  self.latencies[#self.latencies + 1] = r.rt
  local minute = sub(r.time, 1, 17)
  bump(self.minutes, minute)
  local family = match(r.agent, "^(%a+)") or "other"
  bump(self.agents, family)
end

function Stats:percentile(p)
  local l = self.latencies
  sort(l)
  local idx = floor(#l * p / 100 + 0.5)
  if idx < 1 then idx = 1 end
  return l[idx]
end

function Stats:top_routes(n)
  local list = {}
  for route, rs in pairs(self.routes) do
    list[#list + 1] = { route = route, count = rs.count }
  end
  sort(list, function(a, b)
    if a.count ~= b.count then return a.count > b.count end
    return a.route < b.route
  end)
  local out = {}
  for i = 1, n do
    if not list[i] then break end
    insert(out, format("%-28s %6d", list[i].route, list[i].count))
  end
  return out
end

function Stats:report()
  local lines = { format("requests %d (%d unparsable), %.1f MB", self.total, self.bad, self.bytes / 1048576) }
  local codes = {}
  for code in pairs(self.status) do codes[#codes + 1] = code end
  sort(codes)
  for _, code in ipairs(codes) do
    lines[#lines + 1] = format("  %d: %d", code, self.status[code])
  end
  lines[#lines + 1] = format("p50 %.3f p95 %.3f p99 %.3f", self:percentile(50), self:percentile(95), self:percentile(99))
  return concat(lines, "\n")
end

return accesslog
