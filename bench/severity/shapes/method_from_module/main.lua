-- A closure in a method of an object another module's function returns, called every turn.
package.path = arg[0]:gsub("main%.lua$", "?.lua") .. ";" .. package.path
local tally = require("tally")
local t = tally.new()
for i = 1, 60000 do t:add(i) end
assert(t.sum == 60000 * 60001)
