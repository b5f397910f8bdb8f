-- stream.lua: lazy streams built from coroutines: sources, transformations
-- and sinks chained with method calls, as in data-processing scripts and
-- Neovim plugins that walk buffers incrementally.
--
--   stream.range(1, 100):map(f):filter(g):take(10):collect()
local stream = {}

local create, resume, yield, status, wrap =
  coroutine.create, coroutine.resume, coroutine.yield, coroutine.status, coroutine.wrap
local setmetatable, error, select, tostring, unpack = setmetatable, error, select, tostring, unpack
local gmatch, format = string.gmatch, string.format

local Stream = {}
Stream.__index = Stream

-- gen is a function that yields values; the stream is a coroutine over it.
local function new(gen)
  return setmetatable({ gen = gen }, Stream)
end
stream.new = new

function Stream:iter()
  local co = create(self.gen)
  return function()
    if status(co) == "dead" then return nil end
    local ok, v = resume(co)
    if not ok then error(v, 0) end
    return v
  end
end

function stream.range(from, to, step)
  step = step or 1
  return new(function()
    for i = from, to, step do yield(i) end
  end)
end

function stream.lines(text)
  return new(function()
    for line in gmatch(text, "[^\n]+") do yield(line) end
  end)
end

function stream.of(list)
  return new(function()
    for i = 1, #list do yield(list[i]) end
  end)
end

function Stream:map(f)
  local src = self
  return new(function()
    for v in src:iter() do yield(f(v)) end
  end)
end

function Stream:filter(pred)
  local src = self
  return new(function()
    for v in src:iter() do
      if pred(v) then yield(v) end
    end
  end)
end

function Stream:take(n)
  local src = self
  return new(function()
    if n <= 0 then return end
    local i = 0
    for v in src:iter() do
      yield(v)
      i = i + 1
      if i >= n then return end
    end
  end)
end

-- Groups consecutive values into arrays of size n.
function Stream:batch(n)
  local src = self
  return new(function()
    local buf = {}
    for v in src:iter() do
      buf[#buf + 1] = v
      if #buf == n then
        yield(buf)
        buf = {}
      end
    end
    if #buf > 0 then yield(buf) end
  end)
end

-- Splits each string value into words.
function Stream:words()
  local src = self
  return new(function()
    for v in src:iter() do
      for w in gmatch(v, "%a+") do yield(w) end
    end
  end)
end

function Stream:zip(other)
  local a, b = self, other
  return new(function()
    local nb = b:iter()
    for v in a:iter() do
      local w = nb()
      if w == nil then return end
      yield({ v, w })
    end
  end)
end

function Stream:reduce(f, acc)
  for v in self:iter() do acc = f(acc, v) end
  return acc
end

function Stream:collect()
  local out = {}
  for v in self:iter() do out[#out + 1] = v end
  return out
end

function Stream:count()
  local n = 0
  for _ in self:iter() do n = n + 1 end
  return n
end

-- Runs a sink coroutine fed by push(), the "push" style of pipelines.
function stream.sink(f, ...)
  local args = { ... }
  local co = wrap(function(...)
    local acc = f(...)
    while true do
      local v = yield(acc)
      if v == nil then return acc end
      acc = f(acc, v, select("#", ...))
    end
  end)
  co(unpack(args))
  return co
end

function stream.describe(s)
  return format("<stream %s>", tostring(s.gen))
end

return stream
