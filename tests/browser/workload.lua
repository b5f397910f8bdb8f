local ljcheck = require("ljcheck")
local function render(n)
  local total = 0
  for i = 1, n do
    local f = function() return i end
    total = total + f()
  end
  return total
end
local function clean(s)
  local out = 0
  for i = 1, 20000 do
    out = out + #(s:gsub("a", "b"))
  end
  return out
end
for _ = 1, 40 do
  ljcheck.zone("frame")
  ljcheck.zone("render")
  render(60000)
  ljcheck.zone()
  ljcheck.zone("text")
  clean("banana")
  ljcheck.zone()
  ljcheck.zone()
end
