-- Runs one CPU-bound workload under one sampling mode and prints the CPU
-- seconds (getrusage user+sys) from before the profiler starts to after it
-- stopped and wrote its report; bench/sampler.sh pairs the modes.
-- usage: luajit driver.lua MODE WORKLOAD INTERVAL
--   MODE: none | ljcheck (ljcheck.sample, report built at stop)
--       | jitp (LuaJIT's own jit.p, "vfG": VM state and the whole stack per
--         sample, as ljcheck keeps them, its report written to /dev/null)
local mode, workload, interval = arg[1], arg[2], tonumber(arg[3] or "10")
local run = assert(loadfile(workload))()
local ffi = require("ffi")
ffi.cdef [[
struct ljbench_timeval { long tv_sec; long tv_usec; };
struct ljbench_rusage { struct ljbench_timeval ru_utime, ru_stime; long rest[14]; };
int getrusage(int who, struct ljbench_rusage *usage);
]]
local usage = ffi.new("struct ljbench_rusage")
local function cpuSeconds()
  assert(ffi.C.getrusage(0, usage) == 0)  -- RUSAGE_SELF
  return tonumber(usage.ru_utime.tv_sec) + tonumber(usage.ru_utime.tv_usec) * 1e-6 +
         tonumber(usage.ru_stime.tv_sec) + tonumber(usage.ru_stime.tv_usec) * 1e-6
end
-- Every mode loads the same modules, so that only sampling differs (loading
-- code moves LuaJIT's hot counters and changes which traces form).
local ljcheck, jitp = require("ljcheck"), require("jit.p")
local t0 = cpuSeconds()
local stop
if mode == "ljcheck" then
  local session = ljcheck.sample({ intervalMs = interval })
  stop = function() session:stop() end
elseif mode == "jitp" then
  jitp.start("vfGi" .. interval, "/dev/null")
  stop = jitp.stop
elseif mode ~= "none" then
  error("unknown mode " .. tostring(mode))
end
local check = run()
if stop then stop() end
local t1 = cpuSeconds()
io.write(string.format("%.6f %s\n", t1 - t0, tostring(check)))
