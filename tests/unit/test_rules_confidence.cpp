// Confidence and reasoning: every prediction says how sure it is and why,
// and AnalyzeOptions::minConfidence (default Likely) leaves out the rest.
#include <catch2/catch.hpp>

#include "test_rules_support.h"

using namespace ljcheck;
using ljcheck::testing::find;
using ljcheck::testing::listed;
using ljcheck::testing::predict;

namespace {
const char* kRecursion =
    "local function sum(k)\n"
    "  if k == 0 then return 0 end\n"
    "  return k + sum(k - 1)\n"
    "end\n"
    "local n = 0\n"
    "for i = 1, 3000 do n = n + sum(20) + #string.gsub('a', 'a', 'b') end\n";
}

TEST_CASE("confidence names read and parse back", "[rules][confidence]") {
  for (Confidence c : {Confidence::Certain, Confidence::Likely, Confidence::Possible})
    REQUIRE(parseConfidence(toString(c)) == c);
  REQUIRE(toString(Confidence::Likely) == "likely");
  REQUIRE_FALSE(parseConfidence("sure").has_value());
  REQUIRE(Confidence::Possible < Confidence::Likely);
  REQUIRE(Confidence::Likely < Confidence::Certain);
}

TEST_CASE("every prediction carries a confidence and one sentence of reasoning", "[rules][confidence]") {
  auto ps = predict(kRecursion);
  INFO(listed(ps));
  REQUIRE(ps.size() >= 3);
  for (const auto& p : ps) {
    INFO(p.reasonId.str() << " at " << p.line);
    CHECK_FALSE(p.reasoning.empty());
    CHECK(p.reasoning.find('\n') == std::string::npos);
  }
  REQUIRE(find(ps, 6, "STITCH:string.gsub")->confidence == Confidence::Certain);
  REQUIRE(find(ps, 3, "DOWNREC")->confidence == Confidence::Likely);
  REQUIRE(find(ps, 1, "CUNROLL")->confidence == Confidence::Possible);
}

TEST_CASE("minConfidence leaves out less sure predictions, and Likely is the default", "[rules][confidence]") {
  REQUIRE(find(predict(kRecursion, Confidence::Possible), 1, "CUNROLL"));
  auto likely = analyzeSource(kRecursion, "snippet.lua", defaultProfile()).predictions;
  REQUIRE_FALSE(find(likely, 1, "CUNROLL"));
  REQUIRE(find(likely, 3, "DOWNREC"));
  auto certain = predict(kRecursion, Confidence::Certain);
  REQUIRE_FALSE(find(certain, 3, "DOWNREC"));
  REQUIRE(find(certain, 6, "STITCH:string.gsub"));
  REQUIRE(AnalyzeOptions{}.minConfidence == Confidence::Likely);
}

TEST_CASE("a function that only possibly runs hot lowers the confidence one step", "[rules][confidence]") {
  auto ps = predict(
      "local M = {}\n"
      "function M.handler(x)\n"
      "  return function() return x end\n"
      "end\n"
      "return M\n");
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 3, "NYIBC:FNEW");
  REQUIRE(fnew);
  REQUIRE(fnew->confidence == Confidence::Likely);
  REQUIRE(fnew->severity == Severity::Info);
  REQUIRE(fnew->reasoning.find("escapes") != std::string::npos);
}

TEST_CASE("a function possibly hot through its callers names the one that escapes", "[rules][confidence]") {
  auto ps = predict(
      "local M = {}\n"
      "local function inner(s) return (s:gsub('a', 'b')) end\n"
      "local function outer(s) local r = inner(s) return r end\n"
      "local function compile(s) return outer(s) end\n"
      "function M.add(s) return compile(s) end\n"
      "return M\n");
  INFO(listed(ps));
  const Prediction* gsub = find(ps, 2, "STITCH:string.gsub");
  REQUIRE(gsub);
  // outer does not escape: the chain up to M.add, which does, is the evidence.
  CHECK(gsub->reasoning.find("inner is called at line 3 from outer, which is called from compile at line 4, and "
                             "compile from M.add at line 5, which escapes") != std::string::npos);
}

