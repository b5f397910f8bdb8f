-- A closure in an inner loop of 100 turns, entered 600 times.
local n = 0
for i = 1, 600 do
  for j = 1, 100 do
    local f = function() return 1 end -- site
    n = n + f()
  end
end
assert(n == 60000)
