// A certain prediction needs the passes that surely run its site to be
// enough for a trace to record it (audit 53): a hot loop around a branch,
// a route around the site that aborts elsewhere, a helper only a branch
// calls, or a stitched call whose trace aborts in the callee before it
// returns, each leave that to the data: likely. And a loop up to the length
// of a constant list turns that many times.
#include <catch2/catch.hpp>

#include <tuple>

#include "test_rules_support.h"

using namespace ljcheck;
using ljcheck::testing::find;
using ljcheck::testing::listed;
using ljcheck::testing::predict;

TEST_CASE("a blocker in a helper that only a branch of a hot loop calls is likely", "[rules][hotness]") {
  // `-jv`: one trace of the loop, no abort anywhere: hex runs 5 times.
  auto rare = predict("local function hex(s)\n  local f = function() return s end\n  return f()\nend\n"
                      "local acc = 0\nfor i = 1, 5000 do\n  if i % 1000 == 0 then acc = acc + #hex('ab') end\nend\n");
  INFO(listed(rare));
  const Prediction* fnew = find(rare, 2, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->confidence == Confidence::Likely);
  CHECK(fnew->reasoning.find("a branch at line 7 can go around the call at line 7, so the passes sure to run it "
                             "number 1, fewer than the 56 that get a loop hot") != std::string::npos);
  // Called in both arms of a branch it runs on every pass: no sure-pass
  // clause (audit 54: `-jv` blacklists the loop and the helper's entry).
  auto arms = predict("local function helper(x)\n  local f = function() return x end\n  return f()\nend\n"
                      "local acc = 0\nfor i = 1, 200000 do\n  if i % 2 == 0 then acc = acc + helper(i) else "
                      "acc = acc + helper(-i) end\nend\n");
  INFO(listed(arms));
  REQUIRE(find(arms, 2, "NYIBC:FNEW"));
  CHECK(find(arms, 2, "NYIBC:FNEW")->confidence == Confidence::Certain);
  CHECK(find(arms, 2, "NYIBC:FNEW")->reasoning.find("passes sure to run it") == std::string::npos);
  // Called three times at load as well (audit 77: checkpoints made at
  // load, more behind `if frame % 5000 == 0`; `-jv`: no abort): still the
  // hot call is behind a branch, likely.
  auto atLoad = predict("local function hex(s)\n  local f = function() return s end\n  return f()\nend\n"
                        "for i = 1, 3 do hex('x') end\n"
                        "local acc = 0\nfor i = 1, 5000 do\n  if i % 1000 == 0 then acc = acc + #hex('ab') end\nend\n");
  INFO(listed(atLoad));
  REQUIRE(find(atLoad, 2, "NYIBC:FNEW"));
  CHECK(find(atLoad, 2, "NYIBC:FNEW")->confidence == Confidence::Likely);
  // Called on every pass it stays certain.
  auto always = predict("local function hex(s)\n  local f = function() return s end\n  return f()\nend\n"
                        "local acc = 0\nfor i = 1, 5000 do\n  acc = acc + #hex('ab')\nend\n");
  REQUIRE(find(always, 2, "NYIBC:FNEW"));
  CHECK(find(always, 2, "NYIBC:FNEW")->confidence == Confidence::Certain);
}

TEST_CASE("a closure behind a branch whose other route aborts elsewhere is likely", "[rules][hotness]") {
  // Every pass runs the UCLO at the end of the `if` block; only 5 run the
  // closure (`-jv`: 7 aborts, all at the UCLO).
  auto ps = predict("local acc = 0\nfor i = 1, 5000 do\n  acc = acc + i\n  if i % 1000 == 0 then\n"
                    "    local f = function() return i end\n    acc = acc + f()\n  end\nend\n");
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 5, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->confidence == Confidence::Likely);
  CHECK(fnew->reasoning.find("runs into another abort, which the passes that take it report instead") !=
        std::string::npos);
  // The UCLO too is likely: only the passes that skip the closure reach
  // it, and how many do the data decides (here all but 5 of 5000, and
  // `-jv` shows the UCLO; audit 106's cgilua parsequery took the closure's
  // branch on every pass, and the UCLO was never recorded).
  const Prediction* uclo = find(ps, 7, "NYIBC:UCLO");
  REQUIRE(uclo);
  CHECK(uclo->confidence == Confidence::Likely);
  CHECK(uclo->reasoning.find("the passes that get to the closure ending at line 5 abort there first") !=
        std::string::npos);
  CHECK(uclo->reasoning.find("blacklisted either way") == std::string::npos);
  // Enough turns to blacklist: the start is blacklisted either way, and
  // the closure, which the UCLO is there for, is the site to fix; which of
  // the two aborts the VM names the data decides (audit 54: 11 aborts at
  // the UCLO).
  auto many = predict("local acc = 0\nfor i = 1, 100000 do\n  acc = acc + i\n  if i % 1000 == 0 then\n"
                      "    local f = function() return i end\n    acc = acc + f()\n  end\nend\n");
  INFO(listed(many));
  REQUIRE(find(many, 5, "NYIBC:FNEW"));
  CHECK(find(many, 5, "NYIBC:FNEW")->severity == Severity::Blacklist);
  CHECK(find(many, 5, "NYIBC:FNEW")->confidence == Confidence::Likely);
  REQUIRE(find(many, 7, "NYIBC:UCLO"));
  CHECK(find(many, 7, "NYIBC:UCLO")->severity == Severity::Blacklist);
  CHECK(find(many, 7, "NYIBC:UCLO")->confidence == Confidence::Likely);
  CHECK(find(many, 7, "NYIBC:UCLO")->reasoning.find("the trace start is blacklisted either way") != std::string::npos);
  // Two closures on either path: every pass aborts, at one or the other
  // (audit 55: 7 and 4 of the 11 aborts).
  auto either = predict("local acc = 0\nfor i = 1, 100000 do\n  local f\n  if i % 1000 == 0 then\n"
                        "    f = function() return 1 end\n  else\n    f = function() return 2 end\n  end\n"
                        "  acc = acc + f()\nend\n");
  INFO(listed(either));
  REQUIRE(find(either, 5, "NYIBC:FNEW"));
  CHECK(find(either, 5, "NYIBC:FNEW")->severity == Severity::Blacklist);
  CHECK(find(either, 5, "NYIBC:FNEW")->confidence == Confidence::Likely);
}

