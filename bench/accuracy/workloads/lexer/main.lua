-- Driver: tokenizes a generated Lua code base (and this file) repeatedly,
-- as a linter or a syntax highlighter over a project would.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local lexer = require("lexer")
local format, rep = string.format, string.rep

local PASSES = tonumber(arg and arg[1]) or 20

local function generate(n)
  local parts = {}
  for i = 1, n do
    parts[#parts + 1] = format([=[
-- function number %d
local function handler_%d(req, opts)
  local count, total = 0, %d.5
  for i = 1, #req.items do
    local item = req.items[i]
    if item.kind == "widget" and item.price >= 0x%x then
      total = total + item.price * 1.5e-2
      count = count + 1
    elseif item.name ~= 'gadget\t%d' then
      total = total - 1
    end
  end
  --[==[ a long
  comment ]==]
  return { count = count, total = total, label = [[handler %d]] .. "..." }
end
]=], i, i, i, i * 17, i, i)
  end
  return table.concat(parts, "\n")
end

local src = generate(150)
local self = assert(io.open(arg[0])):read("*a")

local ntokens, names = 0, 0
for p = 1, PASSES do
  local toks = lexer.tokens(src)
  ntokens = ntokens + #toks
  local h = lexer.histogram(self)
  names = names + (h.name or 0)
end

local mini = lexer.minify(src)
assert(#mini < #src)
assert(lexer.tokens("local x = 1")[1].value == "local")
print(format("lexer: %d tokens, %d names, minified %d -> %d bytes %s", ntokens, names, #src, #mini, rep("=", 3)))
