// `ljcheck lint` from the command line: the three output formats and the
// exit codes scripts rely on (0 clean, 1 findings at or above --fail-on,
// 2 usage errors).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "../support/cli.h"
#include "lint_output.h"

using ljcheck::testing::ProcessResult;
using nlohmann::json;

using ljcheck::testing::runLjcheck;

using ljcheck::testing::lines;
using ljcheck::testing::parseCsv;

namespace {

const std::string& kFnew = ljcheck::testing::kFnewFixture;  // NYIBC:FNEW on line 4
const std::string& kGsub = ljcheck::testing::kGsubFixture;  // STITCH:string.gsub on line 5
const std::string& kClean = ljcheck::testing::kCleanFixture;

}  // namespace

TEST_CASE("lint prints gcc-style diagnostics: path:line[:col]: severity: message [reasonId]", "[cli][lint]") {
  ProcessResult r = runLjcheck({"lint", "--brief", kFnew, kGsub});
  CHECK(r.exitCode == 1);
  CHECK(r.err.empty());
  auto out = lines(r.out);
  REQUIRE(out.size() == 2);
  static const std::regex gcc(R"(^([^:]+):(\d+)(:\d+)?: (error|warning|note): (.+) \[([A-Z]+(:[^\] ]+)?)\]$)");
  std::smatch m;
  REQUIRE(std::regex_match(out[0], m, gcc));
  CHECK(m[1] == kFnew);
  CHECK(m[2] == "4");
  CHECK(m[4] == "error");  // a blocker in a loop body predicts blacklisting
  CHECK(m[6] == "NYIBC:FNEW");
  REQUIRE(std::regex_match(out[1], m, gcc));
  CHECK(m[1] == kGsub);
  CHECK(m[2] == "5");
  CHECK(m[4] == "note");  // a stitch is trace formation working as designed
  CHECK(m[6] == "STITCH:string.gsub");
}

TEST_CASE("lint --format csv writes an RFC 4180 table with a header", "[cli][lint]") {
  ProcessResult r = runLjcheck({"lint", "--format", "csv", kFnew, kGsub});
  CHECK(r.exitCode == 1);
  CHECK(r.out.rfind("path,line,reasonId,class,severity,context,column,confidence,masked\r\n", 0) == 0);
  auto records = parseCsv(r.out);
  REQUIRE(records.size() == 3);
  CHECK(records[1] ==
        std::vector<std::string>{kFnew, "4", "NYIBC:FNEW", "blocker", "blacklist", "loop", "13", "certain", "false"});
  CHECK(records[2] ==
        std::vector<std::string>{kGsub, "5", "STITCH:string.gsub", "stop", "info", "loop", "13", "certain", "false"});

  SECTION("a path with a comma and a quote is quoted, the quote doubled") {
    std::string dir = ljcheck::testing::scratchDirectory("csv-quoting");
    std::string name = "odd, \"quoted\" name.lua";
    ljcheck::testing::writeFile(dir + "/" + name, ljcheck::testing::readFile(std::string(LJCHECK_SOURCE_DIR) + "/" + kFnew));
    ProcessResult odd = runLjcheck({"lint", "--format", "csv", name}, dir);
    CHECK(odd.exitCode == 1);
    CHECK(odd.out.find("\"odd, \"\"quoted\"\" name.lua\",4,NYIBC:FNEW,") != std::string::npos);
    auto rows = parseCsv(odd.out);
    REQUIRE(rows.size() == 2);
    CHECK(rows[1][0] == name);
  }
}

