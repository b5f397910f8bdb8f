-- In-process LuaJIT compile rate: the floor any bytecode analyzer stands on.
--
-- usage: luajit bench/compile_rate.lua [--reps N] [--min-rep-seconds S] [--base DIR] LISTFILE
--   LISTFILE  one path per line (relative paths are taken relative to --base)
--   --reps N  timed repetitions (default 5), after one untimed warm-up pass
--   --min-rep-seconds S  one pass over the list takes a fraction of a second, so each
--             repetition compiles the whole list P times, P chosen from the warm-up
--             so that a repetition lasts at least S seconds (default 1; 0 = one pass)
--   --base D  directory the listed paths are relative to (default: current dir)
--
-- All files are read into memory first; only loadstring() is timed, with wall time
-- from clock_gettime(CLOCK_MONOTONIC) via the FFI (Linux, 64-bit). Every file must
-- compile. Output, one key=value per line: files, lines, bytes, reps,
-- passes_per_rep, rep_seconds (seconds per pass over the list, comma separated),
-- median_seconds (per pass), lines_per_second. Lines are counted as an editor
-- counts them (a last line without newline counts).

local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } ljbench_timespec;
int clock_gettime(int clk_id, ljbench_timespec *tp);
]]
local CLOCK_MONOTONIC = 1 -- Linux
local ts = ffi.new("ljbench_timespec")
local function now()
  assert(ffi.C.clock_gettime(CLOCK_MONOTONIC, ts) == 0, "clock_gettime failed")
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

local function usage(msg)
  io.stderr:write("compile_rate: ", msg, "\nusage: luajit compile_rate.lua [--reps N] [--min-rep-seconds S] [--base DIR] LISTFILE\n")
  os.exit(2)
end

local reps, base, list, min_rep = 5, nil, nil, 1.0
local i = 1
while i <= #arg do
  local a = arg[i]
  if a == "--reps" then
    reps = tonumber(arg[i + 1]); i = i + 1
    if not reps or reps < 1 or reps % 1 ~= 0 then usage("--reps needs a positive integer") end
  elseif a == "--min-rep-seconds" then
    min_rep = tonumber(arg[i + 1]); i = i + 1
    if not min_rep or min_rep < 0 then usage("--min-rep-seconds needs a number >= 0") end
  elseif a == "--base" then
    base = arg[i + 1]; i = i + 1
    if not base then usage("--base needs a directory") end
  elseif a:sub(1, 1) == "-" then
    usage("unknown option " .. a)
  elseif list then
    usage("only one LISTFILE")
  else
    list = a
  end
  i = i + 1
end
if not list then usage("missing LISTFILE") end

local lf = io.open(list, "rb")
if not lf then usage("cannot open list " .. list) end
local paths, sources, nlines, nbytes = {}, {}, 0, 0
for p in lf:lines() do
  if p ~= "" then
    local full = (base and p:sub(1, 1) ~= "/") and (base .. "/" .. p) or p
    local f, err = io.open(full, "rb")
    if not f then
      io.stderr:write("compile_rate: cannot read ", full, ": ", tostring(err), "\n"); os.exit(3)
    end
    local s = f:read("*a")
    f:close()
    paths[#paths + 1], sources[#sources + 1] = p, s
    local _, nl = s:gsub("\n", "")
    if #s > 0 and s:sub(-1) ~= "\n" then nl = nl + 1 end
    nlines, nbytes = nlines + nl, nbytes + #s
  end
end
lf:close()
if #paths == 0 then usage("list " .. list .. " is empty") end

local chunknames = {}
for k = 1, #paths do chunknames[k] = "@" .. paths[k] end

local loadstring, n = loadstring, #sources
local function pass()
  for k = 1, n do
    local fn, err = loadstring(sources[k], chunknames[k])
    if not fn then
      io.stderr:write("compile_rate: LuaJIT cannot compile ", err,
        "\n(re-run bench/corpus.sh, which drops such files)\n")
      os.exit(1)
    end
  end
end

local w0 = now()
pass() -- warm-up, untimed except to choose the number of passes per repetition
local warm = now() - w0
local passes = math.max(1, math.ceil(min_rep / math.max(warm, 1e-6)))
local times = {}
for r = 1, reps do
  collectgarbage("collect")
  local t0 = now()
  for _ = 1, passes do pass() end
  times[r] = (now() - t0) / passes
end

local sorted = {}
for r = 1, reps do sorted[r] = times[r] end
table.sort(sorted)
local median = (reps % 2 == 1) and sorted[(reps + 1) / 2]
  or (sorted[reps / 2] + sorted[reps / 2 + 1]) / 2

local parts = {}
for r = 1, reps do parts[r] = string.format("%.6f", times[r]) end
print("files=" .. n)
print("lines=" .. nlines)
print("bytes=" .. nbytes)
print("reps=" .. reps)
print("passes_per_rep=" .. passes)
print("rep_seconds=" .. table.concat(parts, ","))
print(string.format("median_seconds=%.6f", median))
print(string.format("lines_per_second=%.0f", nlines / median))
