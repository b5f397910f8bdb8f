-- Trace exits under a timeline (bench/recorder_exits.sh): a compiled loop
-- that leaves its trace through a side exit every other iteration. hotexit
-- is raised so no side trace takes over: every one of those iterations
-- stays an exit. usage: luajit exits.lua none|timeline|exits N
-- Prints "work_ns_per_round <CPU ns per loop round>" (os.clock around the
-- loop only: not the timeline's export) and "exits <exit instants recorded>".
local mode, n = arg[1], tonumber(arg[2])
assert((mode == "none" or mode == "timeline" or mode == "exits") and n, "usage: exits.lua none|timeline|exits N")
jit.opt.start("hotexit=65000")
local ljcheck = require("ljcheck")

local function work(rounds)
  local t = 0
  for i = 1, rounds do
    if i % 2 == 0 then t = t + 1 else t = t - 1 end
  end
  return t
end

local tl = mode ~= "none" and ljcheck.timeline({ chunks = 64, exits = mode == "exits" }) or nil
local began = os.clock()
work(n)
local elapsed = os.clock() - began
local exits = 0
if tl then
  local json = tl:stop()
  exits = select(2, json:gsub('"exit":', ""))
end
print(string.format("work_ns_per_round %.3f", elapsed * 1e9 / n))
print("exits " .. exits)
