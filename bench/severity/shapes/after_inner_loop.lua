-- A closure after an inner loop of four turns in the same loop body.
local n = 0
for i = 1, 60000 do
  for j = 1, 4 do n = n + j end
  local f = function() return 1 end -- site
  n = n + f()
end
assert(n == 60000 * 11)
