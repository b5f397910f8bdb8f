-- Runs each Lua file named on the command line in turn, in this one process,
-- the way `lua FILE` would run it alone: `arg` is reset to { [0] = FILE }, the
-- modules it loaded are unloaded afterwards (package.loaded as before it, so
-- that module state such as MessagePack's set_number does not leak into the
-- next file), and an error is reported with its traceback and counted, not
-- fatal, so that the next file still runs. Used by bench/thirdparty/run.sh for programs and test
-- suites that are a set of standalone scripts: `ljcheck run` runs one script.
--
-- usage: ljcheck run ... -- each.lua FILE...
-- Prints "each: N files, M failed" to standard error; exit status 1 if any failed.
--
-- Our code, not the benchmarked program's: run.sh lints only the program's
-- files, and score.py leaves the sites observed here out of its tables.

local files = { ... }
local failed = 0
for _, file in ipairs(files) do
  io.stderr:write("each: ", file, "\n")
  arg = { [0] = file }
  local before = {}
  for name in pairs(package.loaded) do before[name] = true end
  local chunk, err = loadfile(file)
  local ok = chunk ~= nil
  if chunk then
    ok, err = xpcall(chunk, debug.traceback)
  end
  if not ok then
    failed = failed + 1
    io.stderr:write("each: ", file, " failed: ", tostring(err), "\n")
  end
  for name in pairs(package.loaded) do
    if not before[name] then package.loaded[name] = nil end
  end
  io.stdout:flush()
end
io.stderr:write(("each: %d files, %d failed\n"):format(#files, failed))
local more = rawget(_G, "TestMoreTotals")  -- set by drivers/Test/More.lua, when a file loaded it
if type(more) == "table" then
  io.stderr:write(("each: Test.More: %d tests, %d failed\n"):format(more.total, more.failed))
end
os.exit(failed == 0 and 0 or 1)
