// The register-value tracker on small snippets: what the callee (or an
// argument) of the call on a given line resolves to. Each case compiles the
// snippet with the embedded LuaJIT and reads the dump, as the analyzer does.
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "test_values_support.h"

using namespace ljcheck;
using flow::Value;
using Kind = flow::Value::Kind;

using ljcheck::testing::requireLib;
using ljcheck::testing::Snippet;

TEST_CASE("a library function through a global", "[values]") {
  Snippet s("local x = string.gsub('a', 'a', 'b')\n");
  requireLib(s.callee(1), "string.gsub");
}

TEST_CASE("a library function through a local alias", "[values]") {
  Snippet s(
      "local gsub = string.gsub\n"
      "local r = gsub('a', 'a', 'b')\n");
  requireLib(s.callee(2), "string.gsub");
}

TEST_CASE("an alias through two upvalue levels", "[values]") {
  Snippet s(
      "local gsub = string.gsub\n"
      "local function outer()\n"
      "  local function inner(x)\n"
      "    local r = gsub(x, 'a', 'b')\n"
      "    return r\n"
      "  end\n"
      "  return inner\n"
      "end\n"
      "return outer\n");
  requireLib(s.callee(4), "string.gsub");
}

TEST_CASE("shadowed locals resolve to the innermost declaration", "[values]") {
  Snippet s(
      "local f = string.gsub\n"
      "do\n"
      "  local f = string.find\n"
      "  local a = f('abc', 'b')\n"
      "end\n"
      "local b = f('abc', 'b', 'c')\n"
      "local function g(f)\n"
      "  local c = f('abc')\n"
      "  return c\n"
      "end\n"
      "return g\n");
  requireLib(s.callee(4), "string.find");
  requireLib(s.callee(6), "string.gsub");
  REQUIRE_FALSE(s.callee(8).known());  // the parameter shadows the outer alias
}

TEST_CASE("a reassigned alias does not resolve", "[values]") {
  SECTION("on one branch") {
    Snippet s(
        "local f = string.gsub\n"
        "if os.getenv('X') then f = string.find end\n"
        "local r = f('abc', 'b', 'c')\n");
    REQUIRE_FALSE(s.callee(3).known());
  }
  SECTION("later in a loop body") {
    Snippet s(
        "local f = string.gsub\n"
        "for i = 1, 3 do\n"
        "  local r = f('abc', 'b', 'c')\n"
        "  f = string.find\n"
        "end\n");
    REQUIRE_FALSE(s.callee(3).known());
  }
  SECTION("by a closure that assigns the upvalue") {
    Snippet s(
        "local f = string.gsub\n"
        "local function set() f = print end\n"
        "set()\n"
        "local r = f('abc', 'b', 'c')\n");
    REQUIRE_FALSE(s.callee(4).known());
  }
  SECTION("as a mutable upvalue inside a function") {
    Snippet s(
        "local f = string.gsub\n"
        "local function use(x)\n"
        "  local r = f(x, 'b', 'c')\n"
        "  return r\n"
        "end\n"
        "f = string.find\n"
        "return use\n");
    REQUIRE_FALSE(s.callee(3).known());
  }
}

TEST_CASE("simple types of locals", "[values]") {
  Snippet s(
      "local n, str, t, z = 5, 'x', {}, nil\n"
      "local u\n"
      "local r = print(n, str, t, z, u)\n"
      "for i = 1, 3 do\n"
      "  local m = print(i, #str, i * 2, n + 1, str .. i)\n"
      "end\n"
      "local d = {1, 2, x = 3}\n"
      "local q = print(d)\n");
  Value n = s.argument(3, 0);
  REQUIRE(n.isConstantNumber());
  REQUIRE(n.integer == 5);
  REQUIRE(s.argument(3, 1).isConstantString());
  REQUIRE(s.argument(3, 1).text() == "x");
  REQUIRE(s.argument(3, 2).is(Kind::Table));
  REQUIRE(s.argument(3, 3).is(Kind::Nil));
  REQUIRE(s.argument(3, 4).is(Kind::Nil));
  Value loopVar = s.argument(5, 0);
  REQUIRE(loopVar.is(Kind::Number));
  REQUIRE_FALSE(loopVar.constant);
  REQUIRE(s.argument(5, 1).is(Kind::Number));  // #str
  REQUIRE(s.argument(5, 2).is(Kind::Number));  // i * 2
  REQUIRE(s.argument(5, 3).is(Kind::Number));  // n + 1
  REQUIRE(s.argument(5, 4).is(Kind::String));  // str .. i
  REQUIRE(s.argument(8, 0).is(Kind::Table));   // TDUP
}

