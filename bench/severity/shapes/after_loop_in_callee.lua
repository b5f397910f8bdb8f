-- A closure after a loop of ten turns in a function called 60,000 times.
local function step(xs)
  local s = 0
  for i = 1, 10 do s = s + xs[i] end
  local f = function() return s end -- site
  return f()
end
local xs = {}
for i = 1, 10 do xs[i] = i end
local n = 0
for _ = 1, 60000 do n = n + step(xs) end
assert(n == 60000 * 55)
