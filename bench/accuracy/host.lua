-- Runs one workload under the collector loaded with require("ljcheck"), the
-- way any LuaJIT host (OpenResty's luajit2, LÖVE, Neovim) would load it:
--   LUA_CPATH='build/lib/?.so;;' luajit bench/accuracy/host.lua OUT.json SCRIPT [ARGS...]
-- The script sees arg[0] = SCRIPT and is called through xpcall, so its main
-- chunk sits on a non-Lua frame as under `luajit SCRIPT` and `ljcheck run`.
--
-- Besides the collector's report (OUT.json), writes OUT.json's name with
-- ".visited.tsv" instead of ".json": every bytecode instruction the trace
-- recorder visited, one per line: source, linedefined, pc, line, opcode.
-- The collector's own coverage has lines only, and one line can hold code
-- of several functions (a closure's `end)` and the FNEW that creates it) or
-- several calls; the scorer uses the instructions to tell them apart.
-- LuaJIT sends a "record" event before it records each instruction. The
-- handler is a vararg function because FUNCV headers are not hot-counted,
-- and it has no loop, so it does not touch the hot counters the program's
-- loops and functions share; it only remembers (function, pc), like the
-- collector's C handler does, and everything else is worked out at the end.
local out, script = arg[1], arg[2]
assert(out and script, "usage: host.lua OUT.json SCRIPT [ARGS...]")
local ljcheck = require("ljcheck")
local jutil = require("jit.util")
local bcnames = require("jit.vmdef").bcnames

local script_args = { [0] = script }
for i = 3, #arg do script_args[#script_args + 1] = arg[i] end
local chunk = assert(loadfile(script))
arg = script_args

local visited = {}  -- function -> { [pc] = true }
local function on_record(...)
  local _, func, pc = ...
  local pcs = visited[func]
  if not pcs then
    pcs = {}
    visited[func] = pcs
  end
  pcs[pc] = true
end

local session = ljcheck.trace({ includeBenign = true })
jit.attach(on_record, "record")
local ok, err = xpcall(chunk, debug.traceback, unpack(script_args))
jit.attach(on_record)
local report = session:stop()
local f = assert(io.open(out, "w"))
f:write(report:json())
f:close()

local rows, seen = {}, {}  -- closures of one prototype give the same rows
for func, pcs in pairs(visited) do
  local info = jutil.funcinfo(func)
  local source = info.source
  if source and source:sub(1, 1) == "@" then
    for pc in pairs(pcs) do
      local ins = jutil.funcbc(func, pc)
      local line = jutil.funcinfo(func, pc).currentline
      if ins and line then
        local op = bcnames:sub(ins % 256 * 6 + 1, ins % 256 * 6 + 6):gsub(" +$", "")
        local row = table.concat({ source:sub(2), info.linedefined, pc, line, op }, "\t")
        if not seen[row] then
          seen[row] = true
          rows[#rows + 1] = row
        end
      end
    end
  end
end
table.sort(rows)
local v = assert(io.open((out:gsub("%.json$", "") .. ".visited.tsv"), "w"))
v:write(table.concat(rows, "\n"), "\n")
v:close()

if not ok then
  io.stderr:write("host.lua: ", tostring(err), "\n")
  os.exit(1)
end
