-- calc.lua: a tiny expression language: a Pratt parser to an AST, a
-- tree-walking evaluator with lexical scopes, user functions and recursion,
-- and builtins. Programs look like
--   let fib = fn(n) if n < 2 then n else fib(n - 1) + fib(n - 2);
--   print(fib(20))
local calc = {}

local find, sub, match, format = string.find, string.sub, string.match, string.format
local tonumber, error, setmetatable, type, pcall, select, unpack = tonumber, error, setmetatable,
  type, pcall, select, unpack
local floor, sqrt = math.floor, math.sqrt

-- Lexer ---------------------------------------------------------------------
local function tokenize(src)
  local toks, n, pos = {}, 0, 1
  while true do
    local s, e = find(src, "^%s+", pos)
    if s then pos = e + 1 end
    if pos > #src then break end
    local c = sub(src, pos, pos)
    local tok
    if find(c, "%d") then
      local num = match(src, "^%d+%.?%d*", pos)
      tok = { t = "num", v = tonumber(num) }
      pos = pos + #num
    elseif find(c, "[%a_]") then
      local id = match(src, "^[%w_]+", pos)
      tok = { t = "id", v = id }
      pos = pos + #id
    else
      local two = sub(src, pos, pos + 1)
      if two == "==" or two == "<=" or two == ">=" or two == "!=" then
        tok = { t = "op", v = two }
        pos = pos + 2
      else
        tok = { t = "op", v = c }
        pos = pos + 1
      end
    end
    n = n + 1
    toks[n] = tok
  end
  toks[n + 1] = { t = "eof" }
  return toks
end

-- Parser ----------------------------------------------------------------------
local BINARY = {
  ["=="] = 1, ["!="] = 1, ["<"] = 2, [">"] = 2, ["<="] = 2, [">="] = 2,
  ["+"] = 3, ["-"] = 3, ["*"] = 4, ["/"] = 4, ["%"] = 4,
}
local KEYWORDS = { let = true, fn = true, ["if"] = true, ["then"] = true, ["else"] = true }

local Parser = {}
Parser.__index = Parser

function Parser:peek() return self.toks[self.i] end
function Parser:next()
  local t = self.toks[self.i]
  self.i = self.i + 1
  return t
end
function Parser:expect(v)
  local t = self:next()
  if t.v ~= v then error(format("expected '%s' near '%s'", v, tostring(t.v))) end
  return t
end

function Parser:primary()
  local t = self:next()
  if t.t == "num" then return { k = "num", v = t.v } end
  if t.v == "(" then
    local e = self:expr(0)
    self:expect(")")
    return e
  end
  if t.v == "-" then return { k = "neg", e = self:primary() } end
  if t.v == "fn" then
    self:expect("(")
    local params = {}
    while self:peek().v ~= ")" do
      params[#params + 1] = self:next().v
      if self:peek().v == "," then self:next() end
    end
    self:expect(")")
    return { k = "fn", params = params, body = self:expr(0) }
  end
  if t.v == "if" then
    local c = self:expr(0)
    self:expect("then")
    local a = self:expr(0)
    self:expect("else")
    return { k = "if", c = c, a = a, b = self:expr(0) }
  end
  if t.t == "id" and not KEYWORDS[t.v] then
    local node = { k = "var", name = t.v }
    while self:peek().v == "(" do
      self:next()
      local args = {}
      while self:peek().v ~= ")" do
        args[#args + 1] = self:expr(0)
        if self:peek().v == "," then self:next() end
      end
      self:expect(")")
      node = { k = "call", f = node, args = args }
    end
    return node
  end
  error("unexpected token '" .. tostring(t.v) .. "'")
end

function Parser:expr(minprec)
  local left = self:primary()
  while true do
    local op = self:peek().v
    local prec = BINARY[op]
    if not prec or prec <= minprec then return left end
    self:next()
    left = { k = "bin", op = op, l = left, r = self:expr(prec) }
  end
end

function Parser:statement()
  if self:peek().v == "let" then
    self:next()
    local name = self:next().v
    self:expect("=")
    return { k = "let", name = name, e = self:expr(0) }
  end
  return { k = "expr", e = self:expr(0) }
end

function calc.parse(src)
  local p = setmetatable({ toks = tokenize(src), i = 1 }, Parser)
  local stmts = {}
  while p:peek().t ~= "eof" do
    stmts[#stmts + 1] = p:statement()
    if p:peek().v == ";" then p:next() end
  end
  return stmts
end

-- Evaluator -------------------------------------------------------------------
local function scope(parent)
  return setmetatable({}, { __index = parent })
end

local eval

local ARITH = {
  ["+"] = function(a, b) return a + b end,
  ["-"] = function(a, b) return a - b end,
  ["*"] = function(a, b) return a * b end,
  ["/"] = function(a, b) return a / b end,
  ["%"] = function(a, b) return a % b end,
  ["<"] = function(a, b) return a < b and 1 or 0 end,
  [">"] = function(a, b) return a > b and 1 or 0 end,
  ["<="] = function(a, b) return a <= b and 1 or 0 end,
  [">="] = function(a, b) return a >= b and 1 or 0 end,
  ["=="] = function(a, b) return a == b and 1 or 0 end,
  ["!="] = function(a, b) return a ~= b and 1 or 0 end,
}

local function apply(f, args)
  if type(f) == "function" then return f(unpack(args)) end
  if type(f) ~= "table" or not f.body then error("calling a non-function") end
  local env = scope(f.env)
  for i = 1, #f.params do env[f.params[i]] = args[i] end
  return eval(f.body, env)
end

eval = function(node, env)
  local k = node.k
  if k == "num" then return node.v
  elseif k == "var" then
    local v = env[node.name]
    if v == nil then error("undefined variable '" .. node.name .. "'") end
    return v
  elseif k == "bin" then
    return ARITH[node.op](eval(node.l, env), eval(node.r, env))
  elseif k == "neg" then return -eval(node.e, env)
  elseif k == "if" then
    if eval(node.c, env) ~= 0 then return eval(node.a, env) end
    return eval(node.b, env)
  elseif k == "fn" then
    return { params = node.params, body = node.body, env = env }
  elseif k == "call" then
    local f = eval(node.f, env)
    local args = {}
    for i = 1, #node.args do args[i] = eval(node.args[i], env) end
    return apply(f, args)
  end
  error("bad node " .. tostring(k))
end

calc.globals = {
  sqrt = sqrt, floor = floor,
  max = function(...)
    local m = ...
    for i = 2, select("#", ...) do
      local v = select(i, ...)
      if v > m then m = v end
    end
    return m
  end,
  print = function(...) calc.output[#calc.output + 1] = format("%s", ...) return 0 end,
}
calc.output = {}

function calc.run(src, env)
  env = env or scope(calc.globals)
  local result
  for _, stmt in ipairs(calc.parse(src)) do
    if stmt.k == "let" then
      env[stmt.name] = eval(stmt.e, env)
    else
      result = eval(stmt.e, env)
    end
  end
  return result, env
end

-- Runs src and returns ok, result or false, message, like a REPL does.
function calc.try(src, env)
  local ok, res = pcall(calc.run, src, env)
  if not ok then return false, (match(res, ":%d+: (.*)$") or res) end
  return true, res
end

return calc