TEST_CASE("lint --format json holds the recorder profile, the catalog and every prediction field", "[cli][lint]") {
  ProcessResult r = runLjcheck({"lint", "--format", "json", kFnew, kGsub});
  CHECK(r.exitCode == 1);
  json j = json::parse(r.out);
  CHECK(j.at("tool") == "ljcheck");
  CHECK(j.at("kind") == "lint");
  const json& profile = j.at("traceProfile");
  CHECK(!profile.at("id").get<std::string>().empty());
  CHECK(!profile.at("name").get<std::string>().empty());
  CHECK(profile.at("supported").get<bool>());
  CHECK(!j.at("reasonCatalogId").get<std::string>().empty());
  CHECK(j.at("reasonCatalogVersion").get<int>() >= 1);
  CHECK(j.at("errors").empty());

  const json& predictions = j.at("predictions");
  REQUIRE(predictions.size() == 2);
  for (const char* field : {"reasonId", "reasonClass", "severity", "path", "line", "column", "endColumn", "range",
                            "location", "context", "construct", "instruction", "callee", "function", "message", "advice",
                            "confidence", "reasoning"}) {
    INFO("field " << field);
    CHECK(predictions[0].contains(field));
    CHECK(predictions[1].contains(field));
  }
  const json& fnew = predictions[0];
  CHECK(fnew.at("reasonId") == "NYIBC:FNEW");
  CHECK(fnew.at("reasonClass") == "blocker");
  CHECK(fnew.at("severity") == "blacklist");
  CHECK(fnew.at("path") == kFnew);
  CHECK(fnew.at("line") == 4);
  // The `function` keyword, in bytes from 1, the end exclusive; on `line`, so column and endColumn match it.
  CHECK(fnew.at("range") == json::parse(R"({"start": {"line": 4, "column": 13}, "end": {"line": 4, "column": 21}})"));
  CHECK(fnew.at("column") == 13);
  CHECK(fnew.at("endColumn") == 21);
  CHECK(fnew.at("location") == kFnew + ":4");
  CHECK(fnew.at("context") == "loop");
  CHECK(fnew.at("construct") == "closure");
  CHECK(fnew.at("instruction") == "FNEW");
  CHECK(fnew.at("function") == "<main>");
  CHECK(!fnew.at("message").get<std::string>().empty());
  CHECK(!fnew.at("advice").get<std::string>().empty());
  CHECK(fnew.at("confidence") == "certain");
  CHECK(fnew.at("reasoning").get<std::string>().find("loop at line 3") != std::string::npos);
  CHECK(!fnew.contains("maskedBy"));
  CHECK(fnew.at("docs") == "docs/reasons/NYIBC.md");
  const json& gsub = predictions[1];
  CHECK(gsub.at("reasonId") == "STITCH:string.gsub");
  CHECK(gsub.at("reasonClass") == "stop");
  CHECK(gsub.at("severity") == "info");
  CHECK(gsub.at("location") == kGsub + ":5");
  CHECK(gsub.at("callee") == "string.gsub");
}

// Two sites the recorder refuses in one loop body: the closure aborts every
// trace first, so the upvalue close after it is masked.
const char* kMaskedSource =
    "local t = {}\n"
    "for i = 1, 50000 do\n"
    "  local x = i * 2\n"
    "  t[i] = function() return x end\n"
    "end\n"
    "return t\n";

TEST_CASE("lint's text lists findings in the order of the positions it shows", "[cli][lint]") {
  // The closure's FNEW carries the line of its `end` (5), after the call
  // inside it (4); the text shows the closure at its `function` keyword (3),
  // so it comes first there. JSON keeps the VM's lines and their order.
  std::string dir = ljcheck::testing::scratchDirectory("text-order");
  ljcheck::testing::writeFile(dir + "/a.lua",
                              "local t = {}\n"
                              "for i = 1, 100 do\n"
                              "  t[i] = function(s)\n"
                              "    return (string.gsub(s, 'a', 'b'))\n"
                              "  end\n"
                              "end\n"
                              "return t\n");
  auto out = lines(runLjcheck({"lint", "--brief", "--no-config", "a.lua"}, dir).out);
  REQUIRE(out.size() == 2);
  CHECK(out[0].rfind("a.lua:3:10: warning: closure created in a loop body", 0) == 0);
  CHECK(out[1].rfind("a.lua:4:13: note: call to string.gsub is not compiled", 0) == 0);
  json j = json::parse(runLjcheck({"lint", "--format", "json", "--no-config", "a.lua"}, dir).out);
  REQUIRE(j.at("predictions").size() == 2);
  CHECK(j["predictions"][0].at("line") == 4);
  CHECK(j["predictions"][1].at("line") == 5);
}

