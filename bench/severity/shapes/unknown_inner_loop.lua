-- A closure in a loop over a table the bytecode does not size (3 entries), inside a loop of 20,000 turns.
local items = {}
for i = 1, 3 do items[i] = i end
local n = 0
for frame = 1, 20000 do
  for _, x in ipairs(items) do
    local f = function() return x end -- site
    n = n + f()
  end
end
assert(n == 20000 * 6)
