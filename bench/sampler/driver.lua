-- Runs one CPU-bound workload under one sampling mode and prints the CPU
-- seconds (getrusage user+sys) from before the profiler starts to after it
-- stopped and wrote its report, the workload's check value and the number
-- of samples taken; bench/sampler.sh pairs the modes, bench/sampler_cost.sh
-- counts instructions per sample.
-- usage: luajit driver.lua MODE WORKLOAD INTERVAL [SCALE [COMPILED_STACKS]]
--   MODE: none | ljcheck (ljcheck.sample, report built at stop)
--       | jitp (LuaJIT's own jit.p, "vfG": VM state and the whole stack per
--         sample, as ljcheck keeps them, with raw counts, its report written
--         to a temporary file whose counts give the number of samples)
--       | floor (ljcheck.sample paused from its start: LuaJIT's profiler
--         runs as for ljcheck, the C callback returns at its first check;
--         prints 0 samples, so divide by the ljcheck mode's count)
--   SCALE multiplies the workload's length (1: about 0.45 s; default 1).
--   COMPILED_STACKS: ljcheck.sample's compiledStacks, exit (its default) or
--   function (LuaJIT's profiler mode 'f', as jit.p); for ljcheck and floor.
local mode, workload, interval = arg[1], arg[2], tonumber(arg[3] or "10")
local scale = tonumber(arg[4] or "1")
local compiledStacks = arg[5] or "exit"
local run = assert(loadfile(workload))()
local ffi = require("ffi")
ffi.cdef [[
struct ljbench_timeval { long tv_sec; long tv_usec; };
struct ljbench_rusage { struct ljbench_timeval ru_utime, ru_stime; long rest[14]; };
int getrusage(int who, struct ljbench_rusage *usage);
typedef void (*ljbench_sighandler)(int);
ljbench_sighandler signal(int sig, ljbench_sighandler handler);
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
-- Under valgrind a profiler tick can be delivered after the profiler put the
-- previous action back, which by default kills the process: make that action
-- "ignore" (27: SIGPROF, 1: SIG_IGN); the profilers install their own on start.
ffi.C.signal(27, ffi.cast("ljbench_sighandler", 1))
local t0 = cpuSeconds()
local stop, samples, jitpFile = nil, 0, nil
if mode == "ljcheck" then
  local session = ljcheck.sample({ intervalMs = interval, compiledStacks = compiledStacks })
  stop = function() samples = session:stop().samples end
elseif mode == "jitp" then
  jitpFile = os.tmpname()
  jitp.start("vfGri" .. interval, jitpFile)
  stop = jitp.stop
elseif mode == "floor" then
  local session = ljcheck.sample({ intervalMs = interval, compiledStacks = compiledStacks })
  session:pause()
  stop = function() session:stop() end
elseif mode ~= "none" then
  error("unknown mode " .. tostring(mode))
end
local check = run(scale)
if stop then stop() end
local t1 = cpuSeconds()
if jitpFile then  -- "state count" lines, each followed by its "frames count" lines
  for line in io.lines(jitpFile) do samples = samples + (tonumber(line:match(" (%d+)$")) or 0) end
  samples = samples / 2
  os.remove(jitpFile)
end
io.write(string.format("%.6f %s %d\n", t1 - t0, tostring(check), samples))
