-- A cooperative task scheduler in the style of the classic operating-system
-- simulation benchmarks: a run queue of tasks (idle, worker, handler, device),
-- packets passed between them, and a tick counter. Classes are tables with
-- __index metatables; handlers and devices inherit from Task.
local M = {}

local ID_IDLE, ID_WORKER, ID_HANDLER_A, ID_HANDLER_B, ID_DEVICE_A, ID_DEVICE_B = 1, 2, 3, 4, 5, 6
M.ids = { idle = ID_IDLE, worker = ID_WORKER, handlerA = ID_HANDLER_A, handlerB = ID_HANDLER_B,
          deviceA = ID_DEVICE_A, deviceB = ID_DEVICE_B }

local KIND_DEVICE, KIND_WORK = 0, 1
local DATA_SIZE = 4

-- Packets -------------------------------------------------------------------
local Packet = {}
Packet.__index = Packet

function Packet.new(link, id, kind)
  local p = setmetatable({ link = link, id = id, kind = kind, a1 = 0, a2 = {} }, Packet)
  for i = 1, DATA_SIZE do p.a2[i] = 0 end
  return p
end

function Packet:addTo(queue)
  self.link = nil
  if queue == nil then return self end
  local next = queue
  while next.link ~= nil do next = next.link end
  next.link = self
  return queue
end

-- Tasks ---------------------------------------------------------------------
local Task = {}
Task.__index = Task

function Task.new(scheduler, id, priority, queue, state)
  local t = setmetatable({}, Task)
  t.scheduler, t.id, t.priority, t.queue = scheduler, id, priority, queue
  t.packetPending, t.waiting, t.held = state.packetPending, state.waiting, state.held
  return t
end

function Task:isHeldOrWaiting()
  return self.held or (not self.packetPending and self.waiting)
end

function Task:waitWithPacket()
  self.waiting = true
  self.packetPending = true
  return self
end

function Task:checkPriorityAdd(task, packet)
  if self.queue == nil then
    self.queue = packet
    self.packetPending = true
    self.waiting = false
    if self.priority > task.priority then return self end
  else
    self.queue = packet:addTo(self.queue)
  end
  return task
end

function Task:takePacket()
  local packet = self.queue
  self.queue = packet.link
  self.packetPending = self.queue ~= nil
  self.waiting = false
  return packet
end

local function subclass(base)
  local class = setmetatable({}, { __index = base })
  class.__index = class
  return class
end

local IdleTask = subclass(Task)
function IdleTask:run(packet)
  self.count = self.count - 1
  if self.count == 0 then return self.scheduler:holdCurrent() end
  if self.control % 2 == 0 then
    self.control = self.control / 2
    return self.scheduler:release(ID_DEVICE_A)
  end
  self.control = (self.control - 1) / 2 + 0xD008 % 0x10000
  self.control = self.control % 0x10000
  return self.scheduler:release(ID_DEVICE_B)
end

local WorkerTask = subclass(Task)
function WorkerTask:run(packet)
  if packet == nil then return self.scheduler:suspendCurrent() end
  self.destination = self.destination == ID_HANDLER_A and ID_HANDLER_B or ID_HANDLER_A
  packet.id = self.destination
  packet.a1 = 0
  for i = 1, DATA_SIZE do
    self.count = self.count + 1
    if self.count > 26 then self.count = 1 end
    packet.a2[i] = self.count
  end
  return self.scheduler:queue(packet)
end

local HandlerTask = subclass(Task)
function HandlerTask:run(packet)
  if packet ~= nil then
    if packet.kind == KIND_WORK then
      self.workIn = packet:addTo(self.workIn)
    else
      self.deviceIn = packet:addTo(self.deviceIn)
    end
  end
  if self.workIn ~= nil then
    local work = self.workIn
    local count = work.a1 + 1
    if count > DATA_SIZE then
      self.workIn = work.link
      return self.scheduler:queue(work)
    end
    if self.deviceIn ~= nil then
      local device = self.deviceIn
      self.deviceIn = device.link
      device.a1 = work.a2[count]
      work.a1 = count
      return self.scheduler:queue(device)
    end
  end
  return self.scheduler:suspendCurrent()
end

local DeviceTask = subclass(Task)
function DeviceTask:run(packet)
  if packet == nil then
    if self.pending == nil then return self.scheduler:suspendCurrent() end
    local v = self.pending
    self.pending = nil
    return self.scheduler:queue(v)
  end
  self.pending = packet
  self.scheduler.holdCount = self.scheduler.holdCount + 1
  return self.scheduler:holdCurrent()
end

-- The scheduler ------------------------------------------------------------
local Scheduler = {}
Scheduler.__index = Scheduler

function M.new()
  local s = setmetatable({ tasks = {}, list = nil, current = nil, queueCount = 0, holdCount = 0 }, Scheduler)
  return s
end

function Scheduler:add(class, id, priority, queue, state, fields)
  local t = Task.new(self, id, priority, queue, state)
  setmetatable(t, class)
  for k, v in pairs(fields or {}) do t[k] = v end
  t.link = self.list
  self.list = t
  self.tasks[id] = t
  return t
end

local RUNNING = { packetPending = false, waiting = false, held = false }
local WAITING = { packetPending = false, waiting = true, held = false }
local WAITING_WITH_PACKET = { packetPending = true, waiting = true, held = false }

function Scheduler:addIdle(id, priority, count)
  self:add(IdleTask, id, priority, nil, RUNNING, { control = 1, count = count })
end

function Scheduler:addWorker(id, priority, queue)
  self:add(WorkerTask, id, priority, queue, WAITING_WITH_PACKET, { destination = ID_HANDLER_A, count = 0 })
end

function Scheduler:addHandler(id, priority, queue)
  self:add(HandlerTask, id, priority, queue, WAITING_WITH_PACKET, {})
end

function Scheduler:addDevice(id, priority)
  self:add(DeviceTask, id, priority, nil, WAITING, {})
end

function Scheduler:schedule()
  self.current = self.list
  while self.current ~= nil do
    local task = self.current
    if task:isHeldOrWaiting() then
      self.current = task.link
    else
      local packet = nil
      if task.packetPending and task.waiting then packet = task:takePacket() end
      self.current = task:run(packet)
    end
  end
end

function Scheduler:release(id)
  local t = self.tasks[id]
  if t == nil then return t end
  t.held = false
  if t.priority > self.current.priority then return t end
  return self.current
end

function Scheduler:holdCurrent()
  self.holdCount = self.holdCount + 1
  self.current.held = true
  return self.current.link
end

function Scheduler:suspendCurrent()
  self.current.waiting = true
  return self.current
end

function Scheduler:queue(packet)
  local t = self.tasks[packet.id]
  if t == nil then return t end
  self.queueCount = self.queueCount + 1
  packet.link = nil
  packet.id = self.current.id
  return t:checkPriorityAdd(self.current, packet)
end

M.Packet = Packet
M.KIND_DEVICE, M.KIND_WORK = KIND_DEVICE, KIND_WORK
return M
