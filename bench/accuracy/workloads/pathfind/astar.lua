-- astar.lua: A* path finding on tile maps, as in roguelikes and tower
-- defence games: maps parsed from strings, 8-way movement with terrain
-- costs, a binary heap open set keyed by node index, and path smoothing.
local astar = {}

local abs, max, min, sqrt, floor = math.abs, math.max, math.min, math.sqrt, math.floor
local sub, rep, concat = string.sub, string.rep, table.concat
local setmetatable, error = setmetatable, error

local COST = { ["."] = 1, [","] = 2, ["~"] = 5, ["#"] = false }

local Map = {}
Map.__index = Map

function astar.map(text)
  local rows = {}
  for line in text:gmatch("[^\n]+") do rows[#rows + 1] = line end
  local h, w = #rows, #rows[1]
  local cost = {}
  for y = 1, h do
    local row = rows[y]
    if #row ~= w then error("ragged map at row " .. y) end
    for x = 1, w do
      local c = COST[sub(row, x, x)]
      if c == nil then error("bad tile at " .. x .. "," .. y) end
      cost[(y - 1) * w + x] = c
    end
  end
  return setmetatable({ w = w, h = h, cost = cost, rows = rows }, Map)
end

function Map:index(x, y) return (y - 1) * self.w + x end
function Map:coords(i)
  local x = (i - 1) % self.w + 1
  return x, (i - x) / self.w + 1
end

function Map:walkable(x, y)
  if x < 1 or y < 1 or x > self.w or y > self.h then return false end
  return self.cost[(y - 1) * self.w + x] ~= false
end

local DIRS = {
  { 1, 0, 1 }, { -1, 0, 1 }, { 0, 1, 1 }, { 0, -1, 1 },
  { 1, 1, 1.4142 }, { 1, -1, 1.4142 }, { -1, 1, 1.4142 }, { -1, -1, 1.4142 },
}

-- Octile distance: admissible for 8-way movement with unit straight cost.
local function heuristic(x1, y1, x2, y2)
  local dx, dy = abs(x1 - x2), abs(y1 - y2)
  return max(dx, dy) + 0.4142 * min(dx, dy)
end

-- Open set: a binary heap of node indices ordered by f.
local function heap_push(heap, f, node)
  local n = #heap + 1
  heap[n] = node
  while n > 1 do
    local p = floor(n / 2)
    if f[heap[p]] <= f[node] then break end
    heap[n], heap[p] = heap[p], node
    n = p
  end
end

local function heap_pop(heap, f)
  local top = heap[1]
  local last = heap[#heap]
  heap[#heap] = nil
  local n = #heap
  if n > 0 then
    heap[1] = last
    local i = 1
    while true do
      local l, r, m = 2 * i, 2 * i + 1, i
      if l <= n and f[heap[l]] < f[heap[m]] then m = l end
      if r <= n and f[heap[r]] < f[heap[m]] then m = r end
      if m == i then break end
      heap[i], heap[m] = heap[m], heap[i]
      i = m
    end
  end
  return top
end

function Map:find(sx, sy, gx, gy)
  local w = self.w
  local cost = self.cost
  local start, goal = self:index(sx, sy), self:index(gx, gy)
  local g, f, came, closed = { [start] = 0 }, { [start] = heuristic(sx, sy, gx, gy) }, {}, {}
  local open = { start }
  while #open > 0 do
    local cur = heap_pop(open, f)
    if cur == goal then
      local path = { goal }
      while came[cur] do
        cur = came[cur]
        path[#path + 1] = cur
      end
      -- reverse in place
      local n = #path
      for i = 1, floor(n / 2) do path[i], path[n - i + 1] = path[n - i + 1], path[i] end
      return path, g[goal]
    end
    if not closed[cur] then
      closed[cur] = true
      local cx, cy = self:coords(cur)
      for d = 1, 8 do
        local dir = DIRS[d]
        local nx, ny = cx + dir[1], cy + dir[2]
        if self:walkable(nx, ny) and (dir[3] == 1 or (self:walkable(cx, ny) and self:walkable(nx, cy))) then
          local ni = (ny - 1) * w + nx
          local ng = g[cur] + dir[3] * cost[ni]
          if not closed[ni] and (g[ni] == nil or ng < g[ni]) then
            g[ni] = ng
            f[ni] = ng + heuristic(nx, ny, gx, gy)
            came[ni] = cur
            heap_push(open, f, ni)
          end
        end
      end
    end
  end
  return nil
end

-- Line of sight by Bresenham; used to drop redundant waypoints.
function Map:visible(x0, y0, x1, y1)
  local dx, dy = abs(x1 - x0), -abs(y1 - y0)
  local sx, sy = x0 < x1 and 1 or -1, y0 < y1 and 1 or -1
  local err = dx + dy
  while true do
    if not self:walkable(x0, y0) then return false end
    if x0 == x1 and y0 == y1 then return true end
    local e2 = 2 * err
    if e2 >= dy then err = err + dy; x0 = x0 + sx end
    if e2 <= dx then err = err + dx; y0 = y0 + sy end
  end
end

function Map:smooth(path)
  if #path < 3 then return path end
  local out = { path[1] }
  local anchor = path[1]
  for i = 2, #path - 1 do
    local ax, ay = self:coords(anchor)
    local bx, by = self:coords(path[i + 1])
    if not self:visible(ax, ay, bx, by) then
      out[#out + 1] = path[i]
      anchor = path[i]
    end
  end
  out[#out + 1] = path[#path]
  return out
end

function Map:render(path)
  local marks = {}
  for _, i in ipairs(path or {}) do marks[i] = true end
  local lines = {}
  for y = 1, self.h do
    local row = {}
    for x = 1, self.w do
      row[x] = marks[self:index(x, y)] and "*" or sub(self.rows[y], x, x)
    end
    lines[y] = concat(row)
  end
  return concat(lines, "\n")
end

function astar.length(map, path)
  local len = 0
  for i = 2, #path do
    local x0, y0 = map:coords(path[i - 1])
    local x1, y1 = map:coords(path[i])
    len = len + sqrt((x1 - x0) ^ 2 + (y1 - y0) ^ 2)
  end
  return len
end

astar.blank = function(w, h) return (rep(rep(".", w) .. "\n", h)) end
return astar
