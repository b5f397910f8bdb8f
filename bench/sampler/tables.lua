-- Workload: table churn (allocation, hash and array parts, a sort with a Lua comparator): GC work.
-- scale multiplies the run time (1: about 0.45 s).
return function(scale)
  local sort = table.sort
  local acc = 0
  for round = 1, 300 * (scale or 1) do
    local items = {}
    for i = 1, 2000 do items[i] = { key = (i * 7919 + round) % 2003, name = i } end
    sort(items, function(a, b) return a.key < b.key end)
    local index = {}
    for i = 1, #items do index[items[i].key] = i end
    acc = (acc + (index[(round * 1910 + round) % 2003] or 0) + items[1].key) % 1000003
  end
  return acc
end
