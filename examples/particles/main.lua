-- A small particle simulation with the kind of code that keeps LuaJIT's
-- trace compiler out of hot loops. `ljcheck lint` predicts the sites;
-- `ljcheck run` observes them; `ljcheck verify` joins the two.
package.path = "examples/particles/?.lua;" .. package.path
local world = require("world")
local report = require("report")

local w = world.new(400)
for frame = 1, 3000 do
  world.step(w, 1 / 60)
end
io.write(report.summary(w), "\n")
