-- Driver: the classic allocation benchmark (stretch tree, long-lived tree,
-- many short-lived trees per depth), then iterator and coroutine walks.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local trees = require("trees")

local MAX = tonumber(arg and arg[1]) or 12
local MIN = 4

local stretch = trees.check(trees.bottomUp(MAX + 1))
assert(stretch == 2 ^ (MAX + 2) - 1)

local longLived = trees.bottomUp(MAX)
local total = 0
for depth = MIN, MAX, 2 do
  local iterations = 2 ^ (MAX - depth + MIN)
  local check = 0
  for _ = 1, iterations do
    check = check + trees.check(trees.bottomUp(depth))
  end
  assert(check == iterations * (2 ^ (depth + 1) - 1))
  total = total + check
end
assert(trees.check(longLived) == 2 ^ (MAX + 1) - 1)

local count = 0
for node in trees.nodes(longLived) do
  if not node[1] then count = count + 1 end
end
assert(count == 2 ^ MAX)

local leaves = 0
for _ = 1, 8 do
  for _ in trees.leaves(trees.bottomUp(10)) do leaves = leaves + 1 end
end
assert(leaves == 8 * 2 ^ 10)
assert(trees.depthOf(longLived) == MAX)
print(("bintrees: depth %d, %d nodes checked, %d leaves walked"):format(MAX, total, count + leaves))
