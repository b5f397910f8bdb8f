// Fixture projects (fixtures/projects/<name>/, entry main.lua): modules whose
// sites depend on another file of the project. Both halves are held to the
// annotations of every .lua file in the folder, as for the flat fixtures:
// `ljcheck lint` of the folder predicts exactly `expect` + `latent`, and the
// collector observes exactly `expect` + `expect-runtime` when main.lua runs
// in the `ljcheck run` host, in Debian's luajit and in OpenResty's luajit2
// (skipped with a warning when setup has not built it).
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "../support/cli.h"
#include "../support/fixtures.h"
#include "ljcheck/profile.h"
#include "ljcheck/reason.h"

using namespace ljcheck;
using nlohmann::json;
using testing::Site;

namespace {

// The fixture projects whose every file is annotated.
const std::vector<std::string> kProjects{"fixtures/projects/aborting_helpers",
                                         "fixtures/projects/cold_module", "fixtures/projects/ctype_module",
                                         "fixtures/projects/function_module",
                                         "fixtures/projects/hot_factory", "fixtures/projects/hot_method",
                                         "fixtures/projects/hot_module",     "fixtures/projects/looping_module", "fixtures/projects/lua_methods",
                                         "fixtures/projects/module_function", "fixtures/projects/nested_helpers",
                                         "fixtures/projects/registered_ctypes", "fixtures/projects/replaced_member",
                                         "fixtures/projects/guarded_module_call", "fixtures/projects/overridden_methods",
                                         "fixtures/projects/replaced_methods", "fixtures/projects/object_methods",
                                         "fixtures/projects/stubbed_modules", "fixtures/projects/grandchild_override",
                                         "fixtures/projects/method_helpers", "fixtures/projects/inline_constructor",
                                         "fixtures/projects/inherited_method", "fixtures/projects/mixin_class",
                                         "fixtures/projects/stubbing_helper", "fixtures/projects/reparented_class",
                                         "fixtures/projects/layer_module", "fixtures/projects/never_looping_module"};

using SitesByFile = std::map<std::string, std::set<Site>>;

std::vector<std::string> luaFiles(const std::string& project) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(LJCHECK_SOURCE_DIR) + "/" + project))
    if (e.path().extension() == ".lua") out.push_back(project + "/" + e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

SitesByFile expected(const std::string& project, const std::string& profile, bool runtime) {
  SitesByFile out;
  for (const auto& path : luaFiles(project)) {
    auto f = testing::loadFixture(LJCHECK_SOURCE_DIR, path, profile);
    out[path] = runtime ? f.observed() : f.staticallyPredicted();
  }
  return out;
}

bool isBenign(const std::string& reasonId) {
  const Reason* r = ReasonCatalog::builtin().find(ReasonId::parse(reasonId).code());
  return r && r->benign;
}

// Actionable sites of a runtime report in the project's files, and the
// benign (stop-class) ones `want` annotates, as for single fixtures
// (fixtures/README.md: an annotated benign site must be observed, others
// are ignored).
SitesByFile observedIn(const std::string& jsonPath, const std::string& project, const SitesByFile& want) {
  SitesByFile out;
  for (const auto& path : luaFiles(project)) out[path];
  const json report = json::parse(testing::readFile(jsonPath));
  for (const auto& s : report.at("sites")) {
    std::string path = s.at("path").get<std::string>();
    std::string id = s.at("reasonId").get<std::string>();
    if (!out.count(path)) continue;
    const Site site{s.at("line").get<int>(), id};
    if (isBenign(id) && !(want.count(path) && want.at(path).count(site))) continue;
    out[path].insert(site);
  }
  return out;
}

std::string describe(const SitesByFile& sites) {
  std::string text;
  for (const auto& [path, set] : sites) text += "\n" + path + ":" + testing::describe(set);
  return text;
}

// main.lua finds its modules next to arg[0]; the wrapper sets it.
void runUnderModule(const std::string& luajit, const std::string& project, const std::string& profile,
                    const std::string& dir) {
  std::string out = dir + "/" + std::filesystem::path(luajit).parent_path().parent_path().filename().string() + ".json";
  std::string wrapper = out + ".wrapper.lua";
  testing::writeFile(wrapper, "local ljcheck = require('ljcheck')\n"
                              "local session = ljcheck.trace({includeBenign = true})\n"
                              "arg = {[0] = '" + project + "/main.lua'}\n"
                              "assert(loadfile(arg[0]))()\n"
                              "local report = session:stop()\n"
                              "local f = assert(io.open('" + out + "', 'w'))\n"
                              "f:write(report:json())\nf:close()\n");
  testing::ProcessResult run = testing::runInLuajitHost(luajit, wrapper, LJCHECK_SOURCE_DIR);
  INFO(luajit << "\n" << run.err);
  REQUIRE(run.exitCode == 0);
  SitesByFile want = expected(project, profile, true), seen = observedIn(out, project, want);
  INFO("expected:" << describe(want) << "\nobserved:" << describe(seen));
  CHECK(seen == want);
}

}  // namespace

