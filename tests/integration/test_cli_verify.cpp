// `ljcheck verify` end to end: lint the fixtures, run some of them under the
// collector, and join the two on (location, reasonId).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <regex>
#include <algorithm>
#include <map>
#include <set>

#include "../support/cli.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::readFile;
using ljcheck::testing::writeFile;
using nlohmann::json;

using ljcheck::testing::runLjcheck;

namespace {

// Runs a fixture under the collector; returns where its runtime JSON went.
std::string runFixture(const std::string& dir, const std::string& fixture) {
  std::string json = dir + "/" + fixture.substr(fixture.rfind('/') + 1) + ".json";
  ProcessResult r = runLjcheck({"run", "--json", json, "--", fixture});
  INFO(r.err);
  REQUIRE(r.exitCode == 0);
  return json;
}

bool hasRow(const std::string& text, const std::string& pattern) {
  return std::regex_search(text, std::regex(pattern, std::regex::multiline));
}

}  // namespace

TEST_CASE("verify joins lint predictions with three runs of the fixtures", "[cli][verify]") {
  std::string dir = ljcheck::testing::scratchDirectory("verify-end-to-end");
  ProcessResult lint = runLjcheck({"lint", "--format", "json", "fixtures/"});
  REQUIRE(lint.exitCode == 1);
  writeFile(dir + "/lint.json", lint.out);
  std::vector<std::string> args = {"verify", "--static", dir + "/lint.json"};
  for (const char* fixture :
       {"fixtures/nyibc_fnew_in_loop.lua", "fixtures/stitch_string_gsub.lua", "fixtures/nyibc_varg_call.lua"}) {
    args.push_back("--runtime");
    args.push_back(runFixture(dir, fixture));
  }

  ProcessResult text = runLjcheck(args);
  INFO(text.out);
  CHECK(text.exitCode == 0);  // --fail-on defaults to none
  CHECK(hasRow(text.out, R"(^confirmed +fixtures/nyibc_fnew_in_loop\.lua:4 +NYIBC:FNEW +error +\d+ +\d+\.\d +blacklisted$)"));
  // A split keeps no code out of traces: its cost is not measured ("-").
  CHECK(hasRow(text.out, R"(^confirmed +fixtures/stitch_string_gsub\.lua:5 +STITCH:string\.gsub +note +\d+ +-$)"));
  CHECK(hasRow(text.out, R"(^reason +confirmed +missed +latent +precision +recall +unexercised +masked$)"));
  // Lint's severity against the runs' blacklisting: every error the runs observed (the
  // 50,000-turn closure; the others are in fixtures this test does not run) was blacklisted.
  CHECK(hasRow(text.out, R"(^lint severity +predicted +observed +blacklisted in a run$)"));
  CHECK(hasRow(text.out, R"(^error +\d+ +([1-9]\d*) +\1$)"));
  CHECK(hasRow(text.out, R"(^class +confirmed +missed +latent +precision +recall +unexercised +masked$)"));
  const std::string tally = R"( +\d+ +\d+ +\d+ +[01]\.\d\d +[01]\.\d\d +\d+ +\d+$)";
  CHECK(hasRow(text.out, "^NYIBC:FNEW" + tally));
  CHECK(hasRow(text.out, "^STITCH:string\\.gsub" + tally));
  CHECK(hasRow(text.out, "^blocker" + tally));
  CHECK(hasRow(text.out, "^stop" + tally));
  CHECK(hasRow(text.out, R"(^total: \d+ confirmed, \d+ missed, \d+ latent; precision [01]\.\d\d, recall [01]\.\d\d$)"));

  args.insert(args.end(), {"--format", "json"});
  ProcessResult j = runLjcheck(args);
  CHECK(j.exitCode == 0);
  json v;
  REQUIRE_NOTHROW(v = json::parse(j.out));
  CHECK(v.at("kind") == "verification");
  for (const char* group : {"byReason", "byClass"}) {
    INFO(group);
    REQUIRE(v.contains(group));
    for (const auto& [name, t] : v[group].items()) {
      INFO(name);
      for (const char* field : {"confirmed", "missed", "latent", "precision", "recall"}) CHECK(t.contains(field));
    }
  }
  CHECK(v.at("byReason").at("NYIBC:FNEW").at("confirmed").get<int>() >= 1);
  CHECK(v.at("byReason").at("STITCH:string.gsub").at("confirmed").get<int>() >= 1);
  CHECK(v.at("byClass").contains("blocker"));
  CHECK(v.at("byClass").contains("stop"));
  CHECK(v.at("total").at("confirmed").get<int>() >= 3);
  int confirmed = 0;
  for (const auto& site : v.at("sites")) confirmed += site.at("status") == "confirmed";
  CHECK(confirmed == v["total"]["confirmed"].get<int>());
}

