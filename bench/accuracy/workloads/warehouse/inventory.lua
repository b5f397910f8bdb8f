-- A warehouse simulation over a small collection class with higher-order
-- methods (each, filter, map, reduce, find). Callers pass anonymous
-- functions, as code written against such a library usually does.
local M = {}

local List = {}
List.__index = List

function M.list(items)
  local l = setmetatable({ n = 0 }, List)
  for _, v in ipairs(items or {}) do l:push(v) end
  return l
end

function List:push(v)
  self.n = self.n + 1
  self[self.n] = v
  return self
end

function List:each(fn)
  for i = 1, self.n do fn(self[i], i) end
end

function List:filter(pred)
  local out = M.list()
  for i = 1, self.n do
    if pred(self[i]) then out:push(self[i]) end
  end
  return out
end

function List:map(fn)
  local out = M.list()
  for i = 1, self.n do out:push(fn(self[i])) end
  return out
end

function List:reduce(fn, acc)
  for i = 1, self.n do acc = fn(acc, self[i]) end
  return acc
end

function List:find(pred)
  for i = 1, self.n do
    if pred(self[i]) then return self[i] end
  end
  return nil
end

-- The warehouse ------------------------------------------------------------
local Warehouse = {}
Warehouse.__index = Warehouse

function M.warehouse(skus)
  local w = setmetatable({ stock = M.list(), shipped = 0, restocked = 0 }, Warehouse)
  for i = 1, skus do
    w.stock:push({ sku = i, qty = 10 + i % 7, price = 1 + i % 13, reorder = 5 })
  end
  return w
end

-- One order: a list of (sku, qty) lines. Lines that cannot be served in
-- full are dropped; the rest ship.
function Warehouse:fulfil(order)
  local stock = self.stock
  local served = order:filter(function(line)
    local item = stock:find(function(it) return it.sku == line.sku end)
    return item ~= nil and item.qty >= line.qty
  end)
  served:each(function(line)
    local item = stock[line.sku]
    item.qty = item.qty - line.qty
  end)
  self.shipped = self.shipped + served:reduce(function(acc, line) return acc + line.qty end, 0)
  return served.n
end

function Warehouse:restock()
  local low = self.stock:filter(function(item) return item.qty < item.reorder end)
  low:each(function(item)
    item.qty = item.qty + 20
    self.restocked = self.restocked + 20
  end)
  return low.n
end

function Warehouse:value()
  return self.stock:map(function(item) return item.qty * item.price end)
                   :reduce(function(a, b) return a + b end, 0)
end

return M
