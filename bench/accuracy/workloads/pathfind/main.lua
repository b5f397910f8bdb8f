-- Driver: builds a cave-like map with walls, rough terrain and water, then
-- routes many units between random points, as a game's AI tick would.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local astar = require("astar")
local random, format, concat = math.random, string.format, table.concat

local QUERIES = tonumber(arg and arg[1]) or 100
math.randomseed(5)

local W, H = 120, 80
local rows = {}
for y = 1, H do
  local row = {}
  for x = 1, W do
    local r = random()
    local tile = "."
    if (x % 20 == 0 and y % 25 ~= 5) or (y % 30 == 0 and x % 35 ~= 7) then tile = "#"
    elseif r < 0.12 then tile = "#"
    elseif r < 0.25 then tile = ","
    elseif r < 0.30 then tile = "~" end
    row[x] = tile
  end
  rows[y] = concat(row)
end
local map = astar.map(concat(rows, "\n"))

local function random_open()
  while true do
    local x, y = random(1, W), random(1, H)
    if map:walkable(x, y) then return x, y end
  end
end

local found, total_len, waypoints = 0, 0, 0
for q = 1, QUERIES do
  local sx, sy = random_open()
  local gx, gy = random_open()
  local path, cost = map:find(sx, sy, gx, gy)
  if path then
    found = found + 1
    local smooth = map:smooth(path)
    waypoints = waypoints + #smooth
    total_len = total_len + astar.length(map, smooth)
    assert(cost >= astar.length(map, smooth) - 1e-6)
  end
end

local small = astar.map(astar.blank(12, 6))
local p = small:find(1, 1, 12, 6)
assert(#small:render(p) == 12 * 6 + 5)
print(format("pathfind: %d/%d routes, %d waypoints, mean length %.1f", found, QUERIES, waypoints, total_len / found))