TEST_CASE("verify with no predictions against a run with aborts: all missed, recall 0", "[cli][verify]") {
  std::string dir = ljcheck::testing::scratchDirectory("verify-nothing-predicted");
  // A lint report that analyzed the fixture and predicted nothing in it.
  ProcessResult lint = runLjcheck({"lint", "--format", "json", "--fail-on", "none", "fixtures/nyibc_fnew_in_loop.lua"});
  REQUIRE(lint.exitCode == 0);
  json silent = json::parse(lint.out);
  REQUIRE(silent.at("linted") == json::array({"fixtures/nyibc_fnew_in_loop.lua"}));
  silent["predictions"] = json::array();
  writeFile(dir + "/lint.json", silent.dump());
  std::string run = runFixture(dir, "fixtures/nyibc_fnew_in_loop.lua");

  ProcessResult j = runLjcheck({"verify", "--static", dir + "/lint.json", "--runtime", run, "--format", "json"});
  CHECK(j.exitCode == 0);
  json v = json::parse(j.out);
  REQUIRE(!v.at("sites").empty());
  for (const auto& site : v["sites"]) CHECK(site.at("status") == "missed");
  CHECK(v.at("total").at("confirmed") == 0);
  CHECK(v.at("total").at("latent") == 0);
  CHECK(v.at("total").at("missed").get<int>() >= 1);
  CHECK(v.at("total").at("recall").get<double>() == 0.0);
  CHECK(v.at("byReason").at("NYIBC:FNEW").at("recall").get<double>() == 0.0);
  // Nothing was predicted, so nothing was confirmed or refuted: no precision (null), not 1.
  CHECK(v.at("total").at("precision").is_null());
  CHECK(v.at("byReason").at("NYIBC:FNEW").at("precision").is_null());
  ProcessResult text = runLjcheck({"verify", "--static", dir + "/lint.json", "--runtime", run});
  CHECK(hasRow(text.out, R"(^total: 0 confirmed, [1-9]\d* missed, 0 latent; precision n/a, recall 0\.00$)"));
  CHECK(hasRow(text.out, R"(^NYIBC:FNEW +0 +[1-9]\d* +0 +- +0\.00 +0 +0$)"));

  ProcessResult strict = runLjcheck({"verify", "--static", dir + "/lint.json", "--runtime", run, "--fail-on", "missed"});
  CHECK(strict.exitCode == 1);
  CHECK(hasRow(strict.out, R"(^missed +fixtures/nyibc_fnew_in_loop\.lua:4 +NYIBC:FNEW +- +\d+ +\d+\.\d +blacklisted$)"));
}

TEST_CASE("verify leaves out observations in files lint did not analyze, and says so", "[cli][verify]") {
  // Lint saw clean.lua only; the run is of another file. Its aborts are not
  // missed predictions: lint never looked at that file.
  std::string dir = ljcheck::testing::scratchDirectory("verify-not-linted");
  writeFile(dir + "/clean.lua", "local n = 0\nfor i = 1, 100 do n = n + i end\n");
  ProcessResult lint = runLjcheck({"lint", "--format", "json", dir + "/clean.lua"});
  REQUIRE(lint.exitCode == 0);
  writeFile(dir + "/lint.json", lint.out);
  std::string run = runFixture(dir, "fixtures/nyibc_fnew_in_loop.lua");
  ProcessResult j = runLjcheck({"verify", "--static", dir + "/lint.json", "--runtime", run, "--format", "json"});
  INFO(j.err);
  CHECK(j.exitCode == 0);
  json v = json::parse(j.out);
  CHECK(v.at("sites").empty());
  CHECK(v.at("total").at("missed") == 0);
  CHECK(j.err.find("files the lint report did not analyze (fixtures/nyibc_fnew_in_loop.lua) are left out") !=
        std::string::npos);
}

