-- Driver: a discrete-event simulation of a bank with tellers (events in a
-- heap ordered by time), then Dijkstra over a random graph (indexed heap).
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local pqueue = require("pqueue")
local random, log, format = math.random, math.log, string.format

local CUSTOMERS = tonumber(arg and arg[1]) or 60000
math.randomseed(7)

local function exponential(rate)
  return -log(1 - random()) / rate
end

-- Event simulation -----------------------------------------------------------
local events = pqueue.new(function(a, b)
  if a.time == b.time then return a.seq < b.seq end
  return a.time < b.time
end)
local seq = 0
local function schedule(time, kind, customer)
  seq = seq + 1
  events:push({ time = time, kind = kind, customer = customer, seq = seq })
end

local TELLERS = 4
local free, waiting, qhead, qtail = TELLERS, {}, 1, 0
local waited, served, maxq = 0, 0, 0

local t = 0
for c = 1, CUSTOMERS do
  t = t + exponential(3.8)
  schedule(t, "arrive", { id = c, arrived = t })
end

while events:len() > 0 do
  local ev = events:pop()
  local now = ev.time
  if ev.kind == "arrive" then
    if free > 0 then
      free = free - 1
      schedule(now + exponential(1), "leave", ev.customer)
    else
      qtail = qtail + 1
      waiting[qtail] = ev.customer
      if qtail - qhead + 1 > maxq then maxq = qtail - qhead + 1 end
    end
  else
    served = served + 1
    if qhead <= qtail then
      local nextc = waiting[qhead]
      waiting[qhead] = nil
      qhead = qhead + 1
      waited = waited + (now - nextc.arrived)
      schedule(now + exponential(1), "leave", nextc)
    else
      free = free + 1
    end
  end
end
assert(served == CUSTOMERS)

-- Dijkstra ---------------------------------------------------------------------
local N = 3000
local adj = {}
for v = 1, N do
  local edges = {}
  for k = 1, 6 do
    edges[k] = { to = random(1, N), w = random(1, 100) }
  end
  adj[v] = edges
end

local function dijkstra(source)
  local dist = { [source] = 0 }
  local q = pqueue.indexed()
  q:set(source, 0)
  while q:len() > 0 do
    local u, d = q:pop()
    local edges = adj[u]
    for i = 1, #edges do
      local e = edges[i]
      local nd = d + e.w
      local old = dist[e.to]
      if old == nil or nd < old then
        dist[e.to] = nd
        q:set(e.to, nd)
      end
    end
  end
  return dist
end

local reach, far = 0, 0
for s = 1, 12 do
  local dist = dijkstra(s)
  for v = 1, N do
    local d = dist[v]
    if d then
      reach = reach + 1
      if d > far then far = d end
    end
  end
end

local sorted = pqueue.new()
for i = 1, 2000 do sorted:push(random(1, 1e6)) end
local drained = sorted:drain()
for i = 2, #drained do assert(drained[i - 1] <= drained[i]) end

print(format("pqueue: served %d, mean wait %.3f, max queue %d; dijkstra reach %d, far %d",
  served, waited / served, maxq, reach, far))