TEST_CASE("values of one type from two branches keep the type, not the constant", "[values]") {
  Snippet s(
      "local n = 1\n"
      "if os.getenv('X') then n = 2 end\n"
      "local r = print(n)\n");
  Value n = s.argument(3, 0);
  REQUIRE(n.is(Kind::Number));
  REQUIRE_FALSE(n.constant);
}

TEST_CASE("method calls on values known to be strings", "[values]") {
  Snippet s(
      "local a = string.rep('ab', 3)\n"
      "local b = a:upper()\n"
      "local c = ('%d'):format(7)\n"
      "local d = tostring(b):lower()\n"
      "local e = ('x' .. 1):rep(2)\n"
      "local f = b:sub(1, 2):reverse()\n");
  requireLib(s.callee(2), "string.upper");
  requireLib(s.callee(3), "string.format");
  REQUIRE(s.argument(3, 0).isConstantString());
  requireLib(s.callee(4), "string.lower");
  requireLib(s.callee(5), "string.rep");
  requireLib(s.callee(6), "string.reverse");
}

TEST_CASE("FFI namespaces, symbols and ctypes", "[values]") {
  Snippet s(
      "local ffi = require('ffi')\n"
      "local C = ffi.C\n"
      "local lib = ffi.load('z')\n"
      "local a = C.abs(-1)\n"
      "local b = lib.compressBound(10)\n"
      "local c = ffi.C.abs(-2)\n"
      "local T = ffi.typeof('int[?]')\n"
      "local d = T(4)\n"
      "local e = ffi.new('int[3]')\n");
  Value abs = s.callee(4);
  REQUIRE(abs.is(Kind::FfiSymbol));
  REQUIRE(abs.name == "abs");
  REQUIRE(s.callee(5).is(Kind::FfiSymbol));
  REQUIRE(s.callee(5).name == "compressBound");
  REQUIRE(s.callee(6).is(Kind::FfiSymbol));
  REQUIRE(s.callee(8).is(Kind::CType));
  REQUIRE(s.callee(8).name == "int[?]");
  requireLib(s.callee(9), "ffi.new");
}

TEST_CASE("a local function that calls itself", "[values]") {
  Snippet s(
      "local function fib(n)\n"
      "  if n < 2 then return n end\n"
      "  local a = fib(n - 1)\n"
      "  return a + fib(n - 2)\n"
      "end\n"
      "return fib(10)\n");
  Value self = s.callee(3);
  REQUIRE(self.is(Kind::LuaFunction));
  REQUIRE(self.proto == 0);  // the only child prototype
}

TEST_CASE("what the file shows about a table's metatable", "[values]") {
  using M = flow::ValueMap::Metatable;
  auto metatableAt = [](const std::string& source, int line) {
    Snippet s(source);
    return s.values->metatableOf(s.argument(line, 0));
  };
  REQUIRE(metatableAt("local t = {}\nlocal s = tostring(t)\n", 2) == M::None);
  REQUIRE(metatableAt("local t = {}\nsetmetatable(t, {})\nlocal s = tostring(t)\n", 3) == M::Maybe);
  REQUIRE(metatableAt("local t = {}\nlocal g = os.getenv\ng(t)\nlocal s = tostring(t)\n", 4) == M::Unseen);
  REQUIRE(metatableAt("local function mk(o) return setmetatable(o, {}) end\nlocal t = {}\nmk(t)\n"
                      "local s = tostring(t)\n",
                      4) == M::Maybe);
}

TEST_CASE("a forward-declared local function resolves in the closures that call it", "[values]") {
  Snippet s(
      "local walk\n"
      "local function each(t)\n"
      "  local r = walk(t)\n"
      "  return r\n"
      "end\n"
      "walk = function(t) return each(t) end\n"
      "local x = walk({})\n");
  Value walk = s.callee(3);
  REQUIRE(walk.is(Kind::LuaFunction));
  REQUIRE(s.callee(7).is(Kind::LuaFunction));
  REQUIRE(s.callee(7).proto == walk.proto);
  SECTION("not when it is assigned twice") {
    Snippet twice(
        "local walk\n"
        "local function each(t)\n"
        "  local r = walk(t)\n"
        "  return r\n"
        "end\n"
        "walk = function(t) return each(t) end\n"
        "walk = print\n");
    REQUIRE_FALSE(twice.callee(3).known());
  }
}

