-- Driver: pancake flips over every permutation of 8 elements (the maximum
-- and a checksum), then memoized binomials and variadic maxima.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local perms = require("perms")

local N = 8
local maxFlips, checksum, count = 0, 0, 0
perms.heaps(N, function(p)
  local f = perms.flips(p, N)
  count = count + 1
  if f > maxFlips then maxFlips = f end
  checksum = checksum + (count % 2 == 0 and f or -f)
end)
assert(count == 40320)
assert(maxFlips == 22, maxFlips)

local binomial
binomial = perms.memoize(function(n, k)
  if k == 0 or k == n then return 1 end
  return binomial(n - 1, k - 1) + binomial(n - 1, k)
end)
local sum = 0
for n = 1, 30 do
  for k = 0, n do sum = sum + binomial(n, k) end
end
assert(sum == 2 ^ 31 - 2)

local best = 0
for i = 1, 50000 do
  best = best + perms.max(i % 7, i % 11, i % 13, 3)
end
local packed = perms.pack(1, nil, 3)
assert(packed.n == 3)
print(("permute: %d permutations, max flips %d, checksum %d, %d"):format(count, maxFlips, checksum, best))
