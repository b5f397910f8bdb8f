-- Driver: runs small programs in the calc language: recursion, closures,
-- higher-order functions, and a REPL loop over many short inputs.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local calc = require("calc")
local format = string.format

local N = tonumber(arg and arg[1]) or 24

local program = [[
let fib = fn(n) if n < 2 then n else fib(n - 1) + fib(n - 2);
let compose = fn(f, g) fn(x) f(g(x));
let inc = fn(x) x + 1;
let sq = fn(x) x * x;
let sum = fn(n, acc) if n == 0 then acc else sum(n - 1, acc + compose(sq, inc)(n));
let gcd = fn(a, b) if b == 0 then a else gcd(b, a % b);
print(fib(N));
max(fib(N), sum(300, 0), gcd(1071, 462), sqrt(2))
]]

local env = setmetatable({ N = N }, { __index = calc.globals })
local result = calc.run(program, env)
assert(result > 0)

-- A REPL session: many short lines, some with errors.
local ok_count, errors = 0, 0
for i = 1, 4000 do
  local line
  if i % 50 == 0 then
    line = format("undefined_%d + 1", i)
  elseif i % 3 == 0 then
    line = format("let x%d = %d * (%d + 2) - %d / 4", i % 10, i, i % 7, i)
  else
    line = format("max(%d, %d %% 17, floor(sqrt(%d)))", i, i * 31, i * i)
  end
  local ok = calc.try(line, env)
  if ok then ok_count = ok_count + 1 else errors = errors + 1 end
end

print(format("interp: result %.3f, %s, repl %d ok / %d errors", result, calc.output[1], ok_count, errors))
