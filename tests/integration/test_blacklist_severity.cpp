// Lint's `error` (blacklist) severity against what the collector sees: the
// same loop, whose trace aborts at a closure on every try, turned often
// enough to blacklist its start (44,500 turns: the profile's penalty
// constants say 44,487 with the largest random bits) and too few (36,800:
// the smallest random bits need 36,894). Lint says `error` for the first and
// `warning` for the second; the run blacklists the first and not the second,
// under `ljcheck run` and in OpenResty's luajit2 through require("ljcheck").
#include <catch2/catch.hpp>

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "../support/cli.h"
#include "ljcheck/profile.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::readFile;
using ljcheck::testing::runInLuajitHost;
using ljcheck::testing::runLjcheck;
using ljcheck::testing::writeFile;
using ljcheck::RecorderProfile;
using ljcheck::findProfile;
using nlohmann::json;

namespace {

struct Outcome {
  std::string predicted;   // the lint severity of the FNEW on line 3
  long blacklisted = -1;   // the run's count of blacklisted starts
  std::string observed;    // the run's severity of that site
};

const char* const kClosureEveryTurn = "t[i % 7 + 1] = function() return i end";

// Lints `script` and runs it under `ljcheck run`: lint's severity of the
// site `reasonId` at `line`, the run's count of blacklisted starts and its
// severity of that site.
Outcome lintAndRunScript(const std::string& script, const std::string& reasonId, int line) {
  Outcome o;
  ProcessResult lint = runLjcheck({"lint", "--format", "json", "--fail-on", "none", script});
  INFO(lint.err);
  REQUIRE(lint.exitCode == 0);
  const json predictions = json::parse(lint.out).at("predictions");
  for (const auto& p : predictions)
    if (p.at("reasonId") == reasonId && p.at("line") == line) o.predicted = p.at("severity").get<std::string>();
  const std::string report = script.substr(0, script.size() - 4) + "-run.json";
  ProcessResult run = runLjcheck({"run", "--json", report, "--", script});
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  const json r = json::parse(readFile(report));
  o.blacklisted = r.at("blacklisted").get<long>();
  for (const auto& s : r.at("sites"))
    if (s.at("reasonId") == reasonId && s.at("line") == line) o.observed = s.at("severity").get<std::string>();
  return o;
}

// `body` is line 3, inside the loop.
Outcome lintAndRun(const std::string& dir, int turns, const std::string& body = kClosureEveryTurn,
                   const std::string& name = "loop") {
  const std::string script = dir + "/" + name + std::to_string(turns) + ".lua";
  writeFile(script, "local t = {}\nfor i = 1, " + std::to_string(turns) + " do\n  " + body + "\nend\n");
  return lintAndRunScript(script, "NYIBC:FNEW", 3);
}

// The same loop in a host that loads the module: the report's count of
// blacklisted starts.
long blacklistedInHost(const std::string& dir, const std::string& luajit, int turns) {
  const std::string script = dir + "/host" + std::to_string(turns) + ".lua";
  writeFile(script, "local s = require('ljcheck').trace()\nlocal t = {}\nfor i = 1, " + std::to_string(turns) +
                        " do t[i % 7 + 1] = function() return i end end\nio.write(s:stop().blacklisted)\n");
  ProcessResult r = runInLuajitHost(luajit, script);
  INFO(r.err);
  REQUIRE(r.exitCode == 0);
  return std::stol(r.out);
}

// Lints the project in `dir`: the severity and reasoning of the FNEW at
// `line` of `path` (empty when there is none).
struct Linted {
  std::string severity, reasoning;
};
Linted lintProject(const std::string& dir, const std::string& path, int line) {
  ProcessResult lint = runLjcheck({"lint", "--format", "json", "--fail-on", "none", "--root", dir, dir});
  INFO(lint.out << lint.err);
  REQUIRE(lint.exitCode == 0);
  Linted out;
  const json predicted = json::parse(lint.out);
  for (const auto& p : predicted.at("predictions"))
    if (p.at("reasonId") == "NYIBC:FNEW" && p.at("path") == path && p.at("line") == line) {
      out.severity = p.at("severity").get<std::string>();
      out.reasoning = p.at("reasoning").get<std::string>();
    }
  return out;
}

// Runs `script` under `ljcheck run`: the report's count of blacklisted starts.
long blacklistedRunning(const std::string& script) {
  const std::string report = script.substr(0, script.size() - 4) + "-run.json";
  ProcessResult run = runLjcheck({"run", "--json", report, "--", script});
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  return json::parse(readFile(report)).at("blacklisted").get<long>();
}

}  // namespace