TEST_CASE("lint explains each prediction: confidence and reasoning in a note, masking named", "[cli][lint]") {
  std::string dir = ljcheck::testing::scratchDirectory("explain");
  ljcheck::testing::writeFile(dir + "/masked.lua", kMaskedSource);
  ProcessResult text = runLjcheck({"lint", "masked.lua"}, dir);
  CHECK(text.exitCode == 1);
  auto out = lines(text.out);
  REQUIRE(out.size() == 4);
  CHECK(out[0] == "masked.lua:4:10: error: closure created in a loop body: the recorder cannot compile FNEW [NYIBC:FNEW]");
  CHECK(out[1].rfind("masked.lua:4:10: note: certain: it runs in the loop at line 2", 0) == 0);
  CHECK(out[1].find(" (see docs/reasons/NYIBC.md)") != std::string::npos);  // the reason's page
  // The masked site is a note, whatever its own severity: fix the closure first.
  // Its UCLO is on the line of the body's last token; it is shown at the loop's `end`.
  CHECK(out[2].rfind("masked.lua:5:1: note: ", 0) == 0);
  // The masking site is named where its own row is shown (line and column), so
  // that it can be found in the output; JSON keeps the VM line, the join key.
  CHECK(out[2].find("(masked by masked.lua:4:10 NYIBC:FNEW) [NYIBC:UCLO]") != std::string::npos);
  CHECK(out[3].rfind("masked.lua:5:1: note: certain: ", 0) == 0);

  json j = json::parse(runLjcheck({"lint", "--format", "json", "masked.lua"}, dir).out);
  const json& predictions = j.at("predictions");
  REQUIRE(predictions.size() == 2);
  CHECK(predictions[1].at("reasonId") == "NYIBC:UCLO");
  CHECK(predictions[1].at("maskedBy") ==
        json{{"location", "masked.lua:4"}, {"reasonId", "NYIBC:FNEW"}, {"severityWhenUnmasked", "blacklist"}});
  // Shown as a note, as in every format: not a second blacklist finding.
  CHECK(predictions[1].at("severity") == "info");
  // The range is on another line than the VM's: column and endColumn are 0.
  CHECK(predictions[1].at("line") == 4);
  CHECK(predictions[1].at("range") ==
        json::parse(R"({"start": {"line": 5, "column": 1}, "end": {"line": 5, "column": 4}})"));
  CHECK(predictions[1].at("column") == 0);
  CHECK(predictions[1].at("endColumn") == 0);

  // In CSV a masked row says so, and is a note: not a second blacklist finding.
  auto rows = parseCsv(runLjcheck({"lint", "--format", "csv", "masked.lua"}, dir).out);
  REQUIRE(rows.size() == 3);
  CHECK(rows[1] ==
        std::vector<std::string>{"masked.lua", "4", "NYIBC:FNEW", "blocker", "blacklist", "loop", "10", "certain", "false"});
  CHECK(rows[2] ==
        std::vector<std::string>{"masked.lua", "4", "NYIBC:UCLO", "blocker", "info", "loop", "0", "certain", "true"});
}

TEST_CASE("a masked prediction alone never fails the run, its masking site does", "[cli][lint]") {
  std::string dir = ljcheck::testing::scratchDirectory("masked-exit");
  ljcheck::testing::writeFile(dir + "/masked.lua", kMaskedSource);
  // Both sites are blacklist-severity blockers. Allowing the closure (it
  // still aborts every trace) takes the masked close's note with it
  // (test_cli_suppressions.cpp): nothing is left to fail the run.
  ljcheck::testing::writeFile(dir + "/allowed.lua",
                              "local t = {}\n"
                              "for i = 1, 50000 do\n"
                              "  local x = i * 2\n"
                              "  t[i] = function() return x end -- ljcheck: allow(NYIBC:FNEW)\n"
                              "end\n"
                              "return t\n");
  CHECK(runLjcheck({"lint", "--fail-on", "blacklist", "masked.lua"}, dir).exitCode == 1);
  ProcessResult allowed = runLjcheck({"lint", "--fail-on", "blacklist", "allowed.lua"}, dir);
  CHECK(allowed.out.find("masked by allowed.lua:4") == std::string::npos);
  CHECK(allowed.exitCode == 0);
}

TEST_CASE("lint --confidence sets the lowest confidence reported", "[cli][lint]") {
  // DOWNREC is likely there; CUNROLL depends on the recursion depth at run time: possible.
  const std::string recursion = "fixtures/downrec_linear_sum.lua";
  ProcessResult likely = runLjcheck({"lint", "--fail-on", "none", recursion});
  ProcessResult possible = runLjcheck({"lint", "--fail-on", "none", "--confidence", "possible", recursion});
  CHECK(likely.out.find("[DOWNREC]") != std::string::npos);
  CHECK(likely.out.find("[CUNROLL]") == std::string::npos);
  CHECK(possible.out.find("[CUNROLL]") != std::string::npos);
  CHECK(possible.out.find("note: possible: ") != std::string::npos);
  ProcessResult certain = runLjcheck({"lint", "--confidence", "certain", "--format", "json", kFnew, kGsub});
  json report = json::parse(certain.out);
  REQUIRE(!report.at("predictions").empty());
  for (const auto& p : report.at("predictions")) CHECK(p.at("confidence") == "certain");
  ProcessResult bad = runLjcheck({"lint", "--confidence", "sure", kFnew});
  CHECK(bad.exitCode == 2);
  CHECK(bad.err.find("--confidence must be certain, likely or possible") != std::string::npos);
}