TEST_CASE("no error behind a stitched call whose trace aborts in the callee first", "[rules][hotness]") {
  // wrap's stitched trace resumes in its vararg frame and aborts at the
  // multi-value `...`; `-jv` never shows the closure's abort.
  for (const char* turns : {"5000", "100000"}) {
    INFO(turns);
    auto ps = predict(std::string("local function wrap(...)\n  local s = string.gsub('ab', 'a', 'c')\n"
                                  "  return #s, ...\nend\nlocal n = 0\nfor i = 1, ") +
                      turns + " do\n  n = n + wrap(i)\n  local f = function() return i end\n  n = n + f()\nend\n");
    INFO(listed(ps));
    const Prediction* fnew = find(ps, 8, "NYIBC:FNEW");
    REQUIRE(fnew);
    CHECK(fnew->severity == Severity::Warn);
    CHECK(fnew->confidence == Confidence::Likely);
    CHECK(fnew->reasoning.find("starts in its frame and may abort at line 3 first") != std::string::npos);
  }
  // Any vararg helper: its stitched trace stops at its return (`-jv`:
  // `TRACE 2 (1/stitch) ... return`), and a call after the stitch of a
  // function that makes a closure aborts it (audit 54).
  auto varargReturn = predict("local function wrap(x, ...)\n  local s = string.gsub('ab', 'a', 'c')\n"
                              "  return #s + x\nend\nlocal n = 0\nfor i = 1, 100000 do\n  n = n + wrap(i)\n"
                              "  local f = function() return i end\n  n = n + f()\nend\n");
  INFO(listed(varargReturn));
  REQUIRE(find(varargReturn, 8, "NYIBC:FNEW"));
  CHECK(find(varargReturn, 8, "NYIBC:FNEW")->confidence == Confidence::Likely);
  CHECK(find(varargReturn, 8, "NYIBC:FNEW")->reasoning.find("starts in its vararg frame and stops at its return") !=
        std::string::npos);
  auto callsMaker = predict("local function other(x)\n  local f = function() return x end\n  return f()\nend\n"
                            "local function wrap(x)\n  local s = string.gsub('ab', 'a', 'c')\n"
                            "  return #s + other(x)\nend\nlocal n = 0\nfor i = 1, 100000 do\n  n = n + wrap(i)\n"
                            "  local f = function() return i end\n  n = n + f()\nend\n");
  INFO(listed(callsMaker));
  REQUIRE(find(callsMaker, 12, "NYIBC:FNEW"));
  CHECK(find(callsMaker, 12, "NYIBC:FNEW")->severity == Severity::Warn);
  CHECK(find(callsMaker, 12, "NYIBC:FNEW")->reasoning.find("may abort at line 2 in other first") !=
        std::string::npos);
  // Without the `...` the stitched trace gets back and aborts at the
  // closure: the stitching trace links to itself, a blacklisted link.
  auto back = predict("local function wrap(x)\n  local s = string.gsub('ab', 'a', 'c')\n"
                      "  return #s + x\nend\nlocal n = 0\nfor i = 1, 5000 do\n  n = n + wrap(i)\n"
                      "  local f = function() return i end\n  n = n + f()\nend\n");
  INFO(listed(back));
  REQUIRE(find(back, 8, "NYIBC:FNEW"));
  CHECK(find(back, 8, "NYIBC:FNEW")->severity == Severity::Blacklist);
  CHECK(find(back, 8, "NYIBC:FNEW")->confidence == Confidence::Certain);
}

TEST_CASE("a loop up to the length of a constant list turns that many times", "[rules][hotness]") {
  auto few = predict("local names = { 'get', 'set', 'del', 'incr' }\nlocal M = {}\nfor i = 1, #names do\n"
                     "  local name = names[i]\n  M[name] = function(x) return name .. x end\nend\nreturn M\n");
  INFO(listed(few));
  CHECK_FALSE(find(few, 5, "NYIBC:FNEW"));
  // A list the code changes afterwards may be longer: unknown turns.
  auto grown = predict("local names = { 'get', 'set', 'del', 'incr' }\nlocal M = {}\nfor i = 1, #names do\n"
                       "  local name = names[i]\n  M[name] = function(x) return name .. x end\nend\n"
                       "names[5] = 'x'\nreturn M\n");
  INFO(listed(grown));
  REQUIRE(find(grown, 5, "NYIBC:FNEW"));
  CHECK(find(grown, 5, "NYIBC:FNEW")->confidence == Confidence::Likely);
  // So may one a called function can reach.
  auto passed = predict("local names = { 'get', 'set', 'del', 'incr' }\nlocal M = {}\nlocal grow = ...\n"
                        "grow(names)\nfor i = 1, #names do\n  local name = names[i]\n"
                        "  M[name] = function(x) return name .. x end\nend\nreturn M\n");
  INFO(listed(passed));
  REQUIRE(find(passed, 7, "NYIBC:FNEW"));
}

