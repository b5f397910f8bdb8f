// Parameters bound from the calls of a function only this file calls
// (flow/parameter_values.cpp): what the callee of a call through a
// parameter resolves to, and when the calls do not decide it.
#include <catch2/catch.hpp>

#include "test_values_support.h"

using ljcheck::testing::requireLib;
using ljcheck::testing::Snippet;

TEST_CASE("a callee every call passes, through recursion and a second helper", "[values][parameters]") {
  Snippet s(
      "local function measure(clock, n)\n"
      "  return clock() + n\n"  // line 2
      "end\n"
      "local function rounds(clock, k)\n"
      "  if k == 0 then return 0 end\n"
      "  return measure(clock, k) + rounds(clock, k - 1)\n"
      "end\n"
      "return rounds(os.clock, 3)\n");
  requireLib(s.callee(2), "os.clock");
}

TEST_CASE("calls that pass different callees bind nothing", "[values][parameters]") {
  Snippet s(
      "local function apply(f, x) return f(x) end\n"
      "return apply(math.floor, 1.5) + apply(os.clock)\n");
  CHECK_FALSE(s.callee(1).known());
}

TEST_CASE("a function that escapes may be called with anything", "[values][parameters]") {
  SECTION("stored in a table") {
    Snippet s(
        "local function apply(f, x) return f(x) end\n"
        "local M = {apply = apply}\n"
        "return apply(math.floor, 1.5), M\n");
    CHECK_FALSE(s.callee(1).known());
  }
  SECTION("passed on as an argument") {
    Snippet s(
        "local function apply(f, x) return f(x) end\n"
        "local r = apply(math.floor, 1.5)\n"
        "local t = {1, 2}\n"
        "table.sort(t, apply)\n"
        "return r\n");
    CHECK_FALSE(s.callee(1).known());
  }
  SECTION("given to xpcall as the handler, which gets the error") {
    Snippet s(
        "local function apply(f, x) return f(x) end\n"
        "local r = apply(math.floor, 1.5)\n"
        "return xpcall(error, apply, r)\n");
    CHECK_FALSE(s.callee(1).known());
  }
  SECTION("returned ahead of a call's results (RETM)") {
    Snippet s(
        "local function apply(f, x) return f(x) end\n"
        "local function get(...) return apply, select('#', ...) end\n"
        "return apply(math.floor, 1.5), get\n");
    CHECK_FALSE(s.callee(1).known());
  }
  SECTION("the state of a generic for, which its iterator gets") {
    Snippet s(
        "local function apply(f, x) return f(x) end\n"
        "local function iter(g, i) if i < 2 then g(print, i) return i + 1 end end\n"
        "for _ in iter, apply, 0 do end\n"
        "return apply(math.floor, 1.5)\n");
    CHECK_FALSE(s.callee(1).known());
  }
  SECTION("captured by a closure that assigns it") {
    Snippet s(
        "local apply = function(f, x) return f(x) end\n"
        "local function swap(g) apply = g end\n"
        "return apply(math.floor, 1.5), swap\n");
    CHECK_FALSE(s.callee(1).known());
  }
}

TEST_CASE("pcall and xpcall are calls of the function they get", "[values][parameters]") {
  SECTION("with something else than the direct call") {
    Snippet s(
        "local function apply(f, x) return f(x) end\n"
        "local r = apply(math.floor, 1.5)\n"
        "return pcall(apply, print, r)\n");
    CHECK_FALSE(s.callee(1).known());
  }
  SECTION("with the same callee, the arguments after the handler") {
    Snippet s(
        "local function apply(f, x) return f(x) end\n"
        "local ok = pcall(apply, os.clock, 1)\n"
        "return xpcall(apply, print, os.clock, 2), ok\n");
    requireLib(s.callee(1), "os.clock");
  }
}

TEST_CASE("a recursive call that passes something else drops the binding", "[values][parameters]") {
  Snippet s(
      "local function walk(f, n)\n"
      "  if n > 0 then return walk(print, n - 1) end\n"
      "  return f(n)\n"  // line 3
      "end\n"
      "return walk(os.clock, 2)\n");
  CHECK_FALSE(s.callee(3).known());
}

TEST_CASE("an iterator's arguments are not in its call", "[values][parameters]") {
  Snippet s(
      "local function step(f, i) if i < 3 then f(i) return i + 1 end end\n"
      "step(print, 0)\n"
      "for i in step, print, 0 do end\n");
  CHECK_FALSE(s.callee(1).known());
}

TEST_CASE("a call through a parameter keeps its receiver when the class shows it", "[values][parameters]") {
  // `self` of a method is the class's receiver, never a binding; methods
  // are stored in their class, so they escape anyway.
  Snippet s(
      "local C = {}\n"
      "C.__index = C\n"
      "function C:run(f) return f(self) end\n"
      "local o = setmetatable({}, C)\n"
      "return o:run(print)\n");
  CHECK_FALSE(s.callee(3).known());
}
