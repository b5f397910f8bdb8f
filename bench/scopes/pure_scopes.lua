-- The baseline of bench/scopes.sh: ljcheck.scope's semantics in plain Lua.
-- Same clock (CLOCK_MONOTONIC through the FFI, the cheapest monotonic
-- nanosecond clock Lua reaches), the heap in bytes through the only Lua way
-- (collectgarbage("count") * 1024, exact in LuaJIT), nodes by label under
-- their parent, count, time sum and max, a 128-entry Algorithm R reservoir,
-- sum D and sum I per node, the root's accounting over top-level scopes.
local ffi = require("ffi")
pcall(ffi.cdef, "typedef struct { long sec, nsec; } bench_scopes_timespec; int clock_gettime(int, bench_scopes_timespec *);")
local C, ts = ffi.C, ffi.new("bench_scopes_timespec")
local random, error, type = math.random, error, type
local K, MONOTONIC = 128, 1

local function nowNs()
  C.clock_gettime(MONOTONIC, ts)
  return tonumber(ts.sec) * 1e9 + tonumber(ts.nsec)
end

local function newNode(label, parent)
  return {label = label, parent = parent, children = {}, open = false, closedBefore = false,
          startNs = 0, startBytes = 0, lastEnd = 0, count = 0, timeSum = 0, timeMax = 0,
          deltaSum = 0, inverseSum = 0, times = {}}
end

local root = newNode("root", nil)
local current, depth = root, 0

local function mark(label)
  local ns, bytes = nowNs(), collectgarbage("count") * 1024
  local node = current.children[label]
  if node == nil then
    if type(label) ~= "string" then error("mark(label): the label must be a string", 2) end
    node = newNode(label, current)
    current.children[label] = node
  end
  if node.closedBefore then node.inverseSum = node.inverseSum + bytes - node.lastEnd end
  if depth == 0 then
    if root.closedBefore then root.inverseSum = root.inverseSum + bytes - root.lastEnd end
    root.open = true
  end
  node.open, node.startNs, node.startBytes = true, ns, bytes
  current, depth = node, depth + 1
end

local function done()
  if depth == 0 then error("done(): no scope is open", 2) end
  local ns, bytes = nowNs(), collectgarbage("count") * 1024
  local node = current
  local elapsed, delta = ns - node.startNs, bytes - node.startBytes
  local count = node.count + 1
  node.count = count
  node.timeSum = node.timeSum + elapsed
  if elapsed > node.timeMax then node.timeMax = elapsed end
  if count <= K then node.times[count] = elapsed
  else
    local slot = random(count)
    if slot <= K then node.times[slot] = elapsed end
  end
  node.deltaSum = node.deltaSum + delta
  node.lastEnd, node.closedBefore, node.open = bytes, true, false
  current, depth = node.parent, depth - 1
  if depth == 0 then
    root.deltaSum = root.deltaSum + delta
    root.lastEnd, root.closedBefore, root.open = bytes, true, false
  end
end

return {mark = mark, done = done, root = root}