TEST_CASE("trips just enough for hotloop leave no sure try at recording: likely", "[rules][hotness]") {
  // The loop's hot counter fires on its 56th run of FORL, and the trace
  // records from there: that run must loop back. In 8x8 it is the inner
  // loop's exit, and the try aborts on leaving the loop (`-jv`: no abort
  // at the closure); in 4x16 and a single loop of 57 it is not (one abort).
  auto nested = [](const char* outer, const char* inner) {
    return predict(std::string("local s = 0\nfor i = 1, ") + outer + " do\n  for j = 1, " + inner +
                   " do\n    local f = function() return j end\n    s = s + f()\n  end\nend\n");
  };
  // After the try that leaves the loop the counter fires again on the
  // 93rd run (audit 55: 12x8 and 50x2 abort at the closure, 11x8 not).
  for (auto [outer, inner, sure] : {std::tuple{"1", "56", false}, std::tuple{"1", "57", true},
                                    std::tuple{"8", "8", false}, std::tuple{"7", "8", false},
                                    std::tuple{"4", "16", true}, std::tuple{"2", "100", true},
                                    std::tuple{"11", "8", false}, std::tuple{"12", "8", true},
                                    std::tuple{"50", "2", true}}) {
    INFO(outer << " x " << inner);
    auto ps = nested(outer, inner);
    INFO(listed(ps));
    const Prediction* fnew = find(ps, 4, "NYIBC:FNEW");
    REQUIRE(fnew);
    CHECK(fnew->confidence == (sure ? Confidence::Certain : Confidence::Likely));
    if (!sure) CHECK(fnew->reasoning.find("just enough for hotloop, 56") != std::string::npos);
  }
}

TEST_CASE("only a numeric for counts on its exit, and every call of its function counts", "[rules][hotness]") {
  // A while loop counts at the head of its body (LOOP): its 56th count
  // records a pass (audit 55: `-jv` shows the closure's abort).
  auto loop = predict("local t = {}\nlocal i = 1\nwhile i <= 56 do\n  t[#t + 1] = function() return 1 end\n"
                      "  i = i + 1\nend\n");
  INFO(listed(loop));
  REQUIRE(find(loop, 4, "NYIBC:FNEW"));
  CHECK(find(loop, 4, "NYIBC:FNEW")->confidence == Confidence::Certain);
  // The counter lives on across calls: 56 turns called twice abort.
  auto twice = predict("local s = 0\nlocal function f()\n  for i = 1, 56 do\n    local g = function() return i end\n"
                       "    s = s + g()\n  end\nend\nf()\nf()\n");
  INFO(listed(twice));
  REQUIRE(find(twice, 4, "NYIBC:FNEW"));
  CHECK(find(twice, 4, "NYIBC:FNEW")->confidence == Confidence::Certain);
}

TEST_CASE("a stitched helper's trace that cannot get back hides what follows its call", "[rules][hotness]") {
  // Audit 55, `-jv`: no abort at the loop's closure in any of these.
  auto expectLikely = [](const std::string& helper, const char* call, const char* clause) {
    auto ps = predict(helper + "local t = {}\nfor i = 1, 50000 do\n  " + call +
                      "\n  t[1] = function() return 1 end\nend\n");
    INFO(listed(ps));
    const Prediction* fnew = nullptr;
    for (const auto& p : ps)
      if (p.reasonId.str() == "NYIBC:FNEW" && p.reasoning.find("runs in the loop") != std::string::npos) fnew = &p;
    REQUIRE(fnew);
    CHECK(fnew->confidence == Confidence::Likely);
    CHECK(fnew->severity == Severity::Warn);
    CHECK(fnew->reasoning.find(clause) != std::string::npos);
  };
  // through a helper that calls a vararg one
  expectLikely("local function h1(s, ...) local r = string.gsub(s, 'a', 'b') return r end\n"
               "local function h2(s) local x = h1(s) return x end\n",
               "h2('abc')", "in h2 (called at line 5), the trace that resumes after the call of h1");
  // a vararg helper with an early return
  expectLikely("local function h(s, ...) if s == 'x' then return 1 end local r = string.gsub(s, 'a', 'b') "
               "return r end\n",
               "h('abc')", "starts in its vararg frame and stops at its return");
  // through pcall: the trace cannot return into the pcall frame
  expectLikely("local function h(s) local r = string.gsub(s, 'a', 'b') return r end\n", "pcall(h, 'abc')",
               "above the pcall frame and aborts when it returns into it (NYIRETL)");
}

TEST_CASE("a closure maker called behind a branch after the stitch does not stop the resumed trace",
          "[rules][hotness]") {
  // Audit 55: `-jv` shows the resumed trace aborting at the loop's closure
  // and the stitching trace linked to itself.
  auto ps = predict("local function mk() return function() end end\nlocal function h(s)\n"
                    "  local r = string.gsub(s, 'a', 'b')\n  if r == 'zzz' then mk() end\n  return r\nend\n"
                    "local t = {}\nfor i = 1, 50000 do\n  h('abc')\n  t[1] = function() return 1 end\nend\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 10, "NYIBC:FNEW"));
  CHECK(find(ps, 10, "NYIBC:FNEW")->severity == Severity::Blacklist);
  CHECK(find(ps, 10, "NYIBC:FNEW")->confidence == Confidence::Certain);
}

TEST_CASE("a blocker a stitching helper calls is an error by the stitch, and says so", "[rules][hotness]") {
  // Audit 55: `-jv` shows one abort of the stitched trace (`(1/stitch)`),
  // which links the stitching trace to itself, then mk's own entry's
  // aborts, never blacklisted: the start is not what blacklists.
  auto ps = predict("local function mk() return function() end end\nlocal function h(s)\n"
                    "  local r = string.gsub(s, 'a', 'b')\n  mk()\n  return r\nend\n"
                    "for i = 1, 50000 do\n  h('abc')\nend\n");
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 1, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->severity == Severity::Blacklist);
  CHECK(fnew->reasoning.find("the call of string.gsub at line 3 in h stitches the trace on every pass before it") !=
        std::string::npos);
  CHECK(fnew->reasoning.find("the trace start is blacklisted") == std::string::npos);
}