TEST_CASE("lint and run from a subdirectory agree on files inside and outside the root", "[cli][verify][paths]") {
  // work/proj is the project (the working directory and so the root);
  // work/lib/outside.lua lies outside it, work/proj/inside.lua inside.
  std::string work = ljcheck::testing::scratchDirectory("verify-outside-root");
  std::string proj = work + "/proj";
  std::string closureInLoop = "local n = 0\nfor i = 1, 500 do\n  local f = function() return i end\n  n = n + f()\nend\n";
  writeFile(work + "/lib/outside.lua", closureInLoop);
  writeFile(proj + "/inside.lua", closureInLoop);

  ProcessResult lint = runLjcheck({"lint", "--format", "json", "inside.lua", "../lib/outside.lua"}, proj);
  REQUIRE(lint.exitCode == 1);
  json predictions = json::parse(lint.out).at("predictions");
  std::set<std::string> predicted;
  for (const auto& p : predictions)
    if (p.at("reasonId") == "NYIBC:FNEW") predicted.insert(p.at("location").get<std::string>());
  std::string outside = work + "/lib/outside.lua";
  CHECK(predicted == std::set<std::string>{"inside.lua:3", outside + ":3"});
  CHECK(json::parse(lint.out).at("root") == proj);
  writeFile(proj + "/lint.json", lint.out);

  for (const char* script : {"inside.lua", "../lib/outside.lua"}) {
    std::string name = std::string(script).substr(std::string(script).rfind('/') + 1);
    ProcessResult run = runLjcheck({"run", "--json", name + ".json", "--", script}, proj);
    INFO(run.err);
    REQUIRE(run.exitCode == 0);
    CHECK(json::parse(readFile(proj + "/" + name + ".json")).at("root") == proj);
  }
  ProcessResult joined = runLjcheck({"verify", "--static", "lint.json", "--runtime", "inside.lua.json", "--runtime",
                                     "outside.lua.json", "--format", "json"}, proj);
  INFO(joined.out << joined.err);
  REQUIRE(joined.exitCode == 0);
  json v = json::parse(joined.out);
  CHECK(v.at("byReason").at("NYIBC:FNEW").at("confirmed") == 2);
  CHECK(v.at("total").at("missed") == 0);
  CHECK(v.at("total").at("latent") == 0);
  CHECK(joined.err.empty());

  // A runtime report written with another root (run from work/, --root .) is
  // rebased onto the lint report's root, with a warning.
  ProcessResult elsewhere = runLjcheck({"run", "--json", "proj/elsewhere.json", "--", "proj/inside.lua"}, work);
  REQUIRE(elsewhere.exitCode == 0);
  ProcessResult rebased = runLjcheck({"verify", "--static", "lint.json", "--runtime", "elsewhere.json"}, proj);
  INFO(rebased.out << rebased.err);
  CHECK(rebased.exitCode == 0);
  CHECK(hasRow(rebased.out, R"(^confirmed +inside\.lua:3 +NYIBC:FNEW +\w+ +\d+ +\d+\.\d( +(blacklisted|left to the interpreter)[^\n]*)?$)"));
  CHECK(rebased.err.find("warning: elsewhere.json was written with root " + work) != std::string::npos);
}

