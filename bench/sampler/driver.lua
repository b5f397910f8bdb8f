-- Runs one CPU-bound workload under one sampling mode and prints its CPU
-- seconds (os.clock) around the workload only; bench/sampler.sh pairs the
-- modes. usage: luajit driver.lua MODE WORKLOAD INTERVAL
--   MODE: none | ljcheck (ljcheck.sample) | jitp (jit.profile, as jit.p does)
local mode, workload, interval = arg[1], arg[2], tonumber(arg[3] or "10")
local run = assert(loadfile(workload))()
-- Every mode loads the same modules, so that only sampling differs (loading
-- code moves LuaJIT's hot counters and changes which traces form).
local ljcheck, profile = require("ljcheck"), require("jit.profile")
local session, count
if mode == "ljcheck" then
  session = ljcheck.sample({ intervalMs = interval })
elseif mode == "jitp" then
  -- What jit.p's default does per sample: a function-level stack dump
  -- counted in a table (without its report at exit).
  count = {}
  profile.start("fi" .. interval, function(thread, samples, vmstate)
    local key = profile.dumpstack(thread, "fZ;", -16)
    count[key] = (count[key] or 0) + samples
  end)
elseif mode ~= "none" then
  error("unknown mode " .. tostring(mode))
end
local t0 = os.clock()
local check = run()
local t1 = os.clock()
if session then session:stop() end
if count then profile.stop() end
io.write(string.format("%.6f %s\n", t1 - t0, tostring(check)))