TEST_CASE("a helper that tail-calls a stitching builtin stitches its caller's trace", "[rules][hotness]") {
  // Audit 56, `-jv`: `stitch os.time`, then one abort of `(1/stitch)` at the
  // closure: the stitching trace links to itself, and its own trace compiles.
  for (const char* turns : {"5000", "50000"}) {
    INFO(turns);
    auto ps = predict(std::string("local function now() return os.time() end\nlocal t = {}\nfor i = 1, ") + turns +
                      " do\n  local ts = now()\n  t[1] = function() return ts end\nend\n");
    INFO(listed(ps));
    const Prediction* fnew = find(ps, 5, "NYIBC:FNEW");
    REQUIRE(fnew);
    CHECK(fnew->severity == Severity::Blacklist);
    CHECK(fnew->reasoning.find("the call of now (its tail call of os.time at line 1) at line 4 stitches the trace") !=
          std::string::npos);
  }
  // A tail call of a builtin the recorder compiles returns as a return
  // does: the stitch inside clean still reaches the closure.
  auto lower = predict("local function clean(s) local r = string.gsub(s, 'a', 'b') return r end\n"
                       "local function norm(s) return clean(s):lower() end\nlocal t = {}\nfor i = 1, 50000 do\n"
                       "  norm('abc')\n  t[1] = function() return 1 end\nend\n");
  INFO(listed(lower));
  REQUIRE(find(lower, 6, "NYIBC:FNEW"));
  CHECK(find(lower, 6, "NYIBC:FNEW")->severity == Severity::Blacklist);
  CHECK(find(lower, 6, "NYIBC:FNEW")->reasoning.find("stitches the trace on every pass before it") !=
        std::string::npos);
}

TEST_CASE("a call behind a branch before a blocker splits only the passes that take it", "[rules][hotness]") {
  // Audit 56: `if debug_on then print(...) end` before a closure in a loop
  // of 50,000: `-jv` shows 11 aborts at the loop's start, blacklisted, with
  // debug off; with it on (audit 57) one abort, then the self-linked
  // stitch. The data decides: a warning, likely.
  auto ps = predict("local debug_on = os.getenv('DEBUG')\nlocal t = {}\nfor i = 1, 50000 do\n"
                    "  if debug_on then print('frame', i) end\n  t[1] = function() return i end\nend\n");
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 5, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->severity == Severity::Warn);
  CHECK(fnew->confidence == Confidence::Likely);
  CHECK(fnew->reasoning.find("the call at line 4 may split the trace, and a branch can go around it") !=
        std::string::npos);
  // On every pass print stitches, and the trace resumed after it aborts here:
  // the self-linked stitch, an error as well.
  auto always =
      predict("local t = {}\nfor i = 1, 50000 do\n  print('frame', i)\n  t[1] = function() return i end\nend\n");
  INFO(listed(always));
  REQUIRE(find(always, 4, "NYIBC:FNEW"));
  CHECK(find(always, 4, "NYIBC:FNEW")->severity == Severity::Blacklist);
}

TEST_CASE("a pairs loop over two keys forms a trace of its own: no error after it", "[rules][hotness]") {
  // Audit 57, `-jv`: the stitched trace links to the pairs loop's trace
  // (`(5/stitch) ... -> 1`), and the closure aborts in side traces only.
  auto ps = predict("local function now() return os.time() end\nlocal DEFAULTS = {mode = 'r', size = 3}\n"
                    "local jobs = {}\nfor i = 1, 5000 do\n  local stamp = now()\n  local opts = {}\n"
                    "  for k, v in pairs(DEFAULTS) do opts[k] = v end\n"
                    "  jobs[#jobs + 1] = function() return opts, stamp end\nend\n");
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 8, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->severity == Severity::Warn);
  // A numeric loop of two turns is still unrolled into the trace.
  auto two = predict("local function now() return os.time() end\nlocal jobs = {}\nfor i = 1, 5000 do\n"
                     "  local stamp = now()\n  local s = 0\n  for j = 1, 2 do s = s + j end\n"
                     "  jobs[#jobs + 1] = function() return s, stamp end\nend\n");
  INFO(listed(two));
  REQUIRE(find(two, 7, "NYIBC:FNEW"));
  CHECK(find(two, 7, "NYIBC:FNEW")->severity == Severity::Blacklist);
}

