-- Permutations: Heap's algorithm with a visitor, pancake flips counted per
-- permutation, and vararg helpers (a memoizer keyed by all arguments, a
-- variadic max, argument packing) of the kind utility modules carry.
local unpack = unpack or table.unpack
local select, concat = select, table.concat
local M = {}

function M.heaps(n, visit)
  local a, c = {}, {}
  for i = 1, n do a[i], c[i] = i, 1 end
  visit(a)
  local i = 1
  while i <= n do
    if c[i] < i then
      local j = (i % 2 == 1) and 1 or c[i]
      a[j], a[i] = a[i], a[j]
      visit(a)
      c[i] = c[i] + 1
      i = 1
    else
      c[i] = 1
      i = i + 1
    end
  end
end

function M.flips(perm, n)
  local p = { unpack(perm, 1, n) }
  local count = 0
  local first = p[1]
  while first ~= 1 do
    local lo, hi = 1, first
    while lo < hi do
      p[lo], p[hi] = p[hi], p[lo]
      lo, hi = lo + 1, hi - 1
    end
    count = count + 1
    first = p[1]
  end
  return count
end

function M.max(...)
  local best = ...
  for k = 2, select("#", ...) do
    local v = select(k, ...)
    if v > best then best = v end
  end
  return best
end

function M.pack(...)
  return { n = select("#", ...), ... }
end

function M.memoize(fn)
  local cache = {}
  return function(...)
    local key = concat({ ... }, ",")
    local hit = cache[key]
    if hit == nil then
      hit = M.pack(fn(...))
      cache[key] = hit
    end
    return unpack(hit, 1, hit.n)
  end
end

return M
