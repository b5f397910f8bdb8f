-- Driver: matrix products, linear solves and a batch of 3D transforms, the
-- kind of numeric kernel a physics or graphics tool runs through the FFI.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local matrix = require("matrix")
local random, format, abs = math.random, string.format, math.abs

local SIZE = tonumber(arg and arg[1]) or 200
math.randomseed(99)

local function random_matrix(n)
  local m = matrix.new(n, n)
  for i = 1, n do
    for j = 1, n do
      m:set(i, j, random() - 0.5 + (i == j and n or 0))
    end
  end
  return m
end

local a, b = random_matrix(SIZE), random_matrix(SIZE)
local acc = matrix.identity(SIZE)
for r = 1, 10 do
  acc = (a * b + acc):transpose()
  acc = acc:add(matrix.identity(SIZE), -0.5)
end

local residual = 0
for r = 1, 400 do
  local m = random_matrix(40)
  local rhs = {}
  for i = 1, 40 do rhs[i] = random() end
  local x = assert(m:solve(rhs))
  for i = 1, 40 do
    local s = 0
    for j = 1, 40 do s = s + m:get(i, j) * x[j] end
    residual = residual + abs(s - rhs[i])
  end
end
assert(residual < 1e-6)

local rot = matrix.from({ { 0, -1, 0 }, { 1, 0, 0 }, { 0, 0, 1 } })
local v = matrix.vec3(1, 2, 3)
local sum = 0
for i = 1, 2000000 do
  v = matrix.transform(rot, v)
  local c = matrix.cross(v, matrix.vec3(0, 0, 1))
  sum = sum + c.x + c.y
end

print(format("matrix: norm %.3f, det %.3e, residual %.2e, sum %.1f",
  acc:norm(), random_matrix(8):det(), residual, sum))
