-- Driver: integrates the five-body system for a fixed number of steps and
-- checks that energy is conserved to within the integrator's error.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local nbody = require("bodies")

local bodies = nbody.system()
local n = #bodies
nbody.offsetMomentum(bodies)
local before = nbody.energy(bodies, n)
for _ = 1, 200000 do
  nbody.advance(bodies, n, 0.01)
end
local after = nbody.energy(bodies, n)
assert(math.abs(before - -0.169075164) < 1e-8, before)
assert(math.abs(after - before) < 1e-4, after)
print(("nbody: energy %.9f -> %.9f"):format(before, after))
