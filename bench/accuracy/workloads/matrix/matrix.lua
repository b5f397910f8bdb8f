-- matrix.lua: dense double matrices on the FFI: a metatype'd struct owning a
-- malloc'ed buffer, arithmetic operators, multiplication, transpose, LU
-- decomposition with partial pivoting, solve and determinant.
local ffi = require("ffi")
local C = ffi.C

ffi.cdef[[
  typedef struct { int rows, cols; double *data; } matrix_t;
  typedef struct { double x, y, z; } vec3_t;
  void *malloc(size_t size);
  void free(void *ptr);
  void *memcpy(void *dest, const void *src, size_t n);
  void *memset(void *s, int c, size_t n);
  double fabs(double x);
]]

local abs, sqrt, format, concat = math.abs, math.sqrt, string.format, table.concat
local error = error

local matrix = {}
local Matrix = {}
local mt = { __index = Matrix }

local double_size = ffi.sizeof("double")
local int_array = ffi.typeof("int[?]")

local function alloc(rows, cols)
  local data = ffi.cast("double*", C.malloc(rows * cols * double_size))
  if data == nil then error("out of memory") end
  C.memset(data, 0, rows * cols * double_size)
  return data
end

local function finalize(m)
  if m.data ~= nil then
    C.free(m.data)
    m.data = nil
  end
end

local matrix_t = ffi.metatype("matrix_t", mt)

function matrix.new(rows, cols)
  local m = matrix_t(rows, cols, alloc(rows, cols))
  return ffi.gc(m, finalize)
end

function matrix.identity(n)
  local m = matrix.new(n, n)
  for i = 0, n - 1 do m.data[i * n + i] = 1 end
  return m
end

function matrix.from(rows)
  local m = matrix.new(#rows, #rows[1])
  for i = 1, #rows do
    local row = rows[i]
    for j = 1, #row do
      m.data[(i - 1) * m.cols + (j - 1)] = row[j]
    end
  end
  return m
end

function Matrix:get(i, j) return self.data[(i - 1) * self.cols + (j - 1)] end
function Matrix:set(i, j, v) self.data[(i - 1) * self.cols + (j - 1)] = v end

function Matrix:copy()
  local m = matrix.new(self.rows, self.cols)
  C.memcpy(m.data, self.data, self.rows * self.cols * double_size)
  return m
end

function Matrix:transpose()
  local r, c = self.rows, self.cols
  local t = matrix.new(c, r)
  local src, dst = self.data, t.data
  for i = 0, r - 1 do
    for j = 0, c - 1 do
      dst[j * r + i] = src[i * c + j]
    end
  end
  return t
end

function Matrix:mul(other)
  if self.cols ~= other.rows then
    error(format("dimension mismatch: %dx%d * %dx%d", self.rows, self.cols, other.rows, other.cols))
  end
  local n, m, p = self.rows, self.cols, other.cols
  local out = matrix.new(n, p)
  local a, b, c = self.data, other.data, out.data
  for i = 0, n - 1 do
    for k = 0, m - 1 do
      local aik = a[i * m + k]
      if aik ~= 0 then
        for j = 0, p - 1 do
          c[i * p + j] = c[i * p + j] + aik * b[k * p + j]
        end
      end
    end
  end
  return out
end

function Matrix:add(other, scale)
  local out = self:copy()
  local s = scale or 1
  local a, b = out.data, other.data
  for i = 0, self.rows * self.cols - 1 do
    a[i] = a[i] + s * b[i]
  end
  return out
end

mt.__mul = function(a, b) return a:mul(b) end
mt.__add = function(a, b) return a:add(b) end
mt.__sub = function(a, b) return a:add(b, -1) end

-- In-place LU decomposition with partial pivoting; returns the pivot array
-- and the permutation sign, or nil for a singular matrix.
function Matrix:lu()
  local n = self.rows
  local a = self.data
  local piv = int_array(n)
  local sign = 1
  for i = 0, n - 1 do piv[i] = i end
  for k = 0, n - 1 do
    local p, best = k, C.fabs(a[k * n + k])
    for i = k + 1, n - 1 do
      local v = abs(a[i * n + k])
      if v > best then p, best = i, v end
    end
    if best < 1e-12 then return nil end
    if p ~= k then
      for j = 0, n - 1 do
        a[k * n + j], a[p * n + j] = a[p * n + j], a[k * n + j]
      end
      piv[k], piv[p] = piv[p], piv[k]
      sign = -sign
    end
    local pivot = a[k * n + k]
    for i = k + 1, n - 1 do
      local f = a[i * n + k] / pivot
      a[i * n + k] = f
      for j = k + 1, n - 1 do
        a[i * n + j] = a[i * n + j] - f * a[k * n + j]
      end
    end
  end
  return piv, sign
end

function Matrix:det()
  local lu = self:copy()
  local piv, sign = lu:lu()
  if not piv then return 0 end
  local d = sign
  for i = 0, self.rows - 1 do d = d * lu.data[i * self.rows + i] end
  return d
end

-- Solves A x = b for a vector b given as a Lua array.
function Matrix:solve(b)
  local n = self.rows
  local lu = self:copy()
  local piv = lu:lu()
  if not piv then return nil, "singular matrix" end
  local a = lu.data
  local x = ffi.new("double[?]", n)
  for i = 0, n - 1 do x[i] = b[piv[i] + 1] end
  for i = 0, n - 1 do
    for j = 0, i - 1 do x[i] = x[i] - a[i * n + j] * x[j] end
  end
  for i = n - 1, 0, -1 do
    for j = i + 1, n - 1 do x[i] = x[i] - a[i * n + j] * x[j] end
    x[i] = x[i] / a[i * n + i]
  end
  local out = {}
  for i = 0, n - 1 do out[i + 1] = x[i] end
  return out
end

function Matrix:norm()
  local s = 0
  for i = 0, self.rows * self.cols - 1 do s = s + self.data[i] ^ 2 end
  return sqrt(s)
end

mt.__tostring = function(m)
  local lines = {}
  for i = 1, m.rows do
    local row = {}
    for j = 1, m.cols do row[j] = format("%8.3f", m:get(i, j)) end
    lines[i] = concat(row, " ")
  end
  return concat(lines, "\n")
end

-- 3D helpers used by the transform code: vectors as structs by value.
local vec3 = ffi.typeof("vec3_t")
matrix.vec3 = vec3

function matrix.transform(m, v)
  local d = m.data
  return vec3(d[0] * v.x + d[1] * v.y + d[2] * v.z,
              d[3] * v.x + d[4] * v.y + d[5] * v.z,
              d[6] * v.x + d[7] * v.y + d[8] * v.z)
end

function matrix.cross(a, b)
  return ffi.new("vec3_t", a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
end

return matrix