TEST_CASE("lint of a fixture project predicts exactly the sites annotated in its files", "[fixtures][project]") {
  for (const auto& project : kProjects) {
    DYNAMIC_SECTION(project) {
      testing::ProcessResult lint =
          testing::runLjcheck({"lint", "--format", "json", "--confidence", "possible", "--fail-on", "none", project});
      REQUIRE(lint.exitCode == 0);
      SitesByFile predicted;
      for (const auto& path : luaFiles(project)) predicted[path];
      const json report = json::parse(lint.out);
      for (const auto& p : report.at("predictions"))
        if (!p.contains("maskedBy"))  // a masked site is never observed: its masking site aborts first
          predicted[p.at("path").get<std::string>()].insert({p.at("line").get<int>(), p.at("reasonId").get<std::string>()});
      SitesByFile want = expected(project, defaultProfile().name, false);
      INFO("expected:" << describe(want) << "\npredicted:" << describe(predicted));
      CHECK(predicted == want);
    }
  }
}

TEST_CASE("the collector observes exactly the sites annotated in a fixture project's files", "[fixtures][project][runtime]") {
  for (const auto& project : kProjects) {
    DYNAMIC_SECTION(project) {
      std::string dir = testing::scratchDirectory("project-fixture-" + std::filesystem::path(project).filename().string());
      std::string runJson = dir + "/run.json";
      testing::ProcessResult run =
          testing::runLjcheck({"run", "--include-benign", "--json", runJson, "--", project + "/main.lua"});
      INFO(run.err);
      REQUIRE(run.exitCode == 0);
      SitesByFile want = expected(project, defaultProfile().name, true), seen = observedIn(runJson, project, want);
      INFO("expected:" << describe(want) << "\nobserved:" << describe(seen));
      CHECK(seen == want);
      runUnderModule("/usr/bin/luajit", project, defaultProfile().name, dir);
      if (access(LJCHECK_LUAJIT2, X_OK) != 0) {
        WARN("skipped luajit2: " << LJCHECK_LUAJIT2 << " does not exist (scripts/setup.sh builds it)");
      } else {
        runUnderModule(LJCHECK_LUAJIT2, project, "openresty-2.1-20230119", dir);
      }
    }
  }
}