TEST_CASE("no error where a stitch on the way around ends the root trace, or a pcall of a builtin does",
          "[rules][hotness]") {
  // Audit 58, `-jv`: the other arm's `tostring(acc)` stitches and the root
  // trace compiles; the closure aborts only side traces (4, then the exit
  // is left to the interpreter).
  auto arm = predict("local acc = {}\nlocal n = 0\nfor i = 1, 50000 do\n  if i % 10 == 0 then\n"
                     "    local f = function() return i end\n    n = n + f()\n  else\n"
                     "    n = n + #tostring(acc)\n  end\nend\n");
  INFO(listed(arm));
  REQUIRE(find(arm, 5, "NYIBC:FNEW"));
  CHECK(find(arm, 5, "NYIBC:FNEW")->severity == Severity::Warn);
  CHECK(find(arm, 5, "NYIBC:FNEW")->reasoning.find("a call in the loop body may split the trace before it") !=
        std::string::npos);
  // `pcall(tostring, t)` over a table ends the trace there (`TRACE 1 ...
  // return`): nothing after it is recorded.
  auto protectedCall = predict("local t = {}\nlocal n = 0\nfor i = 1, 50000 do\n  local ok, s = pcall(tostring, t)\n"
                               "  local f = function() return s end\n  n = n + #f()\nend\n");
  INFO(listed(protectedCall));
  REQUIRE(find(protectedCall, 5, "NYIBC:FNEW"));
  CHECK(find(protectedCall, 5, "NYIBC:FNEW")->severity == Severity::Warn);
  CHECK(find(protectedCall, 5, "NYIBC:FNEW")->confidence == Confidence::Likely);
}

TEST_CASE("an inner loop before a site: a route around the site, a short or unknown inner loop, one that always aborts",
          "[rules][hotness]") {
  // The closure behind `if x < 0`, the UCLO after it on every pass: `-jv`
  // shows 4 side-trace aborts at the UCLO, none at the closure (audit 59).
  auto around = predict("local s = 0\nlocal keep\nfor i = 1, 100000 do\n  for j = 1, 100 do s = s + j end\n"
                        "  local x = i\n  if x < 0 then keep = function() return x end end\n  s = s + x\nend\n");
  INFO(listed(around));
  REQUIRE(find(around, 6, "NYIBC:FNEW"));
  CHECK(find(around, 6, "NYIBC:FNEW")->confidence == Confidence::Likely);
  CHECK(find(around, 6, "NYIBC:FNEW")->reasoning.find("runs into another abort") != std::string::npos);
  // An inner loop over a list of two: the root trace of the outer loop
  // runs through it and the UCLO blacklists it (`-jv`: 10 aborts, then
  // "blacklisted"); over a longer list it stops there. Not a sure
  // warning, nor a sure error.
  auto shortList = predict("local handlers = {1, 2}\nlocal s = 0\nfor i = 1, 100000 do\n"
                           "  for j = 1, #handlers do s = s + handlers[j] end\n  local x = i\n"
                           "  if x < 0 then handlers[1] = function() return x end end\n  s = s + x\nend\n");
  INFO(listed(shortList));
  const Prediction* uclo = find(shortList, 7, "NYIBC:UCLO");
  REQUIRE(uclo);
  CHECK(uclo->confidence == Confidence::Likely);
  CHECK(uclo->severity == Severity::Warn);
  CHECK(uclo->reasoning.find("once or twice (an empty or short list), the root trace runs through it") !=
        std::string::npos);
  // A break on the inner loop's second turn: the same (audit 61, `-jv`:
  // 10 UCLO aborts, the outer start blacklisted on both builds).
  auto early = predict("local s = 0\nlocal keep\nfor i = 1, 100000 do\n  for j = 1, 100 do\n"
                       "    if j > 1 then break end\n    s = s + j\n  end\n  local x = i\n"
                       "  if x < 0 then keep = function() return x end end\n  s = s + x\nend\nprint(s)\n");
  INFO(listed(early));
  const Prediction* closeEarly = find(early, 10, "NYIBC:UCLO");
  REQUIRE(closeEarly);
  CHECK(closeEarly->confidence == Confidence::Likely);
  CHECK(closeEarly->reasoning.find("a way out of it early") != std::string::npos);
  // Every turn of the inner loop makes a closure: no trace gets past it,
  // and the UCLO after it is never recorded (`-jv`: aborts at line 6 only).
  auto inner = predict("local fs = {}\nlocal s = 0\nfor i = 1, 60000 do\n  local x = i\n  for j = 1, 3 do\n"
                       "    fs[j] = function() return x end\n  end\n  s = s + x\nend\nprint(s)\n");
  INFO(listed(inner));
  REQUIRE(find(inner, 6, "NYIBC:FNEW"));
  CHECK(find(inner, 6, "NYIBC:FNEW")->confidence == Confidence::Certain);
  const Prediction* after = find(inner, 8, "NYIBC:UCLO");
  REQUIRE(after);
  CHECK(after->confidence == Confidence::Likely);
  CHECK(after->reasoning.find("every turn of it aborts at line 6 first") != std::string::npos);
}

TEST_CASE("a route around a tail call through a return placed before it names the return", "[rules][hotness]") {
  // LuaJIT closes upvalues before returns, and puts `return slow(x)` after
  // the function's last return: the route around the call found first is
  // that return (audit 62: the reasoning named line 12 "a branch").
  auto ps = predict("local flag = os.getenv('LJCHECK_NEVER_SET')\nlocal function slow(x)\n"
                    "  local f = function() return x end\n  return f()\nend\nlocal function step(x)\n"
                    "  if flag then\n    return slow(x)\n  end\n  local t = function() end\n  return x\nend\n"
                    "local s = 0\nfor i = 1, 200000 do s = s + step(i) end\n");
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 3, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->confidence == Confidence::Likely);
  CHECK(fnew->reasoning.find("a path that returns at line 11 can go around the call at line 8") != std::string::npos);
}

