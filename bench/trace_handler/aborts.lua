-- A workload that aborts many times, under one trace-event handler, for
-- bench/trace_handler.sh. Each round runs a loop that creates a closure
-- (NYIBC:FNEW) once: the loop gets hot, its trace aborts (about once a
-- round: LuaJIT's penalty is random), and jit.flush() resets the penalty.
-- WORKLOAD same (default): one function, as a hot loop that keeps aborting;
-- fresh: a freshly loaded chunk every round, so no abort site repeats.
-- Prints "aborts rounds".
-- usage: luajit aborts.lua MODE ROUNDS [WORKLOAD]
--   MODE: none | ljcheck (ljcheck.trace: the C handler)
--       | lua (a Lua jit.attach handler doing the same aggregation)
--       | empty-lua (a Lua handler that does nothing: LuaJIT's dispatch floor)
--       | empty-c (io.type, a C library function that does nothing with its
--         arguments: the floor for a handler written in C)
local mode, rounds, workload = arg[1], tonumber(arg[2] or "100"), arg[3] or "same"
local ljcheck = require("ljcheck")
local jutil, vmdef = require("jit.util"), require("jit.vmdef")

-- The same work the C handler does per event, in Lua: remember where each
-- trace started; at a stop, note a stitch; at an abort, resolve the
-- aborting location and the trace's start location (the site's `start`),
-- tell whether the start site was blacklisted (its instruction became an
-- I-prefixed one), and count the site.
local sites, aborts, starts = {}, 0, {}
local blacklistOps = { IFORL = true, IITERL = true, ILOOP = true, IFUNCF = true, IFUNCV = true }
local function opAt(func, pc)
  local ins = jutil.funcbc(func, pc)
  return ins and vmdef.bcnames:sub(ins % 256 * 6 + 1, ins % 256 * 6 + 6):gsub(" +$", "")
end
local function luaHandler(what, tr, func, pc, otr, oex)
  if what == "start" then
    starts[tr] = { func, pc }
  elseif what == "stop" then
    local info = jutil.traceinfo(tr)
    if info and (info.linktype == "stitch" or info.linktype == "return") then
      local key = "STITCH " .. tostring(tr)
      sites[key] = (sites[key] or 0) + 1
    end
  elseif what == "abort" then
    aborts = aborts + 1
    local at = jutil.funcinfo(func, pc)
    local start = starts[tr]
    local severity, from = "warn", "?"
    if start then
      if blacklistOps[opAt(start[1], start[2])] then severity = "blacklist" end
      from = tostring(jutil.funcinfo(start[1], start[2]).currentline)
    end
    local key = severity .. " " .. tostring(otr) .. ":" .. tostring(oex) .. " " ..
                tostring(at.source) .. ":" .. tostring(at.currentline) .. " from " .. from
    sites[key] = (sites[key] or 0) + 1
  end
end

local chunk = [[
local s = 0
for i = 1, 40 do
  local f = function() return i end
  s = s + f()
end
return s
]]
local same = assert(loadstring(chunk, "=round"))
local function work()
  for _ = 1, rounds do
    local f = workload == "fresh" and assert(loadstring(chunk, "=round")) or same
    f()
    jit.flush()
  end
end

if mode == "ljcheck" then
  local session = ljcheck.trace()
  work()
  aborts = session:stop().totalAborts
elseif mode == "lua" then
  jit.attach(luaHandler, "trace")
  work()
  jit.attach(luaHandler)
elseif mode == "empty-lua" or mode == "empty-c" then
  local handler = mode == "empty-c" and io.type or function() end
  jit.attach(handler, "trace")
  work()
  jit.attach(handler)
  aborts = rounds  -- not counted here: the script divides by ljcheck's count
elseif mode == "none" then
  work()
else
  error("unknown mode " .. tostring(mode))
end
io.write(aborts, " ", rounds, "\n")
