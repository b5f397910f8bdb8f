// Masking: a site that an earlier certain abort hides on every path is
// reported with maskedBy naming that abort, not as a finding of its own.
#include <catch2/catch.hpp>

#include "test_rules_support.h"

using namespace ljcheck;
using ljcheck::testing::find;
using ljcheck::testing::maskedBy;
using ljcheck::testing::listed;
using ljcheck::testing::predict;

TEST_CASE("an UCLO after an FNEW in the same loop body is masked by the FNEW", "[rules][masking]") {
  auto ps = predict(
      "local fs = {}\n"
      "for i = 1, 3000 do\n"
      "  local v = i * 2\n"
      "  fs[i % 8 + 1] = function() return v end\n"
      "end\n");
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 4, "NYIBC:FNEW");
  const Prediction* uclo = find(ps, 4, "NYIBC:UCLO");
  REQUIRE(fnew);
  REQUIRE(maskedBy(*fnew).empty());
  REQUIRE(uclo);
  REQUIRE(maskedBy(*uclo) == "snippet.lua:4 NYIBC:FNEW");
}

TEST_CASE("a stitch after a closure in the loop body is masked; one before it is not", "[rules][masking]") {
  auto ps = predict(
      "local n = 0\n"
      "for i = 1, 3000 do\n"
      "  local a = string.gsub('abc', 'b', 'c')\n"
      "  local f = function() return i end\n"
      "  local b = string.gsub('abc', 'b', 'c')\n"
      "  n = n + #a + #b\n"
      "end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 3, "STITCH:string.gsub"));
  REQUIRE(maskedBy(*find(ps, 3, "STITCH:string.gsub")).empty());
  REQUIRE(find(ps, 5, "STITCH:string.gsub"));
  REQUIRE(maskedBy(*find(ps, 5, "STITCH:string.gsub")) == "snippet.lua:4 NYIBC:FNEW");
}

TEST_CASE("an inner loop between the abort and the site unmasks it", "[rules][masking]") {
  // The side trace from the inner loop's exit starts behind the FNEW.
  auto ps = predict(
      "local n = 0\n"
      "for i = 1, 3000 do\n"
      "  local f = function() return i end\n"
      "  local j = 0\n"
      "  while j < 10 do j = j + 1 end\n"
      "  n = n + f()\n"
      "end\n");
  INFO(listed(ps));
  const Prediction* uclo = find(ps, 6, "NYIBC:UCLO");
  REQUIRE(uclo);
  REQUIRE(maskedBy(*uclo).empty());
}

TEST_CASE("a closure on a branch masks nothing", "[rules][masking]") {
  auto ps = predict(
      "local f\n"
      "for i = 1, 3000 do\n"
      "  if i == 0 then f = function() return i end end\n"
      "  local s = string.gsub('abc', 'b', 'c')\n"
      "end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 4, "STITCH:string.gsub"));
  REQUIRE(maskedBy(*find(ps, 4, "STITCH:string.gsub")).empty());
}

TEST_CASE("code inside a function excluded with jit.off is masked by its CJITOFF", "[rules][masking]") {
  auto ps = predict(
      "local function slow(s)\n"
      "  return #string.gsub(s, 'a', 'b')\n"
      "end\n"
      "jit.off(slow)\n"
      "local n = 0\n"
      "for i = 1, 3000 do n = n + slow('abc') end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 1, "CJITOFF"));
  const Prediction* inside = find(ps, 2, "RETURN:string.gsub");
  if (!inside) inside = find(ps, 2, "STITCH:string.gsub");
  REQUIRE(inside);
  REQUIRE(maskedBy(*inside) == "snippet.lua:1 CJITOFF");
}

TEST_CASE("a closure on a branch masks what follows it on that branch only", "[rules][masking]") {
  // Every path to the branch's UCLO (closing the upvalues before the tail
  // call) runs through the FNEW; the other return's UCLO is reached without it.
  auto ps = predict(
      "local function run(i, t)\n"
      "  if t[i] then\n"
      "    return t[i](function() return i end)\n"
      "  end\n"
      "  return i\n"
      "end\n"
      "local s = 0\n"
      "for i = 1, 3000 do s = s + run(i % 2, {}) end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 3, "NYIBC:FNEW"));
  REQUIRE(find(ps, 3, "NYIBC:UCLO"));
  REQUIRE(maskedBy(*find(ps, 3, "NYIBC:UCLO")) == "snippet.lua:3 NYIBC:FNEW");
  REQUIRE(find(ps, 5, "NYIBC:UCLO"));
  REQUIRE(maskedBy(*find(ps, 5, "NYIBC:UCLO")).empty());
}

TEST_CASE("a closure in a generic for's body does not mask the iterator call", "[rules][masking]") {
  // The iterator call sits after the body in the bytecode, but the jump in
  // front of the loop reaches it first.
  auto ps = predict(
      "local n = 0\n"
      "for i = 1, 2000 do\n"
      "  for w in string.gmatch('ab cd', '%a+') do\n"
      "    local f = function() return w end\n"
      "    n = n + #f()\n"
      "  end\n"
      "end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 3, "STITCH:string.gmatch_aux"));
  REQUIRE(maskedBy(*find(ps, 3, "STITCH:string.gmatch_aux")).empty());
  REQUIRE(find(ps, 5, "NYIBC:UCLO"));
  REQUIRE_FALSE(maskedBy(*find(ps, 5, "NYIBC:UCLO")).empty());
}