namespace {

// The `reasonId` predictions (closures unless named) lint makes in `file` of fixture project
// `project`, by line.
std::map<int, json> predictionsIn(const std::string& project, const std::string& file,
                               const std::string& reasonId = "NYIBC:FNEW") {
  testing::ProcessResult lint =
      testing::runLjcheck({"lint", "--format", "json", "--confidence", "possible", "--fail-on", "none", project});
  REQUIRE(lint.exitCode == 0);
  const json report = json::parse(lint.out);
  std::map<int, json> fnew;
  for (const auto& p : report.at("predictions"))
    if (p.at("path").get<std::string>() == project + "/" + file && p.at("reasonId") == reasonId)
      fnew[p.at("line").get<int>()] = p;
  return fnew;
}

// The closures lint reports in `file` of `project`: those on the lines
// `unsure` claim neither certain nor an error (the code the project's calls
// reach is another), those on the lines `sure` both.
void checkClaims(const std::string& project, const std::string& file, const std::vector<int>& unsure,
                 const std::vector<int>& sure) {
  std::map<int, json> fnew = predictionsIn(project, file);
  for (const auto& [line, prediction] : fnew) UNSCOPED_INFO(line << ": " << prediction.dump());
  for (int line : unsure) {
    REQUIRE(fnew.count(line) == 1);
    CHECK(fnew[line].at("severity") != "blacklist");
    CHECK(fnew[line].at("confidence") != "certain");
  }
  for (int line : sure) {
    REQUIRE(fnew.count(line) == 1);
    CHECK(fnew[line].at("severity") == "blacklist");
    CHECK(fnew[line].at("confidence") == "certain");
  }
}

}  // namespace

TEST_CASE("a module function another file replaces gets no heat from that file's calls", "[fixtures][project]") {
  // main.lua assigns codec.encode and rawsets codec.check before its loops
  // (audits 60, 62: an `error` for a closure `-jv` never sees);
  // codec.decode, called as defined, keeps the heat of its loop.
  checkClaims("fixtures/projects/replaced_member", "codec.lua", {4, 12}, {8});
}

TEST_CASE("a call of another module's function behind a branch makes its abort likely", "[fixtures][project]") {
  // `if debug_on then lib.slow(i) end` never calls it (audit 60: certain,
  // and `-jv` shows no abort); lib.each, on every pass, stays certain.
  // lib.rare, three calls at load and one behind `i % 5000 == 0` in a loop
  // of 20,000 turns, is likely too (audit 77: certain, no abort).
  std::map<int, json> fnew = predictionsIn("fixtures/projects/guarded_module_call", "lib.lua");
  REQUIRE(fnew.count(4) == 1);
  REQUIRE(fnew.count(8) == 1);
  REQUIRE(fnew.count(12) == 1);
  INFO(fnew[4].dump() << "\n" << fnew[8].dump() << "\n" << fnew[12].dump());
  CHECK(fnew[4].at("confidence") == "likely");
  CHECK(fnew[4].at("severity") == "warn");
  CHECK(fnew[8].at("confidence") == "likely");
  CHECK(fnew[8].at("reasoning").get<std::string>().find("can go around the call at line 11, in fixtures/projects/guarded_module_call/main.lua") !=
        std::string::npos);
  CHECK(fnew[12].at("confidence") == "certain");
  CHECK(fnew[12].at("severity") == "blacklist");
}

TEST_CASE("a closure helpers below another file's call behind a branch is likely", "[fixtures][project]") {
  // Audit 108: lua-http's request.lua calls basexx only `if req.user`; the
  // closure two helpers below it was certain, and no trace recorded it.
  // digest's, as deep, on every request, stays certain.
  std::map<int, json> fnew = predictionsIn("fixtures/projects/guarded_helper_chain", "lib.lua");
  REQUIRE(fnew.count(4) == 1);
  REQUIRE(fnew.count(13) == 1);
  INFO(fnew[4].dump() << "\n" << fnew[13].dump());
  CHECK(fnew[4].at("confidence") == "likely");
  CHECK(fnew[4].at("reasoning").get<std::string>().find(
            "a branch at line 6 can go around the call at line 7, in fixtures/projects/guarded_helper_chain/mid.lua") !=
        std::string::npos);
  CHECK(fnew[13].at("confidence") == "certain");
}