TEST_CASE("error means the run blacklists the loop, and a certain abort with too few runs is a warning",
          "[cli][lint][run][blacklist]") {
  const std::string dir = ljcheck::testing::scratchDirectory("blacklist-severity");
  Outcome many = lintAndRun(dir, 44500);
  CHECK(many.predicted == "blacklist");
  CHECK(many.blacklisted == 1);
  CHECK(many.observed == "blacklist");
  Outcome few = lintAndRun(dir, 36800);
  CHECK(few.predicted == "warn");
  CHECK(few.blacklisted == 0);
  CHECK(few.observed == "warn");
}

TEST_CASE("OpenResty's luajit2 blacklists at the same count: its constants are the same", "[module][blacklist][openresty]") {
  if (access(LJCHECK_LUAJIT2, X_OK) != 0) {
    WARN("skipped: " LJCHECK_LUAJIT2 " does not exist (scripts/setup.sh builds it)");
    return;
  }
  const RecorderProfile* openresty = findProfile("openresty-2.1-20230119");
  REQUIRE(openresty);
  CHECK(openresty->loopBlacklisting().runs == 44487);
  const std::string dir = ljcheck::testing::scratchDirectory("blacklist-severity-openresty");
  CHECK(blacklistedInHost(dir, LJCHECK_LUAJIT2, 44500) == 1);
  CHECK(blacklistedInHost(dir, LJCHECK_LUAJIT2, 36800) == 0);
}

// A closure behind a branch the loop takes every other turn: the root trace
// that records a turn without it compiles, and the closure then aborts side
// traces only. A closure after an inner loop: the root trace stops at the
// inner loop. Lint says `warning` at 60,000 turns, and the run blacklists
// nothing. A closure after a stitch is the other way round: the stitched
// trace's first abort blacklists what follows the call.
TEST_CASE("a blocker a branch can go around, or after an inner loop, is a warning, and the run does not blacklist",
          "[cli][lint][run][blacklist]") {
  const std::string dir = ljcheck::testing::scratchDirectory("blacklist-branch");
  Outcome branch = lintAndRun(dir, 60000, "if i % 2 == 0 then t[1] = function() return 1 end end", "branch");
  CHECK(branch.predicted == "warn");
  CHECK(branch.blacklisted == 0);
  CHECK(branch.observed == "warn");
  // After an inner loop of four turns: the root trace stops at that loop.
  Outcome after = lintAndRun(dir, 60000, "for j = 1, 4 do t[j] = j end t[1] = function() return 1 end", "after");
  CHECK(after.predicted == "warn");
  CHECK(after.blacklisted == 0);
  CHECK(after.observed == "warn");
}

