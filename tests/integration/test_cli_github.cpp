// `ljcheck lint --format github`: workflow commands for GitHub Actions
// annotations, the most severe first, escaped as the runner decodes them,
// a summary line, and a Markdown summary appended to $GITHUB_STEP_SUMMARY.
#include <catch2/catch.hpp>

#include <regex>

#include "../support/cli.h"
#include "lint_output.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::runLjcheck;
using ljcheck::testing::shellQuote;

namespace {

const std::regex kAnnotation(R"(^::(error|warning|notice) file=([^,:]+)(,line=\d+)(,endLine=\d+)?(,col=\d+,endColumn=\d+)?,title=([^,:]+)::(.+)$)");

}  // namespace

TEST_CASE("lint --format github writes one annotation per finding, most severe first, then a summary line",
          "[cli][github]") {
  ProcessResult r = runLjcheck(
      {"lint", "--format", "github", ljcheck::testing::kGsubFixture, ljcheck::testing::kFnewFixture});
  CHECK(r.exitCode == 1);
  auto out = ljcheck::testing::lines(r.out);
  REQUIRE(out.size() == 3);
  std::smatch m;
  // The gsub file sorts first, but its note comes after the FNEW error.
  REQUIRE(std::regex_match(out[0], m, kAnnotation));
  CHECK(m[1] == "error");
  CHECK(m[2] == ljcheck::testing::kFnewFixture);
  CHECK(m[3] == ",line=4");
  CHECK(m[5] == ",col=13,endColumn=21");
  CHECK(m[6] == "ljcheck NYIBC%3AFNEW");  // ':' is escaped in a property
  CHECK(m[7].str().find("closure created in a loop body") == 0);
  CHECK(m[7].str().find("[NYIBC:FNEW]%0ASee docs/reasons/NYIBC.md") != std::string::npos);  // a line break in the data
  REQUIRE(std::regex_match(out[1], m, kAnnotation));
  CHECK(m[1] == "notice");
  CHECK(m[2] == ljcheck::testing::kGsubFixture);
  CHECK(out[2] == "ljcheck: 1 error, 0 warnings, 1 note in 2 files");
}

TEST_CASE("lint --format github: GitHub shows ten of a kind, the summary line counts the rest", "[cli][github]") {
  ProcessResult r = runLjcheck({"lint", "--format", "github", "fixtures/"});
  auto out = ljcheck::testing::lines(r.out);
  REQUIRE(out.size() > 22);
  std::string last = out.back();
  CHECK(last.rfind("ljcheck: ", 0) == 0);
  CHECK(last.find("GitHub shows 10 annotations of each kind per step") != std::string::npos);
  // Severity never rises down the list.
  auto rank = [](const std::string& line) {
    return line.rfind("::error", 0) == 0 ? 2 : line.rfind("::warning", 0) == 0 ? 1 : 0;
  };
  for (std::size_t i = 1; i + 1 < out.size(); ++i) {
    INFO(out[i - 1] << "\n" << out[i]);
    CHECK(out[i].rfind("::", 0) == 0);
    CHECK(rank(out[i - 1]) >= rank(out[i]));
  }
}

TEST_CASE("lint --format github escapes file names and appends a step summary", "[cli][github]") {
  std::string dir = ljcheck::testing::scratchDirectory("github-names");
  std::string fixture = ljcheck::testing::readFile(std::string(LJCHECK_SOURCE_DIR) + "/" + ljcheck::testing::kFnewFixture);
  ljcheck::testing::writeFile(dir + "/a,b:c%d|e.lua", fixture);
  ljcheck::testing::writeFile(dir + "/line\nbreak.lua", fixture);
  ljcheck::testing::writeFile(dir + "/esc\x1b[2J.lua", fixture);
  std::string summary = dir + "/summary.md";
  ljcheck::testing::writeFile(summary, "earlier step\n");
  ProcessResult r = ljcheck::testing::runShell("cd " + shellQuote(dir) + " && GITHUB_STEP_SUMMARY=" + shellQuote(summary) +
                                               " " + shellQuote(LJCHECK_EXE) + " lint --format github .");
  CHECK(r.exitCode == 1);
  CHECK(r.out.find('\x1b') == std::string::npos);
  auto out = ljcheck::testing::lines(r.out);
  REQUIRE(out.size() == 4);  // three annotations and the summary line: no name broke a line
  CHECK(r.out.find("::error file=a%2Cb%3Ac%25d|e.lua,line=4,") != std::string::npos);
  CHECK(r.out.find("::error file=line%0Abreak.lua,line=4,") != std::string::npos);
  CHECK(r.out.find("::error file=esc\\x1b[2J.lua,line=4,") != std::string::npos);

  std::string md = ljcheck::testing::readFile(summary);
  CHECK(md.rfind("earlier step\n### ljcheck lint\n", 0) == 0);  // appended, not replaced
  CHECK(md.find("3 errors, 0 warnings, 0 notes in 3 files") != std::string::npos);
  CHECK(md.find("| error | a,b:c%d\\|e.lua:4 | NYIBC:FNEW |") != std::string::npos);
  CHECK(md.find("line\\\\x0abreak.lua:4") != std::string::npos);  // the escape's backslash, escaped
  CHECK(md.find('\x1b') == std::string::npos);

  // Without the variable nothing else is written.
  ProcessResult plain = runLjcheck({"lint", "--format", "github", "."}, dir);
  CHECK(plain.out == r.out);
}
