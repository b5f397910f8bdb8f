-- Driver: a day of orders against a 40-SKU warehouse, restocking every ten
-- orders; checks that what shipped plus what is left equals what came in.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local inventory = require("inventory")

local SKUS = 40
local w = inventory.warehouse(SKUS)
local start = w.stock:reduce(function(acc, item) return acc + item.qty end, 0)

local seed = 12345
local function rand(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n + 1
end

local served = 0
for order = 1, 60000 do
  local lines = inventory.list()
  for _ = 1, 3 do lines:push({ sku = rand(SKUS), qty = rand(4) }) end
  served = served + w:fulfil(lines)
  if order % 10 == 0 then w:restock() end
end

local left = w.stock:reduce(function(acc, item) return acc + item.qty end, 0)
assert(start + w.restocked == left + w.shipped, "stock does not add up")
assert(served > 0 and w:value() > 0)
print(("warehouse: %d lines served, %d units shipped, %d restocked"):format(served, w.shipped, w.restocked))
