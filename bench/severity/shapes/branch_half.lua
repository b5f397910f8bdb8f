-- A closure behind a branch taken every other turn.
local n = 0
for i = 1, 60000 do
  if i % 2 == 0 then
    local f = function() return 1 end -- site
    n = n + f()
  end
end
assert(n == 30000)
