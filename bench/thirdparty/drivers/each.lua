-- Runs each Lua file named on the command line in turn, in this one process,
-- the way `lua FILE` would run it alone: `arg` is reset to { [0] = FILE }, the
-- modules it loaded are unloaded afterwards (package.loaded and package.preload as before it, so
-- that module state such as MessagePack's set_number does not leak into the
-- next file), and an error is reported with its traceback and counted, not
-- fatal, so that the next file still runs. Used by bench/thirdparty/run.sh for programs and test
-- suites that are a set of standalone scripts: `ljcheck run` runs one script.
--
-- usage: ljcheck run ... -- each.lua FILE...
--        ljcheck run ... -- each.lua FILE [ARG...] -- FILE [ARG...] ...
-- With a `--` among the arguments, they are groups separated by `--`: a file
-- and the arguments it gets (`...` and arg[1..n]), as `lua FILE ARG...`.
-- Prints "each: N files, M failed" to standard error; exit status 1 if any failed.
--
-- Our code, not the benchmarked program's: run.sh lints only the program's
-- files, and score.py leaves the sites observed here out of its tables.

local runs = {}  -- { file, args }
local grouped = false
for _, a in ipairs({ ... }) do grouped = grouped or a == "--" end
if grouped then
  local current
  for _, a in ipairs({ ... }) do
    if a == "--" then
      current = nil
    elseif not current then
      current = { a, {} }
      runs[#runs + 1] = current
    else
      current[2][#current[2] + 1] = a
    end
  end
else
  for _, a in ipairs({ ... }) do runs[#runs + 1] = { a, {} } end
end
local failed = 0
for _, run in ipairs(runs) do
  local file, args = run[1], run[2]
  io.stderr:write("each: ", file, (#args > 0 and " " .. table.concat(args, " ") or ""), "\n")
  arg = { [0] = file, unpack(args) }
  local before, preload = {}, {}
  for name in pairs(package.loaded) do before[name] = true end
  for name, loader in pairs(package.preload) do preload[name] = loader end
  local chunk, err = loadfile(file)
  local ok = chunk ~= nil
  if chunk then
    ok, err = xpcall(chunk, debug.traceback, unpack(args))  -- LuaJIT passes the extra arguments on
  end
  if not ok then
    failed = failed + 1
    io.stderr:write("each: ", file, " failed: ", tostring(err), "\n")
  end
  for name in pairs(package.loaded) do
    if not before[name] then package.loaded[name] = nil end
  end
  for name in pairs(package.preload) do package.preload[name] = preload[name] end
  io.stdout:flush()
end
io.stderr:write(("each: %d files, %d failed\n"):format(#runs, failed))
local more = rawget(_G, "TestMoreTotals")  -- set by drivers/Test/More.lua, when a file loaded it
if type(more) == "table" then
  io.stderr:write(("each: Test.More: %d tests, %d failed\n"):format(more.total, more.failed))
end
os.exit(failed == 0 and 0 or 1)