TEST_CASE("lint exit codes: 0 clean, 1 findings at or above --fail-on", "[cli][lint]") {
  CHECK(runLjcheck({"lint", kClean}).exitCode == 0);
  CHECK(runLjcheck({"lint", kClean}).out.empty());
  CHECK(runLjcheck({"lint", kFnew}).exitCode == 1);
  CHECK(runLjcheck({"lint", "--fail-on", "none", kFnew}).exitCode == 0);
  CHECK(runLjcheck({"lint", "--fail-on", "blacklist", kFnew}).exitCode == 1);
  CHECK(runLjcheck({"lint", "--fail-on", "blacklist", kGsub}).exitCode == 0);  // a stitch is only a note
  CHECK(runLjcheck({"lint", kGsub}).exitCode == 0);                            // the default threshold is warn
  CHECK(runLjcheck({"lint", "--fail-on", "info", kGsub}).exitCode == 1);
  // --fail-on decides the status, never what is printed.
  CHECK(runLjcheck({"lint", "--fail-on", "none", kGsub}).out == runLjcheck({"lint", kGsub}).out);
}

TEST_CASE("lint usage errors exit 2 and say what was wrong", "[cli][lint]") {
  ProcessResult unknownOption = runLjcheck({"lint", "--no-such-option", kFnew});
  CHECK(unknownOption.exitCode == 2);
  CHECK(unknownOption.err.find("--no-such-option") != std::string::npos);
  CHECK(unknownOption.out.empty());

  ProcessResult unknownCommand = runLjcheck({"lnit", kFnew});
  CHECK(unknownCommand.exitCode == 2);
  CHECK(unknownCommand.err.find("unknown command 'lnit'") != std::string::npos);

  ProcessResult unknownProfile = runLjcheck({"lint", "--profile", "x", kFnew});
  CHECK(unknownProfile.exitCode == 2);
  CHECK(unknownProfile.err.find("unknown recorder profile 'x'") != std::string::npos);
  CHECK(unknownProfile.out.empty());

  ProcessResult badThreshold = runLjcheck({"lint", "--fail-on", "sometimes", kFnew});
  CHECK(badThreshold.exitCode == 2);
  CHECK(badThreshold.err.find("--fail-on") != std::string::npos);

  ProcessResult badFormat = runLjcheck({"lint", "--format", "xml", kFnew});
  CHECK(badFormat.exitCode == 2);
  CHECK(badFormat.err.find("xml") != std::string::npos);

  ProcessResult noPaths = runLjcheck({"lint"});
  CHECK(noPaths.exitCode == 2);
  CHECK(noPaths.err.find("paths") != std::string::npos);

  ProcessResult badRoot = runLjcheck({"lint", "--root", "no/such/root", kFnew});
  CHECK(badRoot.exitCode == 2);
  CHECK(badRoot.err.find("no/such/root") != std::string::npos);
}

TEST_CASE("lint -j 2 predicts exactly what -j 1 does over every fixture", "[cli][lint]") {
  ProcessResult one = runLjcheck({"lint", "--format", "json", "-j", "1", "fixtures/"});
  ProcessResult two = runLjcheck({"lint", "--format", "json", "-j", "2", "fixtures/"});
  CHECK(one.exitCode == 1);
  CHECK(two.exitCode == one.exitCode);
  json a = json::parse(one.out), b = json::parse(two.out);
  CHECK(a.at("predictions").size() >= 30);
  CHECK(a.at("predictions") == b.at("predictions"));
  CHECK(a.at("errors") == b.at("errors"));
  CHECK(a.at("files") == b.at("files"));
  CHECK(one.out == two.out);  // byte for byte: rows rendered by two threads come out in file order
  CHECK(runLjcheck({"lint", "--format", "json", "-j", "3", "fixtures/"}).out == one.out);
}

TEST_CASE("lint --fail-on takes the words text prints as well as the catalog's", "[cli][lint]") {
  // error = blacklist, warning = warn, note = info: each pair decides alike.
  for (auto [printed, catalog] : {std::pair{"error", "blacklist"}, {"warning", "warn"}, {"note", "info"}}) {
    INFO(printed << " / " << catalog);
    for (const std::string& file : {kFnew, kGsub, kClean}) {
      int a = runLjcheck({"lint", "--fail-on", printed, file}).exitCode;
      int b = runLjcheck({"lint", "--fail-on", catalog, file}).exitCode;
      CHECK(a == b);
    }
  }
  CHECK(runLjcheck({"lint", "--fail-on", "error", kFnew}).exitCode == 1);  // the FNEW line reads "error:"
  CHECK(runLjcheck({"lint", "--fail-on", "error", kGsub}).exitCode == 0);  // the gsub line reads "note:"
  CHECK(runLjcheck({"lint", "--fail-on", "note", kGsub}).exitCode == 1);
  ProcessResult bad = runLjcheck({"lint", "--fail-on", "fatal", kFnew});
  CHECK(bad.exitCode == 2);
  CHECK(bad.err.find("'fatal'") != std::string::npos);
  CHECK(bad.err.find("error (or blacklist)") != std::string::npos);
}

