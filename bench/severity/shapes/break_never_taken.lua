-- A loop with a break that never comes: lint cannot tell it from one that leaves at once.
local n = 0
for i = 1, 60000 do
  if n < 0 then break end
  local f = function() return 1 end -- site
  n = n + f()
end
assert(n == 60000)