TEST_CASE("of two calls from another file as hot, the reasoning names the one on every pass", "[fixtures][project]") {
  // Audit 108: is_num's stitch was said to run hot through Store:add, which
  // the loop calls on one pass in 50; Store:check runs it on every pass.
  std::map<int, json> find = predictionsIn("fixtures/projects/caller_on_every_pass", "util.lua", "STITCH:string.find");
  REQUIRE(find.count(4) == 1);
  INFO(find[4].dump());
  CHECK(find[4].at("reasoning").get<std::string>().find(
            "is_num is called at line 13 of fixtures/projects/caller_on_every_pass/store.lua") != std::string::npos);
}

TEST_CASE("a branch two files away is named in its own file only", "[fixtures][project]") {
  // Audit 109: "a branch at line 5 can go around the call at line 6, in
  // main.lua, in snap.lua": the clause that came from main.lua got the
  // middle file's name too when snap.lua passed it on.
  std::map<int, json> gsub =
      predictionsIn("fixtures/projects/branch_two_files_away", "fmt.lua", "STITCH:string.gsub");
  REQUIRE(gsub.count(4) == 1);
  const std::string why = gsub[4].at("reasoning").get<std::string>();
  INFO(why);
  CHECK(why.find("can go around the call at line 8, in fixtures/projects/branch_two_files_away/main.lua, so") !=
        std::string::npos);
  CHECK(why.find("snap.lua, so") == std::string::npos);
  CHECK(gsub[4].at("confidence") == "likely");
}

TEST_CASE("a module of more than 255 constants still names its members", "[fixtures][project]") {
  // Audit 109: past 255 constants LuaJIT stores fields with TSETV and a
  // key register; moses' members were then unknown calls that may split
  // the trace, and a closure after its inline constructor was a warning
  // for a loop blacklisted in every run.
  checkClaims("fixtures/projects/large_module", "main.lua", {}, {7});
}

TEST_CASE("methods another file defines again give the module's own no heat", "[fixtures][project]") {
  // patches.lua defines Widget:render again, main.lua stores a paint
  // function in its object, fast.lua gives its object another class
  // (audits 65, 67: errors for closures `-jv` never sees); layout, called
  // as defined, keeps the heat of its loop.
  checkClaims("fixtures/projects/replaced_methods", "widget.lua", {8, 12, 20}, {16});
  // trace's `return print(...)` behind `if on`, never true: likely across
  // files as in one (audit 67: certain, and `-jv` shows no stitch).
  std::map<int, json> print = predictionsIn("fixtures/projects/replaced_methods", "main.lua", "STITCH:print");
  REQUIRE(print.count(12) == 1);
  CHECK(print[12].at("confidence") == "likely");
}

TEST_CASE("a method subclasses in other files define again is not resolved through self", "[fixtures][project]") {
  // circle.lua and rect.lua inherit from shape.lua's Shape and define
  // outline again: Shape:sweep's self:outline() never runs Shape's (audit
  // 65: an error `-jv` never shows); self:tally(), Shape's alone, does.
  checkClaims("fixtures/projects/overridden_methods", "shape.lua", {8}, {12});
}

TEST_CASE("methods objects carry of their own give their class's no heat", "[fixtures][project]") {
  // special.lua's SpecialAccount, an object of Account made by Account:new()
  // (Programming in Lua's subclass), defines withdraw again; skins.lua
  // stores a paint function into the sprite it is given (audit 67: errors
  // for closures `-jv` never sees). deposit and step, run as defined, keep
  // the heat of their loops.
  checkClaims("fixtures/projects/object_methods", "account.lua", {11}, {15});
  checkClaims("fixtures/projects/object_methods", "sprite.lua", {8}, {12});
}

TEST_CASE("a module a test stubs in package.loaded or package.preload gets no heat from other files",
          "[fixtures][project]") {
  // main.lua stores stubs for logger and audit before requiring the
  // service (audit 69: errors for closures that never run, since the
  // files never load); metrics, not stubbed, keeps the heat of the loop.
  checkClaims("fixtures/projects/stubbed_modules", "logger.lua", {4}, {});
  checkClaims("fixtures/projects/stubbed_modules", "audit.lua", {4}, {});
  checkClaims("fixtures/projects/stubbed_modules", "metrics.lua", {}, {4});
}

