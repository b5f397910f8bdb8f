// A file that calls jit.off() or jit.opt.start(...) does not run with the
// JIT the recorder profile describes: its predictions claim no more than
// likely, or possible once the compiler is off for good (audit 59). Each
// program was checked with `luajit -jv` on Debian's LuaJIT and luajit2.
#include <catch2/catch.hpp>

#include "test_rules_support.h"

using namespace ljcheck;
using ljcheck::testing::find;
using ljcheck::testing::listed;
using ljcheck::testing::predict;

namespace {
const char* const kLoop = "local cbs = {}\nfor i = 1, 100000 do\n  cbs[i % 8 + 1] = function() return i end\nend\n";
}

TEST_CASE("after jit.off() nothing is recorded: a closure in a hot loop is possible", "[rules][jit-settings]") {
  // `-jv`: no trace line at all.
  auto off = predict(std::string("jit.off()\n") + kLoop);
  INFO(listed(off));
  const Prediction* fnew = find(off, 4, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->confidence == Confidence::Possible);
  CHECK(fnew->severity == Severity::Info);
  CHECK(fnew->reasoning.find("jit.off() at line 1 turns the JIT compiler off") != std::string::npos);
  // With a jit.on() somewhere in the file, which code runs compiled the
  // bytecode does not show.
  auto onAgain = predict(std::string("jit.off()\nlocal function later() jit.on() end\n") + kLoop);
  INFO(listed(onAgain));
  REQUIRE(find(onAgain, 5, "NYIBC:FNEW"));
  CHECK(find(onAgain, 5, "NYIBC:FNEW")->confidence == Confidence::Likely);
  CHECK(find(onAgain, 5, "NYIBC:FNEW")->severity == Severity::Warn);
  // jit.off(f) marks f only: the loop's closure keeps its claim.
  auto one = predict(std::string("local function f() end\njit.off(f)\n") + kLoop);
  INFO(listed(one));
  REQUIRE(find(one, 5, "NYIBC:FNEW"));
  CHECK(find(one, 5, "NYIBC:FNEW")->confidence == Confidence::Certain);
  CHECK(find(one, 5, "NYIBC:FNEW")->severity == Severity::Blacklist);
}

TEST_CASE("jit.opt.start makes the profile's counts likely at most", "[rules][jit-settings]") {
  // `-jv` with hotloop=20000: 50,000 turns give 10 aborts and no
  // blacklisting, 100,000 give 11 and blacklist the loop; the profile's
  // counts do not tell them apart.
  auto hot = predict(std::string("jit.opt.start('hotloop=20000')\n") + kLoop);
  INFO(listed(hot));
  const Prediction* fnew = find(hot, 4, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->confidence == Confidence::Likely);
  CHECK(fnew->severity == Severity::Warn);
  CHECK(fnew->reasoning.find("jit.opt.start at line 1 sets JIT parameters") != std::string::npos);
  // minstitch=100: `-jv` shows "trace too short" (TRACEUV), no stitch.
  auto stitch = predict("jit.opt.start('minstitch=100')\nlocal t = {3, 1, 2}\nfor i = 1, 100000 do\n"
                        "  table.sort(t)\nend\n");
  INFO(listed(stitch));
  REQUIRE(find(stitch, 4, "STITCH:table.sort"));
  CHECK(find(stitch, 4, "STITCH:table.sort")->confidence == Confidence::Likely);
  // Without either call the same loop is blacklisted for sure.
  auto plain = predict(kLoop);
  REQUIRE(find(plain, 3, "NYIBC:FNEW"));
  CHECK(find(plain, 3, "NYIBC:FNEW")->confidence == Confidence::Certain);
  CHECK(find(plain, 3, "NYIBC:FNEW")->severity == Severity::Blacklist);
}

TEST_CASE("jit.off(true), jit.off(f, true) and pcall(jit.off) turn the JIT off too, and after the loop change nothing",
          "[rules][jit-settings]") {
  // Audit 61, `-jv` on both builds: no trace line at all in the first
  // three; the fourth blacklists the loop (11 aborts) before jit.off() runs.
  for (const char* head : {"jit.off(true)\n", "pcall(jit.off)\n", "jit.off(nil)\n"}) {
    auto ps = predict(std::string(head) + kLoop);
    INFO(head << listed(ps));
    REQUIRE(find(ps, 4, "NYIBC:FNEW"));
    CHECK(find(ps, 4, "NYIBC:FNEW")->confidence == Confidence::Possible);
    CHECK(find(ps, 4, "NYIBC:FNEW")->severity == Severity::Info);
  }
  auto inside = predict("local function outer()\n  return function()\n    local cbs = {}\n"
                        "    for i = 1, 100000 do\n      cbs[i % 8 + 1] = function() return i end\n    end\n"
                        "    return #cbs\n  end\nend\njit.off(outer, true)\nprint(outer()())\n");
  INFO(listed(inside));
  REQUIRE(find(inside, 5, "NYIBC:FNEW"));
  CHECK(find(inside, 5, "NYIBC:FNEW")->confidence == Confidence::Possible);
  CHECK(find(inside, 5, "NYIBC:FNEW")->reasoning.find("jit.off at line 10 turns the JIT compiler off for this "
                                                      "function") != std::string::npos);
  auto after = predict(std::string(kLoop) + "jit.off()\n");
  INFO(listed(after));
  REQUIRE(find(after, 3, "NYIBC:FNEW"));
  CHECK(find(after, 3, "NYIBC:FNEW")->confidence == Confidence::Certain);
  CHECK(find(after, 3, "NYIBC:FNEW")->severity == Severity::Blacklist);
}