// After a call the recorder stitches around on every turn, the root trace
// ends there (`stitch os.time`) and compiles; the trace stitched after the
// call aborts at the closure the first time it is recorded, and LuaJIT then
// links the stitching trace to itself: the rest of the body runs interpreted
// from then on. Lint says `error` for a loop that only gets hot (300 turns),
// and the run counts that start, the call, as blacklisted after one abort.
// Behind a branch the stitch is not on every turn: a warning.
TEST_CASE("a blocker after a stitch on every turn is an error: one abort blacklists the stitched trace",
          "[cli][lint][run][blacklist]") {
  const std::string dir = ljcheck::testing::scratchDirectory("blacklist-stitch");
  Outcome stitch = lintAndRun(dir, 300, "local x = os.time() t[1] = function() return x end", "stitch");
  CHECK(stitch.predicted == "blacklist");
  CHECK(stitch.blacklisted == 1);
  CHECK(stitch.observed == "blacklist");
  Outcome branch = lintAndRun(dir, 300, "if i % 2 == 0 then local x = os.time() end t[1] = function() return i end",
                              "stitch-branch");
  CHECK(branch.predicted == "warn");
}

// A function that creates a closure on every call, called from several sites
// of one loop: every trace that records a call aborts in it, so the loop runs
// the calls in the interpreter and each counts the function's entry down.
// Four sites in 30,000 turns make 120,000 calls, past the 88,973 that
// blacklist an entry (RecorderProfile::entryBlacklisting), though the loop's
// own 30,000 turns are too few for it: lint says `error`, and the run
// blacklists the entry. Two sites in 20,000 turns (40,000 calls) blacklist
// nothing: a warning.
TEST_CASE("calls from several sites of a loop add up on the callee's entry: error when they blacklist it",
          "[cli][lint][run][blacklist]") {
  const RecorderProfile* debian = findProfile("debian-2.1-20220320");
  REQUIRE(debian);
  CHECK(debian->entryBlacklisting().runs == 88973);
  CHECK(debian->entryBlacklisting().aborts == debian->loopBlacklisting().aborts);
  const std::string dir = ljcheck::testing::scratchDirectory("blacklist-entry");
  auto lintAndRunSites = [&](int sites, int turns, const std::string& before = "") {
    const std::string script = dir + "/sites" + std::to_string(sites) + (before.empty() ? "" : "-stitch") + ".lua";
    std::string calls;
    for (int k = 0; k < sites; ++k) calls += "  acc = acc + new(i + " + std::to_string(k) + ").x\n";
    // The closure on line 3 (`before`, when given, goes on line 2 and moves it to 3).
    writeFile(script, "local function new(x)\n" + (before.empty() ? "  local y = x\n" : before) +
                          "  local t = { x = x } function t.get() return t.x end\n"
                          "  return t\nend\nlocal acc = 0\nfor i = 1, " +
                          std::to_string(turns) + " do\n" + calls + "end\n");
    return lintAndRunScript(script, "NYIBC:FNEW", 3);
  };
  Outcome four = lintAndRunSites(4, 30000);
  CHECK(four.predicted == "blacklist");
  CHECK(four.blacklisted >= 1);
  Outcome two = lintAndRunSites(2, 20000);
  CHECK(two.predicted == "warn");
  CHECK(two.blacklisted == 0);
  // A call before the closure that the recorder stitches around: the
  // traces end there and compile, and the trace stitched after the call
  // aborts once and is blacklisted (the loop's and the entry's own starts
  // are not).
  Outcome stitched = lintAndRunSites(4, 30000, "  local now = os.time()\n");
  CHECK(stitched.predicted == "blacklist");
  CHECK(stitched.blacklisted >= 1);
}

