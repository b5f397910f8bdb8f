-- A closure in a loop over a parameter that the one call passes as 60,000.
local function fill(t, count)
  for i = 1, count do
    t[i % 7 + 1] = function() return 1 end -- site
  end
  return t
end
assert(#fill({}, 60000) == 7)