TEST_CASE("a tail call behind a branch after a stitch is likely", "[rules][hotness]") {
  // Audit 64: `return print(...)` behind `if st.verbose`, never true, after
  // os.clock() on every path: `-jv` shows the stitch and no RETURN at all.
  auto ps = predict("local state = { verbose = false, ticks = 0 }\n"      // 1
                    "local function tick(st)\n"                           // 2
                    "  local now = os.clock()\n"                          // 3
                    "  st.ticks = st.ticks + 1\n"                         // 4
                    "  if st.verbose then\n"                              // 5
                    "    return print('tick', st.ticks, now)\n"           // 6
                    "  end\n"                                             // 7
                    "end\n"                                               // 8
                    "for frame = 1, 100000 do tick(state) end\n");        // 9
  INFO(listed(ps));
  const Prediction* ret = find(ps, 9, "RETURN:print");
  REQUIRE(ret);
  CHECK(ret->confidence == Confidence::Likely);
  CHECK(ret->reasoning.find("a branch of tick can go around the tail call") != std::string::npos);
  // Both arms of the branch tail-call it: every call makes one (audit 67:
  // `-jv` stitches on every call; "a branch can go around" was false).
  auto arms = predict("local function now(utc)\n"                          // 1
                      "  if utc then return os.time() else return os.time() end\n"  // 2
                      "end\n"                                               // 3
                      "local t = 0\n"                                       // 4
                      "for frame = 1, 60000 do t = now(false) end\n");      // 5
  INFO(listed(arms));
  const Prediction* both = find(arms, 5, "STITCH:os.time");
  REQUIRE(both);
  CHECK(both->confidence == Confidence::Certain);
  CHECK(both->reasoning.find("can go around") == std::string::npos);
  // On every path, the same RETURN stays certain.
  auto every = predict("local function tick(st)\n  local now = os.clock()\n  return print('tick', now)\nend\n"
                       "for frame = 1, 100000 do tick(1) end\n");
  INFO(listed(every));
  const Prediction* sure = find(every, 5, "RETURN:print");
  REQUIRE(sure);
  CHECK(sure->confidence == Confidence::Certain);
}

TEST_CASE("a multi-value ... in a short loop of a called vararg function does not surely blacklist", "[rules][hotness]") {
  // Audit 64: `for rep = 1, 3 do local args = { ... } end` in a function a
  // loop calls 50,000 times: the loop's own traces abort at the VARG, but
  // once they leave it (LLEAVE) the caller's trace unrolls it and records
  // the `...`: `-jv` shows 2 to 5 aborts and no blacklisting on either
  // build. loopunroll (15) counts back edges, so 16 turns still unroll
  // (audit 67: blacklisted in about two runs of three); with 17 the start
  // is blacklisted in every run.
  auto source = [](int turns) {
    return "local function build(fmt, ...)\n"                              // 1
           "  local out = {}\n"                                            // 2
           "  for rep = 1, " + std::to_string(turns) + " do\n"             // 3
           "    local args = { ... }\n"                                    // 4
           "    out[rep] = args[1]\n"                                      // 5
           "  end\n"                                                       // 6
           "  return out\n"                                                // 7
           "end\n"                                                         // 8
           "for i = 1, 50000 do build('%d', i, i + 1) end\n";             // 9
  };
  auto shortLoop = predict(source(3));
  INFO(listed(shortLoop));
  const Prediction* varg = find(shortLoop, 4, "NYIBC:VARG");
  REQUIRE(varg);
  CHECK(varg->severity == Severity::Warn);
  CHECK(varg->confidence == Confidence::Likely);
  CHECK(varg->reasoning.find("that loop turns 3 times, few enough for a trace of build's caller to unroll it") !=
        std::string::npos);
  auto unrolled = predict(source(16));
  INFO(listed(unrolled));
  const Prediction* edge = find(unrolled, 4, "NYIBC:VARG");
  REQUIRE(edge);
  CHECK(edge->confidence == Confidence::Likely);
  CHECK(edge->reasoning.find("(at most 16 turns)") != std::string::npos);
  // A caller whose loop aborts ahead of the call never gets there to
  // unroll it (audit 67: a closure made before the call; the VARG start is
  // blacklisted in every run).
  auto blocked = predict("local function emit(t, ...)\n"                        // 1
                         "  for i = 1, 3 do\n"                                   // 2
                         "    local args = { ... }\n"                            // 3
                         "    t.n = t.n + #args\n"                               // 4
                         "  end\n"                                               // 5
                         "end\n"                                                 // 6
                         "local t, done = { n = 0 }, 0\n"                        // 7
                         "for ev = 1, 60000 do\n"                                // 8
                         "  local cb = function() done = done + 1 end\n"         // 9
                         "  emit(t, 'event', ev)\n"                              // 10
                         "  cb()\n"                                              // 11
                         "end\n");                                               // 12
  INFO(listed(blocked));
  const Prediction* first = find(blocked, 3, "NYIBC:VARG");
  REQUIRE(first);
  CHECK(first->severity == Severity::Blacklist);
  CHECK(first->confidence == Confidence::Certain);
  auto longLoop = predict(source(17));
  INFO(listed(longLoop));
  const Prediction* sure = find(longLoop, 4, "NYIBC:VARG");
  REQUIRE(sure);
  CHECK(sure->severity == Severity::Blacklist);
  CHECK(sure->confidence == Confidence::Certain);
}