// Counts flow on through a module in no cycle of requires (audit 100:
// array2d's map calling tablex.imap had "1 runs"): a loop of 100,000 turns
// calls layer.tag, which calls lib.counter once, whose closure aborts every
// trace: 100,000 runs, past the 44,487 that blacklist a start. Lint said a
// warning ("does not show how often it runs"); it says error, and the run
// blacklists.
TEST_CASE("a module function called by another module's function counts that function's runs",
          "[cli][lint][run][blacklist]") {
  const std::string dir = ljcheck::testing::scratchDirectory("blacklist-chain");
  writeFile(dir + "/main.lua",
            "package.path = arg[0]:gsub('main%.lua$', '?.lua') .. ';' .. package.path\n"
            "local layer = require('layer')\nlocal n = 0\n"
            "for i = 1, 100000 do n = n + layer.tag(i % 7)() end\nassert(n > 0)\n");
  writeFile(dir + "/layer.lua",
            "local lib = require('lib')\nlocal M = {}\nfunction M.tag(x)\n  return lib.counter(x)\nend\nreturn M\n");
  writeFile(dir + "/lib.lua", "local M = {}\nfunction M.counter(start)\n  local n = start\n"
                              "  return function() n = n + 1; return n end\nend\nreturn M\n");
  const Linted closure = lintProject(dir, "lib.lua", 4);
  CHECK(closure.severity == "blacklist");
  CHECK(closure.reasoning.find("called at line 4 of layer.lua, in code that runs at least 100000 times") !=
        std::string::npos);
  CHECK(blacklistedRunning(dir + "/main.lua") >= 1);
}

// The same chain, but the helper first calls another module's function that
// loops (audit 107: `mw.count_slashes(path)` before `mw.wrap(route)`): the
// loop's root trace links to that loop's trace and never records the
// closure; the closure aborts only side traces and wrap's own entry, whose
// 60,000 calls are fewer than the 88,973 that blacklist it. A warning, and
// the run blacklists nothing.
TEST_CASE("a module's closure maker called by a helper after a looping call is a warning",
          "[cli][lint][run][blacklist]") {
  const std::string dir = ljcheck::testing::scratchDirectory("blacklist-helper-split");
  writeFile(dir + "/main.lua",
            "package.path = arg[0]:gsub('main%.lua$', '?.lua') .. ';' .. package.path\n"
            "local mw = require('mw')\nlocal served = 0\nlocal function route(req) served = served + 1 end\n"
            "local function stage(path)\n  served = served + mw.count_slashes(path)\n  local h = mw.wrap(route)\n"
            "  return h(path)\nend\nfor i = 1, 60000 do stage('/api/v1/users/42/profile') end\nassert(served > 0)\n");
  writeFile(dir + "/mw.lua",
            "local M = {}\nfunction M.wrap(handler)\n  return function(req) return handler(req) end\nend\n"
            "function M.count_slashes(line)\n  local n = 0\n  for i = 1, #line do\n"
            "    if line:byte(i) == 47 then n = n + 1 end\n  end\n  return n\nend\nreturn M\n");
  const Linted closure = lintProject(dir, "mw.lua", 3);
  CHECK(closure.severity == "warn");
  CHECK(closure.reasoning.find("every call of it from other files is made by a function that first makes a call") !=
        std::string::npos);
  CHECK(blacklistedRunning(dir + "/main.lua") == 0);
}

// An inner loop whose own trace never loops (math.fmod ends it on every
// pass: RETURN) stops every root trace of the calling loop that enters it
// (LINNER), a stop the catalog calls benign: with 50,000 turns, past the
// 44,487 that blacklist a start, lint says warning, not note (audit 101),
// and the run blacklists the calling loop; with 3,000 it stays a note.
TEST_CASE("an inner loop that never loops blacklists a calling loop with runs enough: a warning",
          "[cli][lint][run][blacklist]") {
  const std::string dir = ljcheck::testing::scratchDirectory("blacklist-linner");
  auto lintAndRunTurns = [&](int turns) {
    const std::string script = dir + "/bits" + std::to_string(turns) + ".lua";
    writeFile(script, "local function bits(num)\n  local n = 0\n  while num > 0 do\n"
                      "    local rest = math.floor(math.fmod(num, 2))\n    n = n + rest\n"
                      "    num = (num - rest) / 2\n  end\n  return n\nend\nlocal total = 0\n"
                      "for k = 1, " + std::to_string(turns) + " do total = total + bits(k % 256) end\n"
                      "assert(total > 0)\n");
    return lintAndRunScript(script, "LINNER", 4);
  };
  // About one run in twenty blacklists nothing: LuaJIT hashes hot counters
  // by address into 64 slots, and with ASLR the loop's counter now and then
  // shares the inner loop's (40 runs of this program: 38 and 39 blacklisted,
  // at 50,000 and 100,000 turns alike). Up to three runs, then: the claim
  // holds when one blacklists.
  Outcome many = lintAndRunTurns(50000);
  for (int retry = 0; retry < 2 && many.blacklisted < 1; ++retry) many = lintAndRunTurns(50000);
  CHECK(many.predicted == "warn");
  CHECK(many.blacklisted >= 1);
  Outcome few = lintAndRunTurns(3000);
  CHECK(few.predicted == "info");
}

