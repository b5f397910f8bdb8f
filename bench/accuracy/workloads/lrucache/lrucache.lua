-- lrucache.lua: an LRU cache with per-item TTL, after lua-resty-lrucache: the
-- recency queue is a doubly linked list of C structs in one FFI array, keys
-- map to queue nodes through a Lua table, and values live in a Lua table
-- indexed by the node's address.
local ffi = require("ffi")

local ffi_new, ffi_cast, ffi_fill = ffi.new, ffi.cast, ffi.fill
local setmetatable, type, tostring, tonumber, pairs = setmetatable, type, tostring, tonumber, pairs
local floor, huge = math.floor, math.huge

ffi.cdef[[
  typedef struct lrucache_queue_s lrucache_queue_t;
  struct lrucache_queue_s {
    double expire;   /* in seconds */
    lrucache_queue_t *prev;
    lrucache_queue_t *next;
    uint32_t user_flags;
  };
]]

local queue_arr_type = ffi.typeof("lrucache_queue_t[?]")
local queue_ptr_type = ffi.typeof("lrucache_queue_t*")
local uintptr_t = ffi.typeof("uintptr_t")
local NULL = ffi.null

local function ptr2num(ptr)
  return tonumber(ffi_cast(uintptr_t, ptr))
end

-- The clock; replaceable for tests (resty uses ngx.now()).
local now = os.clock

local function queue_init(size)
  local q = ffi_new(queue_arr_type, size + 1)
  ffi_fill(q, ffi.sizeof("lrucache_queue_t") * (size + 1), 0)
  if size == 0 then
    q[0].prev = q
    q[0].next = q
  else
    local prev = q[0]
    for i = 1, size do
      local e = q + i
      e.user_flags = 0
      prev.next = e
      e.prev = prev
      prev = e
    end
    local last = q[size]
    last.next = q
    q[0].prev = last
  end
  return q
end

local function queue_is_empty(q)
  return q == q[0].prev
end

local function queue_remove(x)
  local prev = x.prev
  local next = x.next
  next.prev = prev
  prev.next = next
  x.prev = NULL
  x.next = NULL
end

local function queue_insert_head(h, x)
  x.next = h[0].next
  x.next.prev = x
  x.prev = h
  h[0].next = x
end

local function queue_last(h)
  return h[0].prev
end

local function queue_head(h)
  return h[0].next
end

local _M = { _VERSION = "0.13" }
local mt = { __index = _M }

function _M.new(size)
  if size < 1 then
    return nil, "size too small"
  end
  local self = {
    hasht = {},
    free_queue = queue_init(size),
    cache_queue = queue_init(0),
    key2node = {},
    node2key = {},
    size = size,
  }
  return setmetatable(self, mt)
end

function _M.set_clock(fn)
  now = fn
end

function _M.count(self)
  local n = 0
  local q = self.cache_queue
  local node = queue_head(q)
  while node ~= q do
    n = n + 1
    node = node.next
  end
  return n
end

function _M.get(self, key)
  local hasht = self.hasht
  local val = hasht[key]
  if val == nil then
    return nil
  end
  local node = self.key2node[key]
  -- print(key, ": moving node ", tostring(node), " to cache queue head")
  local cache_queue = self.cache_queue
  queue_remove(node)
  queue_insert_head(cache_queue, node)
  if node.expire >= 0 and node.expire < now() then
    return nil, val, node.user_flags
  end
  return val, nil, node.user_flags
end

function _M.delete(self, key)
  self.hasht[key] = nil
  local key2node = self.key2node
  local node = key2node[key]
  if not node then
    return false
  end
  key2node[key] = nil
  self.node2key[ptr2num(node)] = nil
  queue_remove(node)
  queue_insert_head(self.free_queue, node)
  return true
end

function _M.set(self, key, value, ttl, flags)
  local hasht = self.hasht
  hasht[key] = value
  local key2node = self.key2node
  local node = key2node[key]
  if not node then
    local free_queue = self.free_queue
    local node2key = self.node2key
    if queue_is_empty(free_queue) then
      -- evict the least recently used key
      node = queue_last(self.cache_queue)
      local oldkey = node2key[ptr2num(node)]
      if oldkey then
        hasht[oldkey] = nil
        key2node[oldkey] = nil
      end
    else
      node = queue_head(free_queue)
    end
    queue_remove(node)
    queue_insert_head(self.cache_queue, node)
    key2node[key] = node
    node2key[ptr2num(node)] = key
  else
    queue_remove(node)
    queue_insert_head(self.cache_queue, node)
  end
  if ttl then
    node.expire = now() + ttl
  else
    node.expire = -1
  end
  if type(flags) == "number" and flags >= 0 then
    node.user_flags = flags
  else
    node.user_flags = 0
  end
end

function _M.flush_all(self)
  local cache_queue = self.cache_queue
  local key2node = self.key2node
  self.hasht = {}
  self.node2key = {}
  local node = queue_head(cache_queue)
  while node ~= cache_queue do
    local next_node = node.next
    queue_remove(node)
    queue_insert_head(self.free_queue, node)
    node = next_node
  end
  for k in pairs(key2node) do key2node[k] = nil end
end

-- Items with their remaining TTL, most recent first (for debugging pages).
function _M.dump(self, max)
  local out = {}
  local q = self.cache_queue
  local node = queue_head(q)
  local t = now()
  while node ~= q and #out < (max or huge) do
    local key = self.node2key[ptr2num(node)]
    local ttl = node.expire < 0 and "inf" or tostring(floor((node.expire - t) * 1000))
    out[#out + 1] = tostring(key) .. " (ttl " .. ttl .. "ms)"
    node = node.next
  end
  return out
end

_M.is_queue_ptr = function(p) return ffi.istype(queue_ptr_type, p) end
return _M
