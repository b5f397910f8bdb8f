-- A closure in a function the loop calls through pcall.
local function g()
  local f = function() return 1 end -- site
  return f()
end
local n = 0
for i = 1, 60000 do
  local ok, v = pcall(g)
  n = n + v
end
assert(n == 60000)