// A closure made as the argument of a call aborts the loop's trace before
// the call, on every pass (audits 97 and 98: `after(0.05, function() ...
// end)`, `once(function() ... end)`): the loop is blacklisted there, and
// the callee runs interpreted. Its own closure aborts only its entry's
// traces, which 50,000 calls do not blacklist (88,973 do): one blacklisted
// start, the loop's, and lint says `error` for the argument and `warning`
// for the callee's closure.
TEST_CASE("a closure made as a call's argument blacklists the loop, and the callee's closure is a warning",
          "[cli][lint][run][blacklist]") {
  const std::string dir = ljcheck::testing::scratchDirectory("blacklist-closure-argument");
  const std::string script = dir + "/after.lua";
  writeFile(script,
            "local queue = {}\nlocal function after(delay, fn)\n"
            "  local entry = { at = delay, run = function() return fn() end }\n"
            "  queue[#queue % 100 + 1] = entry\n  return entry\nend\nlocal score = 0\n"
            "for frame = 1, 50000 do\n  after(0.05, function() score = score + 1 end)\nend\n");
  ProcessResult lint = runLjcheck({"lint", "--format", "json", "--fail-on", "none", script});
  INFO(lint.err);
  REQUIRE(lint.exitCode == 0);
  const json predicted = json::parse(lint.out);
  std::string argument, callee;
  for (const auto& p : predicted.at("predictions")) {
    if (p.at("reasonId") != "NYIBC:FNEW") continue;
    if (p.at("line") == 9) argument = p.at("severity").get<std::string>();
    if (p.at("line") == 3) callee = p.at("severity").get<std::string>();
  }
  CHECK(argument == "blacklist");
  CHECK(callee == "warn");
  const std::string report = dir + "/after.json";
  ProcessResult run = runLjcheck({"run", "--json", report, "--", script});
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  const json r = json::parse(readFile(report));
  CHECK(r.at("blacklisted").get<long>() == 1);
  bool calleeAborts = false;
  for (const auto& site : r.at("sites"))
    if (site.at("reasonId") == "NYIBC:FNEW" && site.at("line") == 3) calleeAborts = site.at("count").get<long>() > 0;
  CHECK(calleeAborts);
}

