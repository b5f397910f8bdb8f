-- A closure on every turn of a loop of 60,000 turns: every root trace aborts there.
local n = 0
for i = 1, 60000 do
  local f = function() return 1 end -- site
  n = n + f()
end
assert(n == 60000)
