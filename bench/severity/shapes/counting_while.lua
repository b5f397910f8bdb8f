-- A closure in a while loop that counts to 60,000.
local n, i = 0, 1
while i <= 60000 do
  local f = function() return 1 end -- site
  n = n + f()
  i = i + 1
end
assert(n == 60000)
