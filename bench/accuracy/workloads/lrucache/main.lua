-- Driver: a read-through cache in front of a slow "backend", hit by a skewed
-- key distribution, as an OpenResty service caching upstream lookups would.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local lrucache = require("lrucache")
local random, floor, format = math.random, math.floor, string.format

local REQUESTS = tonumber(arg and arg[1]) or 1000000
math.randomseed(1234)

-- A fake clock that advances one millisecond per request.
local clock = 0
lrucache.set_clock(function() return clock end)

local backend_calls = 0
local function backend_lookup(key)
  backend_calls = backend_calls + 1
  return { key = key, value = #key * 3, fetched = clock }
end

local cache = assert(lrucache.new(2000))

local function skewed_key()
  -- roughly Zipf-like: small ids are much more frequent
  local r = random()
  local id = floor(1 / (r * r + 0.0001))
  return "user:" .. id
end

local hits, stale = 0, 0
for i = 1, REQUESTS do
  clock = clock + 0.001
  local key = skewed_key()
  local v, old = cache:get(key)
  if v then
    hits = hits + 1
  else
    if old then stale = stale + 1 end
    v = backend_lookup(key)
    cache:set(key, v, 30, i % 4)
  end
  if i % 50000 == 0 then
    cache:delete("user:1")
  end
end

local top = cache:dump(5)
assert(#top == 5)
assert(cache:count() <= 2000)
print(format("lrucache: %d requests, hit rate %.3f, %d stale, %d backend calls, head %s",
  REQUESTS, hits / REQUESTS, stale, backend_calls, top[1]))