// A loop blacklisted by a closure runs its 100,000 calls of a constructor
// that ends in `return setmetatable(...)` in the interpreter: every trace
// from the constructor's entry leaves at that tail call (LLEAVE), so its
// entry is blacklisted too, and the later loop that only builds points
// aborts there on every try (BLACKL at the constructor's line). Lint says so
// in the closure's reasoning; the run shows both (audit 76).
TEST_CASE("a blacklisted loop's interpreted calls blacklist a constructor that tail-calls setmetatable",
          "[cli][lint][run][blacklist]") {
  const std::string dir = ljcheck::testing::scratchDirectory("blacklist-interpreted-calls");
  const std::string script = dir + "/points.lua";
  writeFile(script,
            "local Point = {}\n"                                         // 1
            "Point.__index = Point\n"                                    // 2
            "function Point.new(x, y)\n"                                 // 3
            "  return setmetatable({ x = x, y = y }, Point)\n"           // 4
            "end\n"                                                      // 5
            "local keep = {}\n"                                          // 6
            "for i = 1, 100000 do\n"                                     // 7
            "  local p = Point.new(i, -i)\n"                             // 8
            "  keep[i % 8 + 1] = function() return p.x end\n"           // 9
            "end\n"                                                      // 10
            "local sum = 0\n"                                            // 11
            "for i = 1, 200000 do sum = sum + Point.new(i, 1).y end\n"   // 12
            "assert(sum == 200000)\n");
  ProcessResult lint = runLjcheck({"lint", "--format", "json", "--fail-on", "none", script});
  INFO(lint.err);
  REQUIRE(lint.exitCode == 0);
  std::string reasoning;
  const json predicted = json::parse(lint.out);
  for (const auto& p : predicted.at("predictions"))
    if (p.at("reasonId") == "NYIBC:FNEW" && p.at("line") == 9) {
      CHECK(p.at("severity") == "blacklist");
      reasoning = p.at("reasoning").get<std::string>();
    }
  CHECK(reasoning.find("its 100000 calls of Point.new at line 8") != std::string::npos);
  CHECK(reasoning.find("tail call of setmetatable") != std::string::npos);
  const std::string report = dir + "/run.json";
  ProcessResult run = runLjcheck({"run", "--include-benign", "--json", report, "--", script});
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  bool leaves = false, poisoned = false;
  const json observed = json::parse(readFile(report));
  for (const auto& s : observed.at("sites")) {
    if (s.at("reasonId") == "LLEAVE" && s.at("severity") == "blacklist") leaves = true;
    if (s.at("reasonId") == "BLACKL" && s.at("line") == 3) poisoned = true;
  }
  CHECK(leaves);
  CHECK(poisoned);
  // verify counts both as following the closure (lint's blacklistsEntry).
  const std::string lintReport = dir + "/lint.json";
  writeFile(lintReport, lint.out);
  ProcessResult verified = runLjcheck({"verify", "--format", "json", "--static", lintReport, "--runtime", report});
  REQUIRE(verified.exitCode == 0);
  const json joined = json::parse(verified.out);
  int following = 0;
  for (const auto& s : joined.at("sites"))
    if ((s.at("reasonId") == "BLACKL" || s.at("reasonId") == "LLEAVE") && s.at("status") == "follows" &&
        s.at("interpretedBehind").at("reasonId") == "NYIBC:FNEW")
      ++following;
  CHECK(following == 2);
  // At 60,000 calls the constructor's entry is not blacklisted: no clause.
  const std::string fewer = dir + "/fewer.lua";
  std::string text = readFile(script);
  text.replace(text.find("100000"), 6, "60000");
  writeFile(fewer, text);
  ProcessResult lintFewer = runLjcheck({"lint", "--format", "json", "--fail-on", "none", fewer});
  REQUIRE(lintFewer.exitCode == 0);
  const json predictedFewer = json::parse(lintFewer.out);
  for (const auto& p : predictedFewer.at("predictions"))
    if (p.at("reasonId") == "NYIBC:FNEW" && p.at("line") == 9)
      CHECK(p.at("reasoning").get<std::string>().find("Point.new") == std::string::npos);
}

