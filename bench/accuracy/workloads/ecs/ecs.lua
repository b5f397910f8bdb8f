-- ecs.lua: a small entity-component-system world in the style of tiny-ecs
-- and game code built on LÖVE: entities are tables of components, systems
-- are filtered per component set and updated every frame, events fan out to
-- handlers, and timers schedule callbacks.
local ecs = {}

local setmetatable, next, ipairs, select, unpack = setmetatable, next, ipairs, select, unpack
local sqrt, min, max = math.sqrt, math.min, math.max
local remove, sort = table.remove, table.sort

-------------------------------------------------------------------------------
-- 2D vectors
-------------------------------------------------------------------------------
local Vec = {}
Vec.__index = Vec

local function vec(x, y) return setmetatable({ x = x, y = y }, Vec) end
ecs.vec = vec

function Vec.__add(a, b) return vec(a.x + b.x, a.y + b.y) end
function Vec.__sub(a, b) return vec(a.x - b.x, a.y - b.y) end
function Vec.__mul(a, s) return vec(a.x * s, a.y * s) end
function Vec:len() return sqrt(self.x * self.x + self.y * self.y) end
function Vec:normalized()
  local l = self:len()
  if l == 0 then return vec(0, 0) end
  return vec(self.x / l, self.y / l)
end

-------------------------------------------------------------------------------
-- World
-------------------------------------------------------------------------------
local World = {}
World.__index = World

function ecs.world()
  return setmetatable({
    entities = {}, systems = {}, handlers = {}, timers = {},
    nextId = 1, time = 0, removed = {},
  }, World)
end

function World:spawn(components)
  local e = components or {}
  e.id = self.nextId
  self.nextId = self.nextId + 1
  self.entities[#self.entities + 1] = e
  return e
end

function World:kill(e)
  self.removed[e] = true
end

-- filter: a list of component names an entity must all have
function World:system(name, filter, update, priority)
  local sys = { name = name, filter = filter, update = update, priority = priority or 0 }
  self.systems[#self.systems + 1] = sys
  sort(self.systems, function(a, b) return a.priority < b.priority end)
  return sys
end

local function matches(e, filter)
  for i = 1, #filter do
    if e[filter[i]] == nil then return false end
  end
  return true
end

function World:on(event, handler)
  local list = self.handlers[event]
  if not list then
    list = {}
    self.handlers[event] = list
  end
  list[#list + 1] = handler
end

function World:emit(event, ...)
  local list = self.handlers[event]
  if not list then return 0 end
  for i = 1, #list do
    list[i](...)
  end
  return select("#", ...)
end

function World:after(delay, fn, ...)
  local args = { ... }
  self.timers[#self.timers + 1] = { at = self.time + delay, fn = function() return fn(unpack(args)) end }
end

function World:runTimers()
  local timers = self.timers
  local i = 1
  while i <= #timers do
    local t = timers[i]
    if t.at <= self.time then
      remove(timers, i)
      t.fn()
    else
      i = i + 1
    end
  end
end

function World:update(dt)
  self.time = self.time + dt
  local entities = self.entities
  for s = 1, #self.systems do
    local sys = self.systems[s]
    local filter, update = sys.filter, sys.update
    for i = 1, #entities do
      local e = entities[i]
      if not self.removed[e] and matches(e, filter) then
        update(self, e, dt)
      end
    end
  end
  self:runTimers()
  -- compact killed entities
  if next(self.removed) then
    local j = 0
    for i = 1, #entities do
      local e = entities[i]
      if not self.removed[e] then
        j = j + 1
        entities[j] = e
      end
    end
    for i = #entities, j + 1, -1 do entities[i] = nil end
    self.removed = {}
  end
end

function World:count(component)
  local n = 0
  for _, e in ipairs(self.entities) do
    if e[component] ~= nil then n = n + 1 end
  end
  return n
end

-------------------------------------------------------------------------------
-- Stock systems
-------------------------------------------------------------------------------
ecs.systems = {}

function ecs.systems.movement(world, e, dt)
  e.pos = e.pos + e.vel * dt
  local b = world.bounds
  if b then
    if e.pos.x < 0 or e.pos.x > b.w then e.vel = vec(-e.vel.x, e.vel.y) end
    if e.pos.y < 0 or e.pos.y > b.h then e.vel = vec(e.vel.x, -e.vel.y) end
    e.pos = vec(min(max(e.pos.x, 0), b.w), min(max(e.pos.y, 0), b.h))
  end
end

function ecs.systems.seek(world, e, dt)
  local target = e.seek.target
  if target and target.pos then
    local dir = (target.pos - e.pos):normalized()
    e.vel = e.vel + dir * (e.seek.accel * dt)
    local speed = e.vel:len()
    if speed > e.seek.maxSpeed then e.vel = e.vel * (e.seek.maxSpeed / speed) end
  end
end

function ecs.systems.lifetime(world, e, dt)
  e.ttl = e.ttl - dt
  if e.ttl <= 0 then
    world:emit("expired", e, world.time)
    world:kill(e)
  end
end

function ecs.systems.health(world, e, dt)
  if e.health.regen > 0 then
    e.health.hp = min(e.health.max, e.health.hp + e.health.regen * dt)
  end
  if e.health.hp <= 0 then
    world:emit("died", e)
    world:kill(e)
  end
end

return ecs