TEST_CASE("a certain site behind a pcall of a function that raises an error is likely", "[rules][hotness]") {
  // Audit 68: `pcall(must, nil, "missing")` raises on every pass, so the
  // trace ends in must and never records the `pcall(error, ...)` after it:
  // `-jv` shows only the loop's trace ending at must's error.
  auto ps = predict("local function parse_int(s)\n"                              // 1
                    "  local n = tonumber(s)\n"                                   // 2
                    "  if not n then error('not a number: ' .. s) end\n"         // 3
                    "  return n\n"                                                // 4
                    "end\n"                                                       // 5
                    "local function must(v, msg)\n"                               // 6
                    "  if v == nil then error(msg, 2) end\n"                      // 7
                    "  return v\n"                                                // 8
                    "end\n"                                                       // 9
                    "local cases = { '12', '7', '40' }\n"                         // 10
                    "local passed, failed = 0, 0\n"                               // 11
                    "for i = 1, 60000 do\n"                                       // 12
                    "  local ok, n = pcall(parse_int, cases[i % 3 + 1])\n"        // 13
                    "  if ok then passed = passed + n end\n"                      // 14
                    "  local ok3 = pcall(must, nil, 'missing')\n"                 // 15
                    "  if not ok3 then failed = failed + 1 end\n"                 // 16
                    "  local ok4, msg = pcall(error, { code = i })\n"             // 17
                    "  if not ok4 then passed = passed + 1 end\n"                 // 18
                    "end\n");                                                     // 19
  INFO(listed(ps));
  const Prediction* after = find(ps, 17, "RETURN:error");
  REQUIRE(after);
  CHECK(after->confidence == Confidence::Likely);
  CHECK(after->reasoning.find("an error raised at line 3 in parse_int ends the trace there on the passes that "
                              "raise it") != std::string::npos);
}

TEST_CASE("an inner loop a branch goes around stops the root trace only on the passes that enter it",
          "[rules][hotness]") {
  // Audit 77: `if qn >= 32 then for i = 1, qn do ... end end` before a UCLO
  // every pass runs: most passes skip the inner loop. Here the closure at
  // line 3 aborts every pass first (`-jv`: 11 aborts there, the start
  // blacklisted), so only the inner loop's side traces reach the UCLO (4
  // aborts of `(1/3)`); without it, see the next case.
  auto ps = predict("local q, qn = {}, 0\n"                                              // 1
                    "for frame = 1, 60000 do\n"                                           // 2
                    "  q[#q + 1] = function() return frame end\n"                         // 3
                    "  qn = qn + 1\n"                                                     // 4
                    "  if qn >= 32 then\n"                                                // 5
                    "    for i = 1, qn do q[i] = nil end\n"                               // 6
                    "    qn = 0\n"                                                        // 7
                    "  end\n"                                                             // 8
                    "end\n");                                                             // 9
  INFO(listed(ps));
  const Prediction* uclo = find(ps, 8, "NYIBC:UCLO");  // the VM stamps it with the inner block's last line
  REQUIRE(uclo);
  CHECK(uclo->reasoning.find("every pass aborts at line 3 before this one") != std::string::npos);
  CHECK(uclo->reasoning.find("comes first in each turn") == std::string::npos);
  // The closure behind a branch of its own: a root trace that records a
  // pass around both the closure and the inner loop reaches the UCLO.
  auto behind = predict("local q, qn = {}, 0\n"
                        "for frame = 1, 60000 do\n"
                        "  if frame % 3 == 0 then q[#q + 1] = function() return frame end end\n"
                        "  qn = qn + 1\n"
                        "  if qn >= 32 then\n"
                        "    for i = 1, qn do q[i] = nil end\n"
                        "    qn = 0\n"
                        "  end\n"
                        "end\n");
  INFO(listed(behind));
  const Prediction* u = nullptr;
  for (const auto& p : behind)
    if (p.reasonId.str() == "NYIBC:UCLO" && !p.masked()) u = &p;
  REQUIRE(u);
  CHECK(u->reasoning.find("every pass aborts at line") == std::string::npos);
}

// A branch that skips a helper's call and runs into a closure of its own:
// every pass aborts, but the passes that take that way never enter the
// helper, so its closure is no `error` and not certain (the helper may
// never run: `flag` is never set here, and `-jv` shows only the closure at
// line 10 aborting).
TEST_CASE("a call a branch skips into another abort does not make its callee's blocker certain", "[rules][hotness]") {
  auto ps = predict("local flag = os.getenv('LJCHECK_NEVER_SET')\nlocal function slow(x)\n"
                    "  local f = function() return x end\n  return f()\nend\nlocal function step(x)\n"
                    "  if flag then\n    slow(x)\n  end\n  local t = function() end\n  return x\nend\n"
                    "local s = 0\nfor i = 1, 200000 do s = s + step(i) end\n");
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 3, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->severity == Severity::Warn);
  CHECK(fnew->confidence == Confidence::Likely);
  CHECK(fnew->reasoning.find("a branch at line 7 can go around the call at line 8") != std::string::npos);
  REQUIRE(find(ps, 10, "NYIBC:FNEW"));
  CHECK(find(ps, 10, "NYIBC:FNEW")->severity == Severity::Blacklist);
}