TEST_CASE("a function another file calls from a hot loop is hot: the project-wide call graph", "[cli][verify][project]") {
  std::string dir = ljcheck::testing::scratchDirectory("verify-project-call-graph");
  ProcessResult lint = runLjcheck({"lint", "--format", "json", "--confidence", "possible", "fixtures/projects"});
  REQUIRE(lint.exitCode == 1);
  std::map<std::string, json> fnew;
  const json report = json::parse(lint.out);
  for (const auto& p : report.at("predictions"))
    if (p.at("reasonId") == "NYIBC:FNEW") fnew[p.at("location").get<std::string>()] = p;
  // The FNEW at `location`: its severity, its confidence (unless empty) and
  // the evidence its reasoning names.
  auto expect = [&](const std::string& location, const char* severity, const char* confidence, const std::string& why) {
    INFO(location);
    REQUIRE(fnew.count(location));
    const json& p = fnew[location];
    CHECK(p.at("severity") == severity);
    if (*confidence) CHECK(p.at("confidence") == confidence);
    CHECK(p.at("reasoning").get<std::string>().find(why) != std::string::npos);
  };
  expect("fixtures/projects/hot_module/shapes.lua:4", "blacklist", "certain",
         "area is called from the loop at line 5 of fixtures/projects/hot_module/main.lua, which runs 50000 times");
  // A method of the object another module's function returns: t = tally.new(); t:add(i).
  expect("fixtures/projects/hot_method/tally.lua:7", "blacklist", "certain",
         "add, a method of the object tally.new() returns, is called from the loop at line 7 of "
         "fixtures/projects/hot_method/main.lua, which runs 50000 times");
  // A closure another module's function returns: scale = lib.scaler(3); scale(i).
  expect("fixtures/projects/hot_factory/lib.lua:5", "blacklist", "",
         "the function lib.scaler() returns is called from the loop at line 8 of "
         "fixtures/projects/hot_factory/main.lua, which runs 50000 times");
  // Two helpers called one after the other: the loop's trace aborts in the
  // first on every pass, so its runs do not blacklist through the second.
  expect("fixtures/projects/aborting_helpers/closures.lua:4", "blacklist", "certain",
         "first is called from the loop at line 8 of fixtures/projects/aborting_helpers/main.lua");
  expect("fixtures/projects/aborting_helpers/closures.lua:7", "warn", "certain",
         "the loop at line 8 aborts first at the call of closures.first at line 9 on every pass");
  // The same through nested module tables (ltn12's M.source.string, then
  // M.filter.chain), in a loop of 20,000 turns: the second takes varargs,
  // so no trace of its own starts either: latent behind the first, likely.
  expect("fixtures/projects/nested_helpers/ltn12ish.lua:5", "warn", "certain",
         "source.string is called from the loop at line 9 of fixtures/projects/nested_helpers/main.lua");
  expect("fixtures/projects/nested_helpers/ltn12ish.lua:9", "warn", "likely",
         "filter.chain takes varargs, whose entry the VM never counts");
  // The closure the loop body makes right after the call of the aborting
  // member is masked by that member's closure, in the other file.
  REQUIRE(fnew.count("fixtures/projects/nested_helpers/main.lua:11"));
  CHECK(fnew["fixtures/projects/nested_helpers/main.lua:11"].at("maskedBy").at("location") ==
        "fixtures/projects/nested_helpers/ltn12ish.lua:5");
  // Called five times from its driver: only the module's own evidence (it escapes).
  expect("fixtures/projects/cold_module/shapes.lua:4", "info", "", "escapes");
  // A global function of a Lua 5.1 module("shapes", ...) file is a field of
  // the table require("shapes") returns: hot from the driver's loop.
  expect("fixtures/projects/module_function/shapes.lua:5", "warn", "certain",
         "area is called from the loop at line 8 of fixtures/projects/module_function/main.lua, which runs 3000 times");
  expect("fixtures/projects/module_function/sizes.lua:5", "info", "likely", "half escapes");

  writeFile(dir + "/lint.json", lint.out);
  std::string hotRun = runFixture(dir, "fixtures/projects/hot_module/main.lua");
  // The run records the lines the recorder looked at, the FNEW's among them,
  // and the bytecodes it recorded by line: never the FNEW, where every trace
  // aborts before recording it.
  const json run = json::parse(readFile(hotRun));
  const json& lines = run.at("visited");
  CHECK(std::find(lines.begin(), lines.end(), "fixtures/projects/hot_module/shapes.lua:4") != lines.end());
  const json& recorded = run.at("visitedInstructions");
  if (recorded.contains("fixtures/projects/hot_module/shapes.lua:4")) {
    const json& ops = recorded.at("fixtures/projects/hot_module/shapes.lua:4");
    CHECK(std::find(ops.begin(), ops.end(), "FNEW") == ops.end());
  }
  ProcessResult joined = runLjcheck({"verify", "--static", dir + "/lint.json", "--runtime", hotRun});
  INFO(joined.out);
  CHECK(hasRow(joined.out, R"(^confirmed +fixtures/projects/hot_module/shapes\.lua:4 +NYIBC:FNEW +\w+ +\d+ +\d+\.\d( +(blacklisted|left to the interpreter)[^\n]*)?$)"));
  std::string coldRun = dir + "/cold.json";
  REQUIRE(runLjcheck({"run", "--json", coldRun, "--", "fixtures/projects/cold_module/main.lua"}).exitCode == 0);
  CHECK(json::parse(readFile(coldRun)).at("sites").empty());
}

