-- A closure in a function called behind a branch of the loop.
local function log(x)
  local f = function() return x end -- site
  return f()
end
local n = 0
for i = 1, 60000 do
  if i % 1000 == 0 then n = n + log(1) end
end
assert(n == 60)
