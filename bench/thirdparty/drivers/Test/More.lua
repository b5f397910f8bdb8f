-- A small stand-in for lua-TestMore's `Test.More` (not in Debian 12), enough
-- for lua-MessagePack's test files: they `require 'Test.More'` and call its
-- global functions. Same names, argument orders and pass/fail rules as
-- lua-TestMore; TAP-like output ("ok N - name", "not ok N - name"). Our code,
-- run from bench/thirdparty/drivers/each.lua; not the benchmarked program.

local pcall, type, tostring, pairs = pcall, type, tostring, pairs
local unpack = table.unpack or unpack
local out = io.stdout

-- Totals over every file that loaded this module, for drivers/each.lua.
TestMoreTotals = TestMoreTotals or { total = 0, failed = 0 }
local M = TestMoreTotals
local n = 0

local function report(okay, name)
  n = n + 1
  M.total = M.total + 1
  if not okay then M.failed = M.failed + 1 end
  out:write(okay and "ok " or "not ok ", n, name and (" - " .. tostring(name)) or "", "\n")
  return okay
end

local function deep_eq(a, b, seen)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then
    return a ~= a and b ~= b  -- NaN is NaN for is_deeply
  end
  seen = seen or {}
  if seen[a] == b then return true end
  seen[a] = b
  for k, v in pairs(a) do
    if not deep_eq(v, b[k], seen) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

function plan(arg)
  n = 0
  if arg == "no_plan" then return end
  out:write("1..", tostring(arg), "\n")
end

function done_testing() out:write("# done testing: ", n, " tests\n") end
function diag(msg) io.stderr:write("# ", tostring(msg), "\n") end
function note(msg) out:write("# ", tostring(msg), "\n") end
function pass(name) return report(true, name) end
function fail(name) return report(false, name) end
function ok(test, name) return report(not not test, name) end
function nok(test, name) return report(not test, name) end

function is(got, expected, name)
  local okay = got == expected
  if not okay then diag(("got: %s, expected: %s"):format(tostring(got), tostring(expected))) end
  return report(okay, name)
end

function isnt(got, expected, name) return report(got ~= expected, name) end

function like(got, pattern, name)
  return report(type(got) == "string" and got:match(pattern) ~= nil, name)
end

function require_ok(mod)
  local r, msg = pcall(require, mod)
  if not r then diag(msg) end
  return report(r, "require '" .. tostring(mod) .. "'")
end

function type_ok(val, t, name) return report(type(val) == t, name) end
function is_deeply(got, expected, name) return report(deep_eq(got, expected), name) end

function eq_array(got, expected, name)
  local okay = type(got) == "table" and type(expected) == "table" and #got == #expected
  if okay then
    for i = 1, #expected do
      if got[i] ~= expected[i] then okay = false break end
    end
  end
  return report(okay, name)
end

-- error_like(code [, arguments], pattern [, name]), as in lua-TestMore
function error_like(code, arguments, pattern, name)
  if type(arguments) ~= "table" then
    arguments, pattern, name = {}, arguments, pattern
  end
  local r, msg = pcall(code, unpack(arguments))
  local okay = not r and type(msg) == "string" and msg:match(pattern) ~= nil
  if not okay then diag("error: " .. tostring(msg)) end
  return report(okay, name)
end

-- lives_ok(code [, arguments] [, name])
function lives_ok(code, arguments, name)
  if type(arguments) ~= "table" then
    arguments, name = {}, arguments
  end
  local r, msg = pcall(code, unpack(arguments))
  if not r then diag("died: " .. tostring(msg)) end
  return report(r, name)
end

function skip(reason, count)
  for _ = 1, count or 1 do
    n = n + 1
    out:write("ok ", n, " # skip ", tostring(reason), "\n")
  end
end

function skip_all(reason) error("skip_all: " .. tostring(reason), 0) end
function BAIL_OUT(reason) error("Bail out! " .. tostring(reason), 0) end

return M