TEST_CASE("a call that may end the loop's trace before another module's closure keeps it a warning",
          "[cli][lint][run][blacklist][project]") {
  // Audit 85: `pcall(validate.port, v)`, which raises on half the passes,
  // before `validate.record(...)` makes a closure, 50,000 turns: the loop's
  // root trace ends at the error, the closure aborts side traces and
  // record's entry only, and no start is blacklisted. Without the pcall
  // before it, the closure blacklists the loop: an error.
  const std::string dir = ljcheck::testing::scratchDirectory("split-before-module-call");
  writeFile(dir + "/validate.lua",
            "local M = {}\n"
            "function M.port(s)\n"
            "  local n = tonumber(s)\n"
            "  if not n or n > 65535 then error('invalid port: ' .. tostring(s), 2) end\n"
            "  return n\n"
            "end\n"
            "function M.record(rec)\n"
            "  local problems = {}\n"
            "  local add = function(msg) problems[#problems + 1] = msg end\n"
            "  if type(rec.name) ~= 'string' then add('name') end\n"
            "  return #problems == 0\n"
            "end\n"
            "return M\n");
  auto lintMain = [&](const std::string& body) {
    writeFile(dir + "/main.lua",
              "package.path = arg[0]:gsub('main%.lua$', '?.lua') .. ';' .. package.path\n"
              "local validate = require('validate')\n"
              "local ports, good = { '80', '70000' }, 0\n"
              "for i = 1, 50000 do\n" + body +
              "  if validate.record({ name = 'svc', port = i }) then good = good + 1 end\n"
              "end\n");
    ProcessResult lint = runLjcheck({"lint", "--format", "json", "--fail-on", "none", "--root", dir, dir});
    INFO(lint.err);
    REQUIRE(lint.exitCode == 0);
    const json report = json::parse(lint.out);
    for (const auto& p : report.at("predictions"))
      if (p.at("reasonId") == "NYIBC:FNEW" && p.at("path") == "validate.lua") return p;
    return json();
  };
  const json behind = lintMain("  local ok = pcall(validate.port, ports[i % 2 + 1])\n");
  REQUIRE(behind.is_object());
  CHECK(behind.at("severity") == "warn");
  CHECK(behind.at("reasoning").get<std::string>().find("may end the loop's trace there") != std::string::npos);
  const std::string report = dir + "/run.json";
  ProcessResult run = runLjcheck({"run", "--json", report, "--root", dir, "--", dir + "/main.lua"});
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  CHECK(json::parse(readFile(report)).at("blacklisted").get<long>() == 0);
  const json alone = lintMain("");
  REQUIRE(alone.is_object());
  CHECK(alone.at("severity") == "blacklist");
}

// A generator's loop runs as many turns as its consumer resumes it. Drained
// by a `for` over it, its closure aborts on every turn of the 60,000 and the
// generator's loop is blacklisted: lint says `error`. Taken 1,000 items at a
// time by a consumer that breaks out (30 times, 30,000 turns in all, audit
// 93), the loop never runs the turns its count shows: lint says `warning`,
// and the run blacklists nothing.
TEST_CASE("a closure in a generator's loop is an error when it is drained, a warning when its consumer can stop",
          "[cli][lint][run][blacklist]") {
  const std::string dir = ljcheck::testing::scratchDirectory("blacklist-generator");
  auto lintAndRunGenerator = [&](const std::string& name, const std::string& consumer) {
    const std::string script = dir + "/" + name + ".lua";
    // The closure on line 4.
    writeFile(script,
              "local function stream()\n  return coroutine.wrap(function()\n    for i = 1, 60000 do\n"
              "      coroutine.yield({ id = i, get = function() return i * 2 end })\n    end\n  end)\nend\n" +
                  consumer);
    Outcome o;
    ProcessResult lint = runLjcheck({"lint", "--format", "json", "--fail-on", "none", script});
    INFO(lint.err);
    REQUIRE(lint.exitCode == 0);
    const json predicted = json::parse(lint.out);  // kept: the loop reads into it
    for (const auto& p : predicted.at("predictions"))
      if (p.at("reasonId") == "NYIBC:FNEW" && p.at("line") == 4) o.predicted = p.at("severity").get<std::string>();
    const std::string report = dir + "/" + name + ".json";
    ProcessResult run = runLjcheck({"run", "--json", report, "--", script});
    INFO(run.err);
    REQUIRE(run.exitCode == 0);
    o.blacklisted = json::parse(readFile(report)).at("blacklisted").get<long>();
    return o;
  };
  Outcome drained = lintAndRunGenerator("drained", "local n = 0\nfor item in stream() do n = n + item.get() end\n");
  CHECK(drained.predicted == "blacklist");
  CHECK(drained.blacklisted >= 1);
  Outcome taken = lintAndRunGenerator(
      "taken", "local function take(gen, n)\n  local out = {}\n  for item in gen do\n    out[#out + 1] = item.get()\n"
               "    if #out >= n then break end\n  end\n  return out\nend\n"
               "local sum = 0\nfor rep = 1, 30 do local t = take(stream(), 1000) sum = sum + #t end\n");
  CHECK(taken.predicted == "warn");
  CHECK(taken.blacklisted == 0);
}

