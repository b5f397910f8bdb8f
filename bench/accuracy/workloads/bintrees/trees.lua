-- Binary trees: allocate perfect trees of a given depth, check them by
-- recursion, keep one long-lived tree, and walk trees in order through a
-- closure-based iterator and through a coroutine.
local M = {}

function M.bottomUp(depth)
  if depth == 0 then return {} end
  depth = depth - 1
  return { M.bottomUp(depth), M.bottomUp(depth) }
end

function M.check(tree)
  if tree[1] then
    return 1 + M.check(tree[1]) + M.check(tree[2])
  end
  return 1
end

-- In-order walk with an explicit stack, as an iterator closure.
function M.nodes(tree)
  local stack, top = { tree }, 1
  return function()
    if top == 0 then return nil end
    local node = stack[top]
    stack[top] = nil
    top = top - 1
    if node[1] then
      stack[top + 1], stack[top + 2] = node[2], node[1]
      top = top + 2
    end
    return node
  end
end

-- The same walk as a coroutine generator.
function M.leaves(tree)
  return coroutine.wrap(function()
    local function visit(node)
      if node[1] then
        visit(node[1])
        visit(node[2])
      else
        coroutine.yield(node)
      end
    end
    visit(tree)
  end)
end

function M.depthOf(tree)
  local depth, node = 0, tree
  while node[1] do
    depth = depth + 1
    node = node[1]
  end
  return depth
end

return M
