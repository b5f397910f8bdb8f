// Problems of the suppression comments themselves, from the command line:
// unpaired `push`/`pop` markers (always reported, as warnings) and
// `--report-unused-allows` (allows that suppress nothing), in every format.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "../support/text_search.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::runLjcheck;
using ljcheck::testing::scratchDirectory;
using ljcheck::testing::writeFile;

using ljcheck::testing::has;

namespace {

// Line 4's closure is covered by the push block; line 8's allow(STITCH:print)
// covers a line with no print call.
const std::string kBlock =
    "local t = {}\n"
    "-- ljcheck: push allow(FNEW)\n"
    "for i = 1, 100 do\n"
    "  t[i] = function() return i end\n"
    "end\n"
    "-- ljcheck: pop\n"
    "for i = 1, 100 do\n"
    "  t[i] = i * 2 -- ljcheck: allow(STITCH:print)\n"
    "end\n"
    "return t\n";

std::string project(const std::string& name, const std::string& source, const std::string& config = "") {
  std::string dir = scratchDirectory(name);
  writeFile(dir + "/a.lua", source);
  if (!config.empty()) writeFile(dir + "/.ljcheck.toml", config);
  return dir;
}


}  // namespace

TEST_CASE("a push allow block suppresses up to its pop and is clean when paired", "[cli][suppressions]") {
  std::string dir = project("directives-paired", kBlock);
  ProcessResult r = runLjcheck({"lint", "--brief", "--no-config", "a.lua"}, dir);
  CHECK(r.exitCode == 0);
  CHECK(r.out.empty());
  CHECK(r.err.empty());
}

TEST_CASE("unpaired push and pop are warnings naming file:line:column", "[cli][suppressions]") {
  std::string dir = project("directives-unpaired",
                            "local x = 1\n-- ljcheck: pop\nlocal t = {}\n-- ljcheck: push allow(FNEW)\n"
                            "for i = 1, 9 do t[i] = function() end end\nreturn t, x\n");
  ProcessResult r = runLjcheck({"lint", "--brief", "--no-config", "a.lua"}, dir);
  CHECK(r.exitCode == 1);  // warnings count towards the default --fail-on warning
  CHECK(has(r.out, "a.lua:2:1: warning: 'ljcheck: pop' with no open 'push': ignored [unpaired-pop]"));
  CHECK(has(r.out, "a.lua:4:1: warning: 'ljcheck: push' is never popped: its allows run to the end of the file "
                   "[unpaired-push]"));
  CHECK_FALSE(has(r.out, "NYIBC:FNEW"));  // the open block still applies
  ProcessResult lenient = runLjcheck({"lint", "--brief", "--no-config", "--fail-on", "error", "a.lua"}, dir);
  CHECK(lenient.exitCode == 0);
}

TEST_CASE("an allow naming no reason, code or subject is a warning with the nearest name", "[cli][suppressions]") {
  // A typo suppresses nothing: told at the comment even without
  // --report-unused-allows, as ESLint reports a disable comment for a rule
  // it does not know. allow(*) and the correct names are not reported.
  std::string dir = project("directives-unknown",
                            "local t = {}\n"
                            "for i = 1, 100 do\n"
                            "  t[i] = function() return i end -- ljcheck: allow(NYBIC:FNEW, *)\n"
                            "end\n"
                            "-- ljcheck: allow-file(STICH, UCLO, string.gsub)\n"
                            "return t\n");
  ProcessResult r = runLjcheck({"lint", "--brief", "--no-config", "--format", "json", "a.lua"}, dir);
  CHECK(r.exitCode == 1);
  auto report = nlohmann::json::parse(r.out);
  REQUIRE(report["directives"].size() == 2);
  CHECK(report["directives"][0]["id"] == "unknown-reason");
  CHECK(report["directives"][0]["line"] == 3);
  CHECK(report["directives"][0]["severity"] == "warning");
  CHECK(report["directives"][0]["message"] ==
        "allow(NYBIC:FNEW): no reason, code or subject is called 'NYBIC:FNEW' (did you mean NYIBC:FNEW?)");
  CHECK(report["directives"][1]["message"] ==
        "allow-file(STICH): no reason, code or subject is called 'STICH' (did you mean STITCH?)");
  CHECK(report["predictions"].empty());  // allow(*) covers the closure
  // The same comment with --report-unused-allows: the unknown ID is not
  // also an unused one.
  ProcessResult unused = runLjcheck({"lint", "--brief", "--no-config", "--report-unused-allows", "a.lua"}, dir);
  CHECK_FALSE(has(unused.out, "allow(NYBIC:FNEW) suppresses nothing"));
  CHECK(has(unused.out, "allow-file(string.gsub) suppresses nothing"));
}