TEST_CASE("lint - reads standard input and reports it under --stdin-filename", "[cli][lint][stdin]") {
  using ljcheck::testing::shellQuote;
  std::string dir = ljcheck::testing::scratchDirectory("stdin");
  std::string exe = shellQuote(LJCHECK_EXE);
  std::string fixture = shellQuote(std::string(LJCHECK_SOURCE_DIR) + "/" + kFnew);
  // The buffer is not on disk under that name: an editor's unsaved buffer.
  ProcessResult named = ljcheck::testing::runShell("cd " + shellQuote(dir) + " && " + exe +
                                                  " lint --brief --stdin-filename src/world.lua - < " + fixture);
  CHECK(named.exitCode == 1);
  CHECK(named.out == "src/world.lua:4:13: error: closure created in a loop body: the recorder cannot compile FNEW "
                     "[NYIBC:FNEW]\n");
  CHECK(named.err.empty());

  // The same predictions as from the file, in every format.
  ProcessResult fromFile = runLjcheck({"lint", "--format", "csv", kFnew});
  ProcessResult fromStdin = ljcheck::testing::runShell("cd " + shellQuote(LJCHECK_SOURCE_DIR) + " && " + exe +
                                                      " lint --format csv --stdin-filename " + kFnew + " - < " +
                                                      fixture);
  CHECK(fromStdin.out == fromFile.out);

  ProcessResult unnamed = ljcheck::testing::runShell("cd " + shellQuote(dir) + " && " + exe + " lint --brief - < " + fixture);
  CHECK(unnamed.out.rfind("<stdin>:4:13: error: ", 0) == 0);

  // A syntax error on stdin is a file error under that name, exit 3.
  ProcessResult broken = ljcheck::testing::runShell("cd " + shellQuote(dir) + " && printf 'for i = 1 do\\n' | " + exe +
                                                   " lint --stdin-filename broken.lua -");
  CHECK(broken.exitCode == 3);
  CHECK(broken.out.rfind("broken.lua:", 0) == 0);

  // --stdin-filename without '-' is a usage error.
  ProcessResult noDash = runLjcheck({"lint", "--stdin-filename", "x.lua", kFnew});
  CHECK(noDash.exitCode == 2);
  CHECK(noDash.err.find("'-'") != std::string::npos);
}

TEST_CASE("lint --color: always, never, and auto honours NO_COLOR", "[cli][lint][color]") {
  const std::string esc = "\x1b[";
  ProcessResult always = runLjcheck({"lint", "--brief", "--color", "always", kFnew});
  CHECK(always.out.find(esc + "1;31merror" + esc + "0m: ") != std::string::npos);
  ProcessResult never = runLjcheck({"lint", "--brief", "--color", "never", kFnew});
  CHECK(never.out.find(esc) == std::string::npos);
  // auto: a pipe is not a terminal.
  CHECK(runLjcheck({"lint", "--brief", kFnew}).out == never.out);
  // On a terminal (script(1) gives the command one), auto colours unless NO_COLOR is set.
  std::string command = ljcheck::testing::shellQuote(LJCHECK_EXE) + " lint --brief " + kFnew;
  std::string cd = "cd " + ljcheck::testing::shellQuote(LJCHECK_SOURCE_DIR) + " && ";
  ProcessResult tty = ljcheck::testing::runShell(cd + "script -qec " + ljcheck::testing::shellQuote(command) + " /dev/null");
  ProcessResult noColor = ljcheck::testing::runShell(cd + "NO_COLOR=1 script -qec " +
                                                    ljcheck::testing::shellQuote(command) + " /dev/null");
  if (tty.exitCode == 127) {
    WARN("script(1) is not installed: the terminal half of this test is skipped");
    return;
  }
  CHECK(tty.out.find(esc + "1;31merror") != std::string::npos);
  CHECK(noColor.out.find(esc + "1;31m") == std::string::npos);
  CHECK(noColor.out.find("error: closure created") != std::string::npos);
  ProcessResult bad = runLjcheck({"lint", "--color", "sometimes", kFnew});
  CHECK(bad.exitCode == 2);
  CHECK(bad.err.find("sometimes") != std::string::npos);
}
