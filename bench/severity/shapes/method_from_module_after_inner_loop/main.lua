-- The same method call, after an inner loop of four turns in the calling loop's body.
package.path = arg[0]:gsub("main%.lua$", "?.lua") .. ";" .. package.path
local tally = require("tally")
local t = tally.new()
local n = 0
for i = 1, 60000 do
  for j = 1, 4 do n = n + j end
  t:add(i)
end
assert(t.sum == 60000 * 60001 and n == 600000)