TEST_CASE("an error call outside pcall is only possibly a split", "[rules][confidence]") {
  auto ps = predict(
      "for i = 1, 3000 do\n"
      "  if i < 0 then error('negative') end\n"
      "  local ok = pcall(error, 'x')\n"
      "end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 2, "RETURN:error")->confidence == Confidence::Possible);
  REQUIRE(find(ps, 3, "RETURN:error")->confidence == Confidence::Certain);
  // The advice fits the cause: an error path, and a call through pcall,
  // not results forwarded to another call (the catalog's advice for RETURN).
  CHECK(find(ps, 2, "RETURN:error")->advice.find("error path stays rare") != std::string::npos);
  CHECK(find(ps, 3, "RETURN:error")->advice.find("error path stays rare") != std::string::npos);
  auto viaPcall =
      predict("local s = 'abc'\nfor i = 1, 3000 do\n  local ok, r = pcall(string.gsub, s, 'a', 'b')\nend\n");
  INFO(listed(viaPcall));
  REQUIRE(find(viaPcall, 3, "RETURN:string.gsub"));
  CHECK(find(viaPcall, 3, "RETURN:string.gsub")->advice.find("one pcall around the whole loop") != std::string::npos);
}

TEST_CASE("an error call in a function that runs under a pcall of the file is likely a split", "[rules][confidence]") {
  auto ps = predict(
      "local function check(v)\n"
      "  if v % 2 == 0 then error('even') end\n"
      "  return v\n"
      "end\n"
      "local function unchecked(v)\n"
      "  if v < 0 then error('negative') end\n"
      "  return v\n"
      "end\n"
      "for i = 1, 3000 do\n"
      "  local ok = pcall(check, i)\n"
      "  local w = unchecked(i)\n"
      "end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 2, "RETURN:error"));
  REQUIRE(find(ps, 2, "RETURN:error")->confidence == Confidence::Likely);
  REQUIRE(find(ps, 2, "RETURN:error")->reasoning.find("pcall") != std::string::npos);
  REQUIRE(find(ps, 6, "RETURN:error")->confidence == Confidence::Possible);
}

TEST_CASE("an error under a pcall that runs once, and what only builds its message, are possible splits",
          "[rules][confidence]") {
  // Audit 96: a bounds check called 33,334 times from a loop, and a pcall
  // of it once in the main chunk; an interval check whose message is
  // formatted from numbers. `-jv` showed neither on either build.
  auto ps = predict(
      "local function check(n, i)\n"
      "  if i < 0 or i >= n then error('bit index out of range', 3) end\n"
      "end\n"
      "local function insert(lo, hi)\n"
      "  if lo > hi then error(('invalid interval [%s, %s]'):format(lo, hi)) end\n"
      "  return hi - lo\n"
      "end\n"
      "local s = 0\n"
      "for i = 0, 99999, 3 do check(100000, i) s = s + insert(i, i + 10) end\n"
      "print(pcall(check, 100000, 100005))\n");
  INFO(listed(ps));
  const Prediction* once = find(ps, 2, "RETURN:error");
  REQUIRE(once);
  CHECK(once->confidence == Confidence::Possible);
  CHECK(once->reasoning.find("but none that runs hot") != std::string::npos);
  const Prediction* message = find(ps, 5, "RETURN:string.format");
  REQUIRE(message);
  CHECK(message->confidence == Confidence::Possible);
  CHECK(message->severity == Severity::Info);
  CHECK(message->reasoning.find("it runs only on the way to the error raised at line 5") != std::string::npos);
}

TEST_CASE("a local function called only after a pairs loop is named by its call, not said to escape",
          "[rules][confidence]") {
  // The call right after the pairs loop has a heat of its own (the loop's
  // exit records it), which the callee does not take in full: its reasoning
  // still names the call, since nothing but that call reaches helper.
  auto ps = predict(
      "local M = {}\n"
      "local function helper(x)\n"
      "  return function() return x end\n"
      "end\n"
      "function M.new(args)\n"
      "  local ret = {}\n"
      "  for k, v in pairs(args) do ret[k] = v end\n"
      "  ret.f = helper(ret)\n"
      "  return ret\n"
      "end\n"
      "return M\n");
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 3, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->reasoning.find("helper escapes") == std::string::npos);
  CHECK(fnew->reasoning.find("helper is called at line 8 from M.new, which escapes") != std::string::npos);
}

TEST_CASE("a local function stored in a table at once keeps its own name", "[rules][names]") {
  // The store `parsers.CNAME = readName` follows the FNEW directly (prosody's
  // dns.lua): the function is still readName, as its callers write it.
  auto ps = predict(
      "local parsers = {}\n"
      "local function readName(t)\n"
      "  return function() return t end\n"
      "end\n"
      "parsers.CNAME = readName\n"
      "parsers.cb = function(t) return function() return t end end\n"
      "return parsers\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 3, "NYIBC:FNEW"));
  CHECK(find(ps, 3, "NYIBC:FNEW")->function == "readName");
  REQUIRE(find(ps, 6, "NYIBC:FNEW"));
  CHECK(find(ps, 6, "NYIBC:FNEW")->function == "parsers.cb");  // no local: the table and field it is stored in
}

TEST_CASE("a helper called only behind an aborting helper is certain only when its own entry gets hot",
          "[rules][confidence]") {
  // Audit 100: pl.seq's `seq.enum(seq.list{...})` in a 60-turn loop; every
  // trace of the loop aborts at list's closure first, and enum's own entry
  // gets hot after 2 * hotloop = 112 calls (-jv: at 200 calls it aborts at
  // enum's closure in every run; at 60, in none on OpenResty, 9 of 60 on Debian).
  auto source = [](int turns) {
    return "local function list(t)\n"
           "  local k = 0\n"
           "  return function() k = k + 1; return t[k] end\n"
           "end\n"
           "local function enum(iter)\n"
           "  local i = 0\n"
           "  return function() local v = iter(); if v then i = i + 1; return i, v end end\n"
           "end\n"
           "local total = 0\n"
           "for run = 1, " + std::to_string(turns) + " do\n"
           "  for k in enum(list { 'a', 'b' }) do total = total + k end\n"
           "end\n";
  };
  auto few = predict(source(60));
  INFO(listed(few));
  const Prediction* listClosure = find(few, 3, "NYIBC:FNEW");
  const Prediction* enumClosure = find(few, 7, "NYIBC:FNEW");
  REQUIRE(listClosure);
  REQUIRE(enumClosure);
  CHECK(listClosure->confidence == Confidence::Certain);
  CHECK(enumClosure->confidence == Confidence::Likely);
  CHECK(enumClosure->severity == Severity::Warn);
  CHECK(enumClosure->reasoning.find("abort first at the call of list at line 11") != std::string::npos);
  CHECK(enumClosure->reasoning.find("gets hot after 112 calls, of which the bytecode shows at least 60") !=
        std::string::npos);
  auto many = predict(source(200));
  INFO(listed(many));
  REQUIRE(find(many, 7, "NYIBC:FNEW"));
  CHECK(find(many, 7, "NYIBC:FNEW")->confidence == Confidence::Certain);
}
