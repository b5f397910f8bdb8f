-- Zone push+pop pairs inside a compiled loop against the same loop without
-- them, under a trace session that must see no abort and no stitch. Prints
-- "ns_per_pair aborts sites". usage: luajit zones.lua N
local n = tonumber(arg[1] or "50000000")
local ljcheck = require("ljcheck")
local zone = ljcheck.zone
local function plain(count)
  local x = 0
  for i = 1, count do x = x + i % 3 end
  return x
end
local function zoned(count)
  local x = 0
  for i = 1, count do
    zone("frame")
    x = x + i % 3
    zone()
  end
  return x
end
plain(1000); zoned(1000)  -- names registered, loops warm
local trace = ljcheck.trace({ includeBenign = true })
local t0 = os.clock(); local a = plain(n); local t1 = os.clock()
local b = zoned(n); local t2 = os.clock()
local report = trace:stop()
assert(a == b)
io.write(string.format("%.3f %d %d\n", ((t2 - t1) - (t1 - t0)) / n * 1e9, report.totalAborts, #report.sites))