TEST_CASE("the flag report-unused-allows reports allows that suppress nothing as errors", "[cli][suppressions]") {
  std::string dir = project("directives-unused", kBlock);
  ProcessResult quiet = runLjcheck({"lint", "--brief", "--no-config", "a.lua"}, dir);
  CHECK(quiet.exitCode == 0);
  ProcessResult r = runLjcheck({"lint", "--brief", "--no-config", "--report-unused-allows", "a.lua"}, dir);
  CHECK(r.exitCode == 1);
  CHECK(r.out == "a.lua:8:16: error: allow(STITCH:print) suppresses nothing: no prediction of STITCH:print on "
                 "line 8 [unused-allow]\n");
  // The push block's allow is used: only the stale one is named.
  CHECK_FALSE(has(r.out, "push allow(FNEW)"));
}

TEST_CASE("report-unused-allows in the config sets the level", "[cli][suppressions][config]") {
  std::string dir = project("directives-unused-config", kBlock, "report-unused-allows = \"note\"\n");
  ProcessResult r = runLjcheck({"lint", "--brief", "a.lua"}, dir);
  CHECK(r.exitCode == 0);  // a note is below --fail-on warning
  CHECK(has(r.out, "a.lua:8:16: note: allow(STITCH:print) suppresses nothing"));
  ProcessResult flag = runLjcheck({"lint", "--brief", "--report-unused-allows", "a.lua"}, dir);
  CHECK(flag.exitCode == 1);  // the flag wins: an error
  ProcessResult bad = runLjcheck({"lint", "--brief", "a.lua"},
                                 project("directives-bad-config", kBlock, "report-unused-allows = \"loud\"\n"));
  CHECK(bad.exitCode == 2);
  CHECK(has(bad.err, ".ljcheck.toml:1:24: 'report-unused-allows' must be"));
}

TEST_CASE("unused allows appear in every output format", "[cli][suppressions][formats]") {
  std::string dir = project("directives-formats", kBlock);
  auto lint = [&](const std::string& format) {
    return runLjcheck({"lint", "--no-config", "--report-unused-allows", "--format", format, "a.lua"}, dir);
  };
  ProcessResult jsonRun = lint("json");
  CHECK(jsonRun.exitCode == 1);
  auto doc = nlohmann::json::parse(jsonRun.out);
  REQUIRE(doc["directives"].size() == 1);
  CHECK(doc["directives"][0]["id"] == "unused-allow");
  CHECK(doc["directives"][0]["line"] == 8);
  CHECK(doc["directives"][0]["column"] == 16);
  CHECK(doc["directives"][0]["severity"] == "error");

  ProcessResult sarif = lint("sarif");
  auto log = nlohmann::json::parse(sarif.out);
  const auto& run = log["runs"][0];
  REQUIRE(run["results"].size() == 1);
  CHECK(run["results"][0]["ruleId"] == "unused-allow");
  CHECK(run["results"][0]["level"] == "error");
  CHECK(run["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 8);
  std::size_t index = run["results"][0]["ruleIndex"];
  CHECK(run["tool"]["driver"]["rules"][index]["id"] == "unused-allow");

  ProcessResult github = lint("github");
  CHECK(has(github.out, "::error file=a.lua,line=8,col=16,title=ljcheck unused-allow::allow(STITCH%3Aprint)") ==
        false);  // ':' is escaped in properties only, not in the message
  CHECK(has(github.out, "::error file=a.lua,line=8,col=16,title=ljcheck unused-allow::allow(STITCH:print) "
                        "suppresses nothing"));
  CHECK(has(github.out, "1 suppression comment problem"));

  ProcessResult junit = lint("junit");
  CHECK(has(junit.out, "failures=\"1\""));
  CHECK(has(junit.out, "<failure type=\"unused-allow\" message=\"a.lua:8:16: allow(STITCH:print) suppresses"));

  // CSV is a table of predictions: the problem goes to stderr, as file errors do.
  ProcessResult csv = lint("csv");
  CHECK(csv.exitCode == 1);
  CHECK_FALSE(has(csv.out, "unused-allow"));
  CHECK(has(csv.err, "a.lua:8:16: error: allow(STITCH:print) suppresses nothing"));
}

TEST_CASE("two allow directives in one comment both apply", "[cli][suppressions]") {
  // What an editor's line quickfix leaves on a line that already had one.
  std::string dir = project("directives-two-in-one",
                            "local t = {}\n"
                            "for i = 1, 100 do\n"
                            "  t[i] = string.gsub('a', 'a', 'b') -- ljcheck: allow(STITCH:print) -- ljcheck: "
                            "allow(STITCH:string.gsub)\n"
                            "end\n"
                            "return t\n");
  ProcessResult r = runLjcheck({"lint", "--brief", "--no-config", "--report-unused-allows", "a.lua"}, dir);
  CHECK_FALSE(has(r.out, "[STITCH:string.gsub]"));
  // The unused one, the first, is named at the comment's start.
  CHECK(has(r.out, "a.lua:3:37: error: allow(STITCH:print) suppresses nothing"));
  CHECK_FALSE(has(r.out, "allow(STITCH:string.gsub) suppresses nothing"));
}