TEST_CASE("constant-key fields of a module table", "[values]") {
  Snippet s(
      "local M = {}\n"
      "function M.helper(x) return x end\n"
      "M.gsub = string.gsub\n"
      "function M.run(x)\n"
      "  local a = M.helper(x)\n"
      "  local b = M.gsub(a, 'a', 'b')\n"
      "  return b\n"
      "end\n"
      "return M\n");
  REQUIRE(s.callee(5).is(Kind::LuaFunction));
  requireLib(s.callee(6), "string.gsub");
  SECTION("not when the table gets stores with unnamed keys") {
    Snippet dynamic(
        "local M = {}\n"
        "function M.helper(x) return x end\n"
        "local name = os.getenv('N')\n"
        "M[name] = print\n"
        "local a = M.helper(1)\n");
    REQUIRE_FALSE(dynamic.callee(5).known());
  }
}

TEST_CASE("`a or b` of library functions is the side that gets called", "[values]") {
  // On LuaJIT 2.1 table.unpack and math.tointeger are nil: the other side
  // is called. A library function on the left is never nil: it is called.
  Snippet s(
      "local unpack = unpack or table.unpack\n"
      "local tunpack = table.unpack or unpack\n"
      "local compile = rawget(_G, 'loadstring') or load\n"
      "local u = unpack\n"
      "local copied = u or print\n"  // ISTC: the copy on the truthy edge
      "local a = unpack({})\n"
      "local b = tunpack({})\n"
      "local c = (loadstring or load)('return 1')\n"
      "local d = compile('return 1')\n"
      "local e = (math.tointeger or math.floor)(1.5)\n"
      "local f = copied({})\n"
      "local g = (rawget(table, 'unpack') or rawget(_G, 'unpack'))({})\n");
  requireLib(s.callee(6), "unpack");
  requireLib(s.callee(7), "unpack");
  requireLib(s.callee(8), "loadstring");
  requireLib(s.callee(9), "loadstring");
  requireLib(s.callee(10), "math.floor");
  requireLib(s.callee(11), "unpack");
  requireLib(s.callee(12), "unpack");
  SECTION("not when a side is unknown or two different functions meet") {
    Snippet unknown(
        "local pick = os.getenv('X') or print\n"
        "local named = rawget(_G, 'nosuch') or print\n"
        "local either\n"
        "if os.getenv('Y') then either = string.gsub else either = string.find end\n"
        "local member = table.unpack\n"
        "local a = pick('a')\n"
        "local b = named('a')\n"
        "local c = either('a', 'a', 'b')\n"
        "local d = member({})\n");
    REQUIRE_FALSE(unknown.callee(6).known());
    REQUIRE_FALSE(unknown.callee(7).known());
    REQUIRE_FALSE(unknown.callee(8).known());
    REQUIRE_FALSE(unknown.callee(9).known());  // a missing member alone is never called
  }
}

TEST_CASE("a concatenation with a string literal is a string that keeps the literal's text", "[values]") {
  Snippet s(
      "local function f(sep, x)\n"
      "  local r = print('[' .. sep .. '\\n]', x .. 'ab', x .. sep)\n"
      "end\n"
      "return f\n");
  Value pattern = s.argument(2, 0);
  REQUIRE(pattern.is(Kind::String));
  REQUIRE_FALSE(pattern.constant);
  REQUIRE(pattern.text() == "[\n]");
  REQUIRE(s.argument(2, 1).is(Kind::String));
  REQUIRE(s.argument(2, 1).text() == "ab");
  REQUIRE_FALSE(s.argument(2, 2).known());  // two unknown pieces: a __concat could return anything
}

TEST_CASE("builtin aliases resolve as the builtins, under the builtins' names", "[values][std]") {
  static const BuiltinAliases aliases{{"str", "string"}, {"fmt", "string.format"}, {"table.unpack", "unpack"},
                                      {"string", "table"}, {"nope", "no.such.builtin"}};
  const std::string source = "local g = str.gsub\n"
                             "g('a', 'a', 'b')\n"
                             "fmt('%d', 1)\n"
                             "table.unpack({})\n"
                             "string.rep('a', 2)\n"
                             "nope()\n";
  Snippet with(source, &aliases);
  requireLib(with.callee(2), "string.gsub");
  requireLib(with.callee(3), "string.format");
  requireLib(with.callee(4), "unpack");
  requireLib(with.callee(5), "string.rep");  // a builtin's own name is never redefined
  CHECK(with.callee(6).is(Kind::Global));   // an alias of no builtin is left alone
  Snippet without(source);
  CHECK(without.callee(2).kind == Kind::Unknown);
  CHECK_FALSE(without.callee(3).is(Kind::LibFunction));
}

