-- Driver: builds the six-task system and runs it to completion, a fixed
-- number of times, checking the queue and hold counts of every run.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local sched = require("scheduler")
local Packet, ids = sched.Packet, sched.ids

local function build(count)
  local s = sched.new()
  s:addIdle(ids.idle, 0, count)
  local q = Packet.new(nil, ids.worker, sched.KIND_WORK)
  q = Packet.new(q, ids.worker, sched.KIND_WORK)
  s:addWorker(ids.worker, 1000, q)
  q = Packet.new(nil, ids.deviceA, sched.KIND_DEVICE)
  q = Packet.new(q, ids.deviceA, sched.KIND_DEVICE)
  q = Packet.new(q, ids.deviceA, sched.KIND_DEVICE)
  s:addHandler(ids.handlerA, 2000, q)
  q = Packet.new(nil, ids.deviceB, sched.KIND_DEVICE)
  q = Packet.new(q, ids.deviceB, sched.KIND_DEVICE)
  q = Packet.new(q, ids.deviceB, sched.KIND_DEVICE)
  s:addHandler(ids.handlerB, 3000, q)
  s:addDevice(ids.deviceA, 4000)
  s:addDevice(ids.deviceB, 5000)
  return s
end

local RUNS = tonumber(arg and arg[1]) or 40
local queued, held
for run = 1, RUNS do
  local s = build(1000)
  s:schedule()
  if run == 1 then
    queued, held = s.queueCount, s.holdCount
  else
    assert(s.queueCount == queued and s.holdCount == held, "runs disagree")
  end
end
assert(queued > 1000 and held > 100)
print(("scheduler: %d runs, %d packets queued, %d holds per run"):format(RUNS, queued, held))