// Audit 108: binaryheap's `minHeap`, whose default comparator's closure
// makes it close upvalues before `return plainHeap(lt)`. Every trace
// through the helper aborts there first, so the loop is blacklisted at that
// upvalue close, and the closure two helpers below aborts only the helpers'
// own entry traces, 10 times in 50,000 calls: a warning, not an error.
TEST_CASE("a closure behind a helper's own abort, ahead of its call, is a warning, and the loop is blacklisted there",
          "[cli][lint][run][blacklist]") {
  const std::string dir = ljcheck::testing::scratchDirectory("blacklist-behind-helper-abort");
  writeFile(dir + "/heap.lua",
            "local function build(lt)\n"
            "  local h = {}\n"
            "  function h.push(v) return lt(v, v) end\n"
            "  return h\n"
            "end\n"
            "local function plain(lt)\n"
            "  local h = build(lt)\n"
            "  h.size = 0\n"
            "  return h\n"
            "end\n"
            "local function new(lt)\n"
            "  if not lt then lt = function(a, b) return a < b end end\n"
            "  return plain(lt)\n"
            "end\n"
            "local function cmp(a, b) return a < b end\n"
            "local n = 0\n"
            "for i = 1, 50000 do\n"
            "  local h = new(cmp)\n"
            "  if h.push(i) then n = n + 1 end\n"
            "end\n");
  const Linted closure = lintProject(dir, "heap.lua", 3);
  CHECK(closure.reasoning.find("abort first at the upvalue close at line 13 (in new)") != std::string::npos);
  Outcome ran = lintAndRunScript(dir + "/heap.lua", "NYIBC:FNEW", 3);
  CHECK(ran.predicted == "warn");
  CHECK(ran.blacklisted == 1);  // the loop, at the upvalue close
  CHECK(ran.observed == "warn");
}

// Audit 108: lua-http's headers, `h:append("date", os.date(...))` between
// the call that makes the object and the method whose closure aborts. The
// RETURN ends the loop's trace there on every pass, so the method runs
// interpreted and its closure aborts only its own entry's traces: a
// warning, as in one file, and the run blacklists nothing.
TEST_CASE("a RETURN in the loop before another module's method keeps the method's closure a warning",
          "[cli][lint][run][blacklist][project]") {
  const std::string dir = ljcheck::testing::scratchDirectory("blacklist-return-before-method");
  writeFile(dir + "/lib.lua",
            "local List = {}\nList.__index = List\nlocal M = {}\n"
            "function M.new() return setmetatable({ items = {}, n = 0 }, List) end\n"
            "function List:add(v)\n  self.n = self.n + 1\n  self.items[self.n] = v\nend\n"
            "function List:first()\n  local i = 0\n"
            "  local next = function() i = i + 1; return self.items[i] end\n"
            "  return next()\nend\nreturn M\n");
  writeFile(dir + "/main.lua",
            "package.path = arg[0]:gsub('main%.lua$', '?.lua') .. ';' .. package.path\n"
            "local lib = require('lib')\nlocal n = 0\nfor i = 1, 50000 do\n  local l = lib.new()\n"
            "  l:add(os.date('!%H', i))\n  n = n + #l:first()\nend\n");
  const Linted closure = lintProject(dir, "lib.lua", 11);
  CHECK(closure.severity == "warn");
  CHECK(closure.reasoning.find("may end the loop's trace there") != std::string::npos);
  CHECK(blacklistedRunning(dir + "/main.lua") == 0);
}