TEST_CASE("a file from io.open has the io.method functions as its methods", "[values]") {
  Snippet s(
      "local f = io.open('x', 'r')\n"
      "local data = f:read('*a')\n"
      "f:close()\n"
      "local p = io.popen('ls')\n"
      "p:lines()\n");
  requireLib(s.callee(2), "io.method.read");
  requireLib(s.callee(3), "io.method.close");
  requireLib(s.callee(5), "io.method.lines");
}

TEST_CASE("assert returns its first argument: a file from assert(io.open(...)) keeps its methods", "[values]") {
  Snippet s(
      "local f = assert(io.open('x', 'r'))\n"
      "local data = f:read('*a')\n"
      "f:close()\n"
      "local g = assert(tostring)\n"
      "g(1)\n");
  requireLib(s.callee(2), "io.method.read");
  requireLib(s.callee(3), "io.method.close");
  requireLib(s.callee(5), "tostring");
}

TEST_CASE("strings chosen between two literals keep the text both begin with", "[values]") {
  Snippet s(
      "local p\n"
      "if x then p = '^%s+$' else p = '^%s+\\n' end\n"
      "print(p)\n");
  Value v = s.argument(3, 0);
  REQUIRE(v.is(Kind::String));
  REQUIRE_FALSE(v.constant);
  REQUIRE(v.text() == "^%s+");
}

TEST_CASE("a type() test narrows a local of unknown type where it holds", "[values][types]") {
  Snippet s(
      "local function f(v, w, n)\n"
      "  if type(v) == 'string' then print(v) else print(v) end\n"  // 2: string, then unknown
      "  if type(w) ~= 'number' then return end\n"
      "  print(w)\n"                                                // 4: a number after the guard
      "  local kind = type(n)\n"
      "  if kind == 'table' then print(n)\n"                        // 6: tables are not narrowed
      "  elseif kind == 'boolean' then print(n)\n"                  // 7: a boolean down the chain
      "  end\n"
      "end\n");
  CHECK(s.atCall(2, 1).kind == Kind::Unknown);  // the last call on the line: the else branch
  Value thenBranch;
  for (int pc = 1; pc <= s.chunk.prototypes[0].size(); ++pc) {
    const auto& ins = s.chunk.prototypes[0].at(pc);
    if (flow::isCall(ins.op) && ins.line == 2 && ins.b == 1) {  // the first print, in the then branch
      thenBranch = s.values->at(0, pc, flow::argumentSlot(s.chunk, ins, 0));
      break;
    }
  }
  CHECK(thenBranch.is(Kind::String));
  CHECK(s.argument(4, 0).is(Kind::Number));
  CHECK(s.argument(6, 0).kind == Kind::Unknown);
  CHECK(s.argument(7, 0).is(Kind::Boolean));
}

TEST_CASE("a type() test does not narrow a local assigned, or a test reached without the call", "[values][types]") {
  Snippet s(
      "local function f(v, w, c, u)\n"
      "  local kind = type(v)\n"
      "  v = c\n"
      "  if kind == 'string' then print(v) end\n"     // 4: v was assigned after type(v)
      "  local wkind = type(w)\n"
      "  while c do\n"
      "    if wkind == 'string' then print(w) end\n"  // 7: the loop's back edge skips type(w)
      "    w = c\n"
      "  end\n"
      "  local g = function() u = 1 end\n"
      "  if type(u) == 'string' then print(u) end\n"  // 11: u is assigned by a closure
      "  if type(c) == 'string' then print(c) end\n"  // 12: narrowed (the test can pass)
      "  return g\n"
      "end\n");
  CHECK(s.argument(4, 0).kind == Kind::Unknown);
  CHECK(s.argument(7, 0).kind == Kind::Unknown);
  CHECK_FALSE(s.argument(11, 0).is(Kind::String));
  CHECK(s.argument(12, 0).is(Kind::String));
}

TEST_CASE("require(\"string.buffer\") is the string buffer library, require(\"buffer\") a file of the project",
          "[values]") {
  // LuaJIT registers its buffers as "string.buffer" only (lib_buffer.c):
  // a module named buffer, and a global of that name, are the project's
  // (audit 72: Buffer.new of a local buffer.lua was a certain stitch).
  Snippet lib("local buffer = require('string.buffer')\nlocal b = buffer.new()\n");
  requireLib(lib.callee(2), "buffer.new");
  Snippet local("local Buffer = require('buffer')\nlocal b = Buffer.new()\n");
  CHECK(local.callee(2).kind == Kind::ModuleMember);
  Snippet global("local b = buffer.new()\n");
  CHECK(global.callee(1).kind != Kind::LibFunction);
  Snippet util("local util = require('jit.util')\nlocal i = util.funcinfo(print)\n");
  requireLib(util.callee(2), "jit.util.funcinfo");
}
