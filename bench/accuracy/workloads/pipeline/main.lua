-- Driver: word statistics over a generated corpus, numeric pipelines and a
-- push-style sink, all through coroutine streams.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local stream = require("stream")
local format, lower, concat = string.format, string.lower, table.concat

local SCALE = tonumber(arg and arg[1]) or 6

local words = { "Lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit",
  "sed", "do", "eiusmod", "tempor", "incididunt", "ut", "labore", "et", "dolore", "magna" }
local lines = {}
for i = 1, 2000 * SCALE do
  local line = {}
  for j = 1, 8 + i % 5 do
    line[j] = words[(i * j + j) % #words + 1]
  end
  lines[i] = concat(line, " ") .. "."
end
local text = concat(lines, "\n")

-- word frequencies
local freq = stream.lines(text):words():map(lower):reduce(function(acc, w)
  acc[w] = (acc[w] or 0) + 1
  return acc
end, {})
assert(freq.lorem and freq.lorem > 0)

-- numeric pipeline
local squares = stream.range(1, 40000 * SCALE)
  :filter(function(n) return n % 3 == 0 end)
  :map(function(n) return n * n end)
  :reduce(function(a, b) return a + b end, 0)

-- batching and zipping
local batches = stream.range(1, 30000):batch(64):count()
local pairs_sum = stream.range(1, 20000):zip(stream.range(20000, 1, -1)):reduce(function(acc, p)
  return acc + p[1] * p[2]
end, 0)

-- push-style sink
local sink = stream.sink(function(acc, v)
  if v == nil then return { n = 0, total = 0 } end
  acc.n = acc.n + 1
  acc.total = acc.total + v
  return acc
end)
local result
for i = 1, 50000 * SCALE do result = sink(i % 100) end
result = sink(nil)

local firsts = stream.of(lines):take(3):collect()
print(format("pipeline: %d distinct words, squares %.0f, %d batches, zip %.0f, sink %d/%d, %s",
  (function() local n = 0 for _ in pairs(freq) do n = n + 1 end return n end)(),
  squares, batches, pairs_sum, result.n, result.total, firsts[1]:sub(1, 11)))
