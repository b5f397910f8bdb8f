-- pqueue.lua: a binary min-heap priority queue with a pluggable comparator,
-- plus an indexed variant that supports priority updates (decrease-key), the
-- two shapes schedulers and graph searches use.
local pqueue = {}

local floor = math.floor
local setmetatable, assert = setmetatable, assert

local function default_less(a, b) return a < b end

local Heap = {}
Heap.__index = Heap

function pqueue.new(less)
  return setmetatable({ items = {}, size = 0, less = less or default_less }, Heap)
end

local function sift_up(items, less, i)
  local item = items[i]
  while i > 1 do
    local parent = floor(i / 2)
    local p = items[parent]
    if not less(item, p) then break end
    items[i] = p
    i = parent
  end
  items[i] = item
end

local function sift_down(items, less, size, i)
  local item = items[i]
  while true do
    local child = i * 2
    if child > size then break end
    local right = child + 1
    if right <= size and less(items[right], items[child]) then
      child = right
    end
    if not less(items[child], item) then break end
    items[i] = items[child]
    i = child
  end
  items[i] = item
end

function Heap:push(item)
  local size = self.size + 1
  self.size = size
  self.items[size] = item
  sift_up(self.items, self.less, size)
end

function Heap:peek()
  return self.items[1]
end

function Heap:pop()
  local size = self.size
  if size == 0 then return nil end
  local items = self.items
  local top = items[1]
  items[1] = items[size]
  items[size] = nil
  size = size - 1
  self.size = size
  if size > 1 then sift_down(items, self.less, size, 1) end
  return top
end

function Heap:len() return self.size end

function Heap:drain()
  local out = {}
  while self.size > 0 do
    out[#out + 1] = self:pop()
  end
  return out
end

-------------------------------------------------------------------------------
-- Indexed heap: values keyed by an id, priorities can change.
-------------------------------------------------------------------------------
local Indexed = {}
Indexed.__index = Indexed

function pqueue.indexed()
  return setmetatable({ keys = {}, prio = {}, pos = {}, size = 0 }, Indexed)
end

local function swap(h, i, j)
  local keys, pos = h.keys, h.pos
  keys[i], keys[j] = keys[j], keys[i]
  pos[keys[i]] = i
  pos[keys[j]] = j
end

local function up(h, i)
  local keys, prio = h.keys, h.prio
  while i > 1 do
    local parent = floor(i / 2)
    if prio[keys[parent]] <= prio[keys[i]] then return end
    swap(h, i, parent)
    i = parent
  end
end

local function down(h, i)
  local keys, prio, n = h.keys, h.prio, h.size
  while true do
    local l, r, m = 2 * i, 2 * i + 1, i
    if l <= n and prio[keys[l]] < prio[keys[m]] then m = l end
    if r <= n and prio[keys[r]] < prio[keys[m]] then m = r end
    if m == i then return end
    swap(h, i, m)
    i = m
  end
end

function Indexed:set(key, priority)
  local i = self.pos[key]
  if i then
    local old = self.prio[key]
    self.prio[key] = priority
    if priority < old then up(self, i) else down(self, i) end
  else
    local n = self.size + 1
    self.size = n
    self.keys[n] = key
    self.pos[key] = n
    self.prio[key] = priority
    up(self, n)
  end
end

function Indexed:pop()
  local n = self.size
  if n == 0 then return nil end
  local key = self.keys[1]
  local priority = self.prio[key]
  swap(self, 1, n)
  self.keys[n] = nil
  self.pos[key] = nil
  self.prio[key] = nil
  self.size = n - 1
  if n > 1 then down(self, 1) end
  return key, priority
end

function Indexed:contains(key) return self.pos[key] ~= nil end
function Indexed:len() return self.size end

function Indexed:check()
  for i = 2, self.size do
    assert(self.prio[self.keys[floor(i / 2)]] <= self.prio[self.keys[i]], "heap property")
  end
  return true
end

return pqueue
