-- Workload: n-body integration (float arithmetic over small tables), compiled.
-- scale multiplies the run time (1: about 0.45 s).
return function(scale)
  local sqrt = math.sqrt
  local bodies = {}
  for i = 1, 5 do
    bodies[i] = { x = i, y = i * 0.5, z = -i, vx = 0, vy = 0, vz = 0, mass = 1 + i * 0.1 }
  end
  for _ = 1, 2000000 * (scale or 1) do
    for i = 1, #bodies do
      local bi = bodies[i]
      for j = i + 1, #bodies do
        local bj = bodies[j]
        local dx, dy, dz = bi.x - bj.x, bi.y - bj.y, bi.z - bj.z
        local d2 = dx * dx + dy * dy + dz * dz + 0.01
        local mag = 0.001 / (d2 * sqrt(d2))
        bi.vx = bi.vx - dx * bj.mass * mag
        bj.vx = bj.vx + dx * bi.mass * mag
        bi.vy = bi.vy - dy * bj.mass * mag
        bj.vy = bj.vy + dy * bi.mass * mag
        bi.vz = bi.vz - dz * bj.mass * mag
        bj.vz = bj.vz + dz * bi.mass * mag
      end
    end
    for i = 1, #bodies do
      local b = bodies[i]
      b.x, b.y, b.z = b.x + 0.001 * b.vx, b.y + 0.001 * b.vy, b.z + 0.001 * b.vz
    end
  end
  return math.floor(bodies[1].x * 1000)
end
