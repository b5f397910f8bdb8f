-- Runs one workload under the collector loaded with require("ljcheck"), the
-- way any LuaJIT host (OpenResty's luajit2, LÖVE, Neovim) would load it:
--   LUA_CPATH='build/lib/?.so;;' luajit bench/accuracy/host.lua OUT.json SCRIPT [ARGS...]
-- The script sees arg[0] = SCRIPT and is called through xpcall, so its main
-- chunk sits on a non-Lua frame as under `luajit SCRIPT` and `ljcheck run`.
local out, script = arg[1], arg[2]
assert(out and script, "usage: host.lua OUT.json SCRIPT [ARGS...]")
local ljcheck = require("ljcheck")

local script_args = { [0] = script }
for i = 3, #arg do script_args[#script_args + 1] = arg[i] end
local chunk = assert(loadfile(script))
arg = script_args

local session = ljcheck.trace({ coverage = true, includeBenign = true })
local ok, err = xpcall(chunk, debug.traceback, unpack(script_args))
local report = session:stop()
local f = assert(io.open(out, "w"))
f:write(report:json())
f:close()
if not ok then
  io.stderr:write("host.lua: ", tostring(err), "\n")
  os.exit(1)
end