TEST_CASE("a masked prediction the runs observe is shown as a masking error, with its masking site", "[cli][verify]") {
  // run() cannot see what list:sum() is (the class comes from a global), and
  // it gets no function: lint takes it for a call without a loop and masks
  // the upvalue close behind the closure. sum loops: a trace that starts in
  // its loop returns into run() through a side exit and records the close.
  std::string dir = ljcheck::testing::scratchDirectory("verify-masked-observed");
  writeFile(dir + "/masked.lua",
            "Sum = { sum = function(self) local s = 0 for i = 1, #self do s = s + self[i] end return s end }\n"
            "local function run(list, k)\n"
            "  local f = function() return k end\n"
            "  local s = list:sum()\n"
            "  return s + f()\n"
            "end\n"
            "local obj = setmetatable({ 1, 2, 3, 4, 5, 6, 7, 8 }, { __index = _G.Sum })\n"
            "local n = 0\n"
            "for i = 1, 3000 do n = n + run(obj, i) end\n"
            "assert(n == 3000 * 36 + 3000 * 3001 / 2)\n");
  ProcessResult lint = runLjcheck({"lint", "--format", "json", "--fail-on", "none", "masked.lua"}, dir);
  REQUIRE(lint.exitCode == 0);
  writeFile(dir + "/lint.json", lint.out);
  REQUIRE(runLjcheck({"run", "--json", "run.json", "--", "masked.lua"}, dir).exitCode == 0);
  ProcessResult text = runLjcheck({"verify", "--static", "lint.json", "--runtime", "run.json"}, dir);
  INFO(text.out << text.err);
  CHECK(hasRow(text.out, R"(^confirmed +masked\.lua:5 +NYIBC:UCLO .* masked by masked\.lua:3, observed anyway$)"));
  CHECK(text.out.find("masked predictions the runs observed anyway: 1") != std::string::npos);
  ProcessResult j = runLjcheck({"verify", "--static", "lint.json", "--runtime", "run.json", "--format", "json"}, dir);
  REQUIRE(j.exitCode == 0);
  bool found = false;
  const json report = json::parse(j.out);
  for (const auto& s : report.at("sites")) {
    if (s.at("location") != "masked.lua:5") continue;
    found = true;
    CHECK(s.at("status") == "confirmed");
    CHECK(s.at("maskedBy").at("location") == "masked.lua:3");
    CHECK(s.at("maskedBy").at("reasonId") == "NYIBC:FNEW");
  }
  CHECK(found);
}

TEST_CASE("verify reads a runtime report named twice once", "[cli][verify]") {
  std::string dir = ljcheck::testing::scratchDirectory("verify-twice");
  ProcessResult lint = runLjcheck({"lint", "--format", "json", "--fail-on", "none", "fixtures/nyibc_fnew_in_loop.lua"});
  writeFile(dir + "/lint.json", lint.out);
  std::string run = runFixture(dir, "fixtures/nyibc_fnew_in_loop.lua");
  json once = json::parse(runLjcheck({"verify", "--static", dir + "/lint.json", "--runtime", run, "--format", "json"}).out);
  // The same file twice, once by another spelling of its path.
  std::string again = dir + "/./" + run.substr(run.rfind('/') + 1);
  ProcessResult twice =
      runLjcheck({"verify", "--static", dir + "/lint.json", "--runtime", run, "--runtime", again, "--format", "json"});
  INFO(twice.err);
  REQUIRE(twice.exitCode == 0);
  CHECK(json::parse(twice.out).at("sites") == once.at("sites"));
  CHECK(twice.err.find(again + " is given twice: read once") != std::string::npos);
}