TEST_CASE("a method a grandchild class in another file defines again is not resolved in the base",
          "[fixtures][project]") {
  // Ring over Circle over Shape, each in its own file (audit 69: Shape's
  // outline was an error); tally, which no class defines again, stays certain.
  checkClaims("fixtures/projects/grandchild_override", "shape.lua", {6}, {10});
}

TEST_CASE("helpers that store any method or give any class leave the methods of their callers unresolved",
          "[fixtures][project]") {
  // decorate.override stores under a name its caller passes, fsm.transition
  // sets the metatable it is handed (audit 69: errors); ticker.lua's local
  // function is no method and stays certain.
  checkClaims("fixtures/projects/method_helpers", "sprite.lua", {8}, {});
  checkClaims("fixtures/projects/method_helpers", "main.lua", {10}, {});
  checkClaims("fixtures/projects/method_helpers", "ticker.lua", {}, {4});
}

TEST_CASE("a call of another module's function its file records inline splits no trace", "[fixtures][project]") {
  // world.lua's spawn calls vec.lua's Vec.new (a setmetatable of a
  // constructor), then makes a closure; the loop of main.lua that calls
  // spawn is blacklisted on both builds (audit 70: a warning, for a call
  // that "may split the trace").
  checkClaims("fixtures/projects/inline_constructor", "world.lua", {}, {6});
}

TEST_CASE("a method a subclass in another file inherits gets the heat of the calls on its objects",
          "[fixtures][project]") {
  // echo.lua's Echo keeps base.lua's access; main.lua calls echo:access in
  // a loop of 50,000 (audits 69, 72: a note, "escapes", for a loop `-jv`
  // blacklists). acl.lua's Acl, made by Base.extend, defines access again:
  // that names Acl's objects' method, not Echo's.
  checkClaims("fixtures/projects/inherited_method", "base.lua", {10}, {15});
}

TEST_CASE("a mixin a helper copies into a subclass leaves the base's own calls of its methods unresolved",
          "[fixtures][project]") {
  // acl.lua hands Acl to mixin.include, which copies fast.lua's access in:
  // Base:run's self:access() runs Fast's (audit 73: an error on Base's
  // closure); count, a local function of base.lua, stays certain.
  checkClaims("fixtures/projects/mixin_class", "base.lua", {9}, {5});
}

TEST_CASE("a module a helper stubs by the name its caller hands it is not claimed hot", "[fixtures][project]") {
  // Audit 73: testkit.stub("logger", ...), testkit.preload("audit", ...)
  // and a loop over a table of stubs replace three modules before the
  // service loads them; metrics.lua, not stubbed, stays certain.
  checkClaims("fixtures/projects/stubbing_helper", "logger.lua", {4}, {});
  checkClaims("fixtures/projects/stubbing_helper", "audit.lua", {4}, {});
  checkClaims("fixtures/projects/stubbing_helper", "cache.lua", {4}, {});
  checkClaims("fixtures/projects/stubbing_helper", "metrics.lua", {}, {4});
}

TEST_CASE("a class a helper gives another parent inherits no claimed method", "[fixtures][project]") {
  // Audit 73: hotfix.apply(Echo) does setmetatable(cls, {__index =
  // require("fastbase")}); Base:access never runs. stats.count stays certain.
  checkClaims("fixtures/projects/reparented_class", "base.lua", {9}, {});
  checkClaims("fixtures/projects/reparented_class", "stats.lua", {}, {4});
}

TEST_CASE("a hook in a table of the module table links to the host's loop", "[fixtures][project]") {
  // Audit 83: a Knot Resolver module's M.layer.consume, stored after
  // M.layer is made: the closure is a certain error (it was a note).
  checkClaims("fixtures/projects/layer_module", "stats.lua", {}, {8});
}
