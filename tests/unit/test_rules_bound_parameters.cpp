// Findings made through a parameter that every call of its function fills
// with the same callee or namespace (flow/parameter_values.cpp) say so in
// their reasoning: the parameter, what the calls pass and where.
#include <catch2/catch.hpp>

#include "test_rules_support.h"

using namespace ljcheck;
using ljcheck::testing::find;
using ljcheck::testing::listed;
using ljcheck::testing::predict;

namespace {
// The prediction of `reasonId` on `line` of the snippet (the test fails
// without one, listing what was predicted).
Prediction predicted(const std::string& source, int line, const std::string& reasonId) {
  auto ps = predict(source);
  INFO(listed(ps));
  const Prediction* p = find(ps, line, reasonId);
  REQUIRE(p);
  return *p;
}

bool says(const Prediction& p, const std::string& text) { return p.reasoning.find(text) != std::string::npos; }
}  // namespace

TEST_CASE("a split through a bound callee names the parameter and the call", "[rules][parameters]") {
  Prediction p = predicted(
      "local function measure(clock, n)\n"
      "  local t = 0\n"
      "  for _ = 1, n do t = t + clock() end\n"
      "  return t\n"
      "end\n"
      "return measure(os.clock, 2000)\n",
      3, "STITCH:os.clock");
  CHECK(says(p, "the parameter clock is os.clock at its one call in this file, at line 6, and only this file's code "
                "calls measure"));
}

TEST_CASE("a refused form through a bound callee names the parameter", "[rules][parameters]") {
  Prediction p = predicted(
      "local function count(find, lines)\n"
      "  local n = 0\n"
      "  for i = 1, #lines do if find(lines[i], '%d+') then n = n + 1 end end\n"
      "  return n\n"
      "end\n"
      "return count(string.find, {'a1', 'b2'}) + count(string.find, {})\n",
      3, "STITCH:string.find");
  CHECK(says(p, "the parameter find is string.find at each of its 2 calls in this file, the first at line 6"));
}

TEST_CASE("an FFI abort through a bound ctype is certain and names the parameter", "[rules][parameters][ffi]") {
  Prediction p = predicted(
      "local ffi = require('ffi')\n"
      "ffi.cdef[[ typedef struct { int x, y; } pair_t; ]]\n"
      "local function make(tp, n)\n"
      "  local out = {}\n"
      "  for i = 1, 3000 do out[i] = ffi.new(tp, {i, n}) end\n"
      "  return out\n"
      "end\n"
      "return make(ffi.typeof('pair_t'), 1), make(ffi.typeof('pair_t'), 2)\n",
      5, "BADTYPE");
  CHECK(p.confidence == Confidence::Certain);
  CHECK(says(p, "the parameter tp is the ctype \"pair_t\" at each of its 2 calls in this file"));
}

TEST_CASE("a parameter assigned in its function is not claimed as what the calls pass", "[rules][parameters]") {
  Prediction p = predicted(
      "local function measure(clock, n)\n"
      "  clock = clock or os.clock\n"
      "  local t = 0\n"
      "  for _ = 1, n do t = t + clock() end\n"
      "  return t\n"
      "end\n"
      "return measure(os.clock, 2000)\n",
      4, "STITCH:os.clock");
  CHECK_FALSE(says(p, "the parameter clock"));
}
