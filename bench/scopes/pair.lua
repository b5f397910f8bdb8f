-- One process of bench/scopes.sh: times `pairs` mark/done pairs of a known
-- label in a compiled loop, after an untimed warm-up in the same process.
--   luajit bench/scopes/pair.lua ljcheck|pure PAIRS
-- Prints: cpu_ns_per_pair wall_ns_per_pair peak_rss_kb
local variant, pairs = arg[1], tonumber(arg[2] or "1000000")
local ffi = require("ffi")
pcall(ffi.cdef, "typedef struct { long sec, nsec; } bench_scopes_timespec; int clock_gettime(int, bench_scopes_timespec *);")
local C, ts = ffi.C, ffi.new("bench_scopes_timespec")
local function clock(id)
  C.clock_gettime(id, ts)
  return tonumber(ts.sec) * 1e9 + tonumber(ts.nsec)
end
local MONOTONIC, PROCESS_CPUTIME = 1, 2

local scope
if variant == "ljcheck" then scope = require("ljcheck").scope
elseif variant == "pure" then scope = dofile((arg[0]:match("^(.*)/") or ".") .. "/pure_scopes.lua")
else error("usage: pair.lua ljcheck|pure PAIRS") end
local mark, done = scope.mark, scope.done

local function run(n)
  for _ = 1, n do
    mark("frame")
    done()
  end
end

run(math.max(1000, math.floor(pairs / 10)))  -- warm-up: the JIT compiles the loop
local wall0, cpu0 = clock(MONOTONIC), clock(PROCESS_CPUTIME)
run(pairs)
local cpu1, wall1 = clock(PROCESS_CPUTIME), clock(MONOTONIC)
local status = io.open("/proc/self/status"):read("*a")
local rss = tonumber(status:match("VmHWM:%s*(%d+)")) or -1
io.write(string.format("%.2f %.2f %d\n", (cpu1 - cpu0) / pairs, (wall1 - wall0) / pairs, rss))
