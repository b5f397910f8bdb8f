-- Particles: positions, velocities, a per-frame update and a spawn step.
local M = {}

local sqrt = math.sqrt

function M.new(n)
  local w = { n = n, x = {}, y = {}, vx = {}, vy = {}, age = {}, tags = {} }
  for i = 1, n do
    w.x[i], w.y[i] = i % 20, i % 7
    w.vx[i], w.vy[i] = (i % 5) - 2, (i % 3) - 1
    w.age[i] = 0
    w.tags[i] = "p" .. i
  end
  return w
end

local function speed(vx, vy)
  return sqrt(vx * vx + vy * vy)
end

function M.step(w, dt)
  local x, y, vx, vy, age = w.x, w.y, w.vx, w.vy, w.age
  for i = 1, w.n do
    x[i] = x[i] + vx[i] * dt
    y[i] = y[i] + vy[i] * dt
    age[i] = age[i] + 1
    -- A comparator closure per particle: the trace aborts on FNEW.
    local older = function(a, b) return age[a] > age[b] end
    if older(i, 1) and speed(vx[i], vy[i]) > 10 then
      vx[i] = vx[i] * 0.5
    end
  end
  M.retag(w)
end

function M.retag(w)
  local tags = w.tags
  for i = 1, w.n do
    -- string.gsub has no recorder: the trace is stitched around the call.
    tags[i] = string.gsub(tags[i], "p", "q")
  end
end

return M