TEST_CASE("a return a root trace only reaches to leave its loop (LLEAVE) is unexercised, not latent",
          "[cli][verify][coverage]") {
  // f's loop turns three times: its traces leave it (LLEAVE, raised at the
  // first instruction past the loop, before the recorder records it), and
  // root traces entering f abort at the closure. No trace records the
  // return's UCLO, though the recorder looks at it.
  std::string dir = ljcheck::testing::scratchDirectory("verify-lleave-visit");
  writeFile(dir + "/lleave.lua",
            "local function f(t)\n"
            "  local s = 0\n"
            "  for i = 1, #t do\n"
            "    local g = function() return t[i] end\n"
            "    s = s + g()\n"
            "  end\n"
            "  return s\n"
            "end\n"
            "local t = { 1, 2, 3 }\n"
            "local acc = 0\n"
            "for i = 1, 20000 do acc = acc + f(t) end\n"
            "assert(acc == 20000 * 6)\n");
  ProcessResult lint = runLjcheck({"lint", "--format", "json", "--fail-on", "none", "--root", dir, dir});
  REQUIRE(lint.exitCode == 0);
  const json predictions = json::parse(lint.out).at("predictions");
  REQUIRE(std::any_of(predictions.begin(), predictions.end(), [](const json& p) {
    return p.at("line") == 7 && p.at("reasonId") == "NYIBC:UCLO" && !p.contains("maskedBy");
  }));
  writeFile(dir + "/lint.json", lint.out);
  std::string run = dir + "/run.json";
  ProcessResult r = runLjcheck({"run", "--json", run, "--root", dir, "--include-benign", "--", dir + "/lleave.lua"});
  INFO(r.err);
  REQUIRE(r.exitCode == 0);
  const json observed = json::parse(readFile(run));
  const json& sites = observed.at("sites");
  REQUIRE(std::any_of(sites.begin(), sites.end(), [](const json& s) {
    return s.at("reasonId") == "LLEAVE" && s.at("location") == "lleave.lua:7";
  }));
  CHECK(std::find(observed.at("visited").begin(), observed.at("visited").end(), "lleave.lua:7") !=
        observed.at("visited").end());
  ProcessResult joined = runLjcheck({"verify", "--static", dir + "/lint.json", "--runtime", run});
  INFO(joined.out);
  CHECK(hasRow(joined.out, R"(^unexercised +lleave\.lua:7 +NYIBC:UCLO )"));
  CHECK(!hasRow(joined.out, R"(^latent +lleave\.lua:7 )"));
}

TEST_CASE("a function's entry adds up its calls from every loop of other files", "[cli][project]") {
  // Two loops of main.lua call closures.second after closures.first, which
  // aborts every trace: neither loop's trace records the call, and the
  // entry counts all 95,000 calls, which blacklist it (audit 50: `-jv`, 11
  // aborts at the entry in 5 of 5 runs). One loop of 50,000 does not.
  std::string dir = ljcheck::testing::scratchDirectory("verify-entry-calls-across-files");
  writeFile(dir + "/closures.lua",
            "local M = {}\nfunction M.first(x)\n  return function() return x end\nend\n"
            "function M.second(x)\n  return function() return x + 1 end\nend\nreturn M\n");
  auto lintWith = [&](const std::string& main) {
    writeFile(dir + "/main.lua", main);
    ProcessResult lint = runLjcheck({"lint", "--format", "json", "--fail-on", "none", "main.lua", "closures.lua"}, dir);
    REQUIRE(lint.exitCode == 0);
    const json report = json::parse(lint.out);
    for (const auto& p : report.at("predictions"))
      if (p.at("location") == "closures.lua:6" && p.at("reasonId") == "NYIBC:FNEW") return json(p);
    FAIL("no FNEW at closures.lua:6");
    return json();
  };
  const std::string loop = "for i = 1, 50000 do\n  local a = closures.first(i)\n  local b = closures.second(i)\n"
                           "  n = n + a() + b()\nend\n";
  const std::string head = "local closures = require(\"closures\")\nlocal n = 0\n";
  CHECK(lintWith(head + loop).at("severity") == "warn");
  const json both = lintWith(head + loop + loop.substr(0, loop.find("50000")) + "45000" +
                             loop.substr(loop.find("50000") + 5));
  CHECK(both.at("severity") == "blacklist");
  CHECK(both.at("reasoning").get<std::string>().find("its calls in this file and from other files, all call sites "
                                                     "added up, run at least 95000 times") != std::string::npos);
}