TEST_CASE("a call that may split the trace in a helper before the call of a closure maker keeps it a warning",
          "[rules][hotness]") {
  // soap.lua's decode (audit 106): `parse(doc)` then `list_children(obj)`,
  // whose closure the loop's trace may never reach (lom.parse stitched at
  // C methods and aborted in its own frame; no start was blacklisted). Its
  // own entry's 50,000 calls are fewer than the 88,973 that blacklist it.
  // Here parse's gmatch stitches, and the trace that resumes after it does
  // reach the closure (`ljcheck run` then shows the stitching trace linked
  // to itself): what the resumed trace meets the bytecode of a callee does
  // not settle, as for such a call in a loop body: a warning.
  auto ps = predict(
      "local function list_children(obj)\n  local i = 0\n  return function() i = i + 1 return obj[i] end\nend\n"
      "local function decode(doc, parse)\n  local obj = parse(doc)\n  local lc = list_children(obj)\n  return lc()\nend\n"
      "local function parse(doc)\n  local t = {}\n  for w in doc:gmatch('%a+') do t[#t + 1] = w end\n  return t\nend\n"
      "local n = 0\nfor i = 1, 50000 do n = n + #decode('ab', parse) end\n");
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 3, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->severity == Severity::Warn);
  CHECK(fnew->reasoning.find("the call at line 6 in decode comes before it") != std::string::npos);
  CHECK(fnew->reasoning.find("list_children's own entry, whose traces get here with no split, has 50000 calls") !=
        std::string::npos);
  // The helper calls it twice with no split before the first call: the
  // root trace gets there, and the loop's start is blacklisted.
  auto direct = predict(
      "local function list_children(obj)\n  local i = 0\n  return function() i = i + 1 return obj[i] end\nend\n"
      "local function decode(doc, parse)\n  local lc = list_children(doc)\n  local obj = parse(doc)\n"
      "  return lc(), list_children(obj)\nend\n"
      "local function parse(doc)\n  local t = {}\n  for w in doc:gmatch('%a+') do t[#t + 1] = w end\n  return t\nend\n"
      "local n = 0\nfor i = 1, 50000 do n = n + #decode('ab', parse) end\n");
  INFO(listed(direct));
  REQUIRE(find(direct, 3, "NYIBC:FNEW"));
  CHECK(find(direct, 3, "NYIBC:FNEW")->severity == Severity::Blacklist);
}

TEST_CASE("a route around a closure through a helper that may split the trace aborts nothing for sure",
          "[rules][hotness]") {
  // Audit 107: the other route calls `slug(label)`, whose gsub stitches:
  // the root trace ends there, compiled, and the closure's aborts come in
  // side traces (`-jv`: 4 of them, nothing blacklisted). A warning.
  auto split = predict(
      "local pending = {}\nlocal function slug(s) return (s:gsub(' ', '-')) end\nfor i = 1, 60000 do\n"
      "  local label = 'event ' .. (i % 7)\n  if i % 5 == 0 then\n    pending[i % 32 + 1] = function() return label end\n"
      "  else\n    label = slug(label)\n  end\nend\n");
  INFO(listed(split));
  REQUIRE(find(split, 6, "NYIBC:FNEW"));
  CHECK(find(split, 6, "NYIBC:FNEW")->severity == Severity::Warn);
  // A helper whose calls the recorder compiles (io.write) is inlined: the
  // route aborts at the UCLO, and the loop is blacklisted either way
  // (the same audit: 11 aborts, blacklisted in all four runs).
  auto inlined = predict(
      "local pending = {}\nlocal function norm(s) io.write('') return s end\nfor i = 1, 60000 do\n"
      "  local label = 'event ' .. (i % 7)\n  if i % 5 == 0 then\n    pending[i % 32 + 1] = function() return label end\n"
      "  else\n    label = norm(label)\n  end\nend\n");
  INFO(listed(inlined));
  REQUIRE(find(inlined, 6, "NYIBC:FNEW"));
  CHECK(find(inlined, 6, "NYIBC:FNEW")->severity == Severity::Blacklist);
}

TEST_CASE("a site only a side trace of a looping callee may reach is likely, whatever its runs",
          "[rules][confidence][masking]") {
  // Audit 109: `with_retry(3, fn)` returns from its loop's first turn, so
  // no trace of that loop ever exits into the caller, and every pass aborts
  // at the closure made as its argument: `-jv` never shows the upvalue
  // close at the end of the body, at 30,000, 40,000 or 50,000 turns.
  const std::string retry =
      "local function with_retry(tries, fn)\n"
      "  for attempt = 1, tries do\n"
      "    local ok, res = pcall(fn)\n"
      "    if ok then return res end\n"
      "  end\n"
      "  error('gave up')\n"
      "end\n"
      "local acc = 0\n"
      "for i = 1, 40000 do\n"
      "  local s = tostring(i)\n"
      "  acc = acc + with_retry(3, function() return #s end)\n"
      "end\n";
  auto ps = predict(retry, Confidence::Possible);
  INFO(listed(ps));
  const Prediction* close = find(ps, 11, "NYIBC:UCLO");
  REQUIRE(close);
  CHECK(close->confidence == Confidence::Likely);
  CHECK(close->reasoning.find("only a trace that resumes after that call") != std::string::npos);
  // A callee whose loop turns three times on each call: the side trace from
  // its exit returns here on every run (`-jv`: 4 aborts at the close).
  const std::string each =
      "local function each3(fn)\n"
      "  local r = 0\n"
      "  for k = 1, 3 do r = r + fn(k) end\n"
      "  return r\n"
      "end\n"
      "local acc = 0\n"
      "for i = 1, 40000 do\n"
      "  local s = tostring(i)\n"
      "  acc = acc + each3(function(k) return #s + k end)\n"
      "end\n";
  auto sure = predict(each, Confidence::Possible);
  INFO(listed(sure));
  const Prediction* closed = find(sure, 9, "NYIBC:UCLO");
  REQUIRE(closed);
  CHECK(closed->confidence == Confidence::Certain);
}
