-- A closure on every turn of a loop of 36,800 turns: fewer than blacklisting needs.
local n = 0
for i = 1, 36800 do
  local f = function() return 1 end -- site
  n = n + f()
end
assert(n == 36800)
