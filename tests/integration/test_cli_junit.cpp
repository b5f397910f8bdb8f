// `ljcheck lint --format junit`: JUnit XML for CI test reports, one testcase
// per file and one failure per finding at or above --fail-on.
#include <catch2/catch.hpp>

#include <regex>

#include "../support/cli.h"
#include "../support/text_search.h"
#include "lint_output.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::runLjcheck;

using ljcheck::testing::countOf;

namespace {

// Whether xmllint (libxml2-utils, installed by scripts/setup.sh) reads the
// file as well-formed XML.
void requireWellFormed(const std::string& file) {
  ProcessResult r = ljcheck::testing::runProcess({"xmllint", "--noout", file});
  INFO("xmllint: " << r.err);
  if (r.exitCode == 127 || (r.exitCode == -1 && r.signal == 0)) {
    WARN("xmllint is not installed: the well-formedness check is skipped");
    return;
  }
  CHECK(r.exitCode == 0);
}

}  // namespace

TEST_CASE("lint --format junit: a testcase per file, a failure per finding at or above --fail-on", "[cli][junit]") {
  std::string dir = ljcheck::testing::scratchDirectory("junit");
  const std::vector<std::string> files{ljcheck::testing::kFnewFixture, ljcheck::testing::kGsubFixture,
                                       ljcheck::testing::kCleanFixture};
  auto lint = [&](const std::string& failOn) {
    std::vector<std::string> args{"lint", "--format", "junit", "--fail-on", failOn};
    args.insert(args.end(), files.begin(), files.end());
    return runLjcheck(args);
  };
  ProcessResult warn = lint("warning");
  CHECK(warn.exitCode == 1);
  ljcheck::testing::writeFile(dir + "/warn.xml", warn.out);
  requireWellFormed(dir + "/warn.xml");
  CHECK(countOf(warn.out, "<testcase ") == 3);
  CHECK(countOf(warn.out, "<failure ") == 1);  // FNEW; the stitch is a note
  CHECK(warn.out.find("<testsuites name=\"ljcheck lint\" tests=\"3\" failures=\"1\" errors=\"0\">") != std::string::npos);
  CHECK(warn.out.find("<failure type=\"NYIBC:FNEW\" message=\"" + ljcheck::testing::kFnewFixture + ":4:13: closure") !=
        std::string::npos);
  CHECK(warn.out.find("name=\"" + ljcheck::testing::kCleanFixture + "\" file=\"" + ljcheck::testing::kCleanFixture +
                      "\"/>") != std::string::npos);

  ProcessResult note = lint("note");
  CHECK(countOf(note.out, "<failure ") == 2);
  ProcessResult none = lint("none");
  CHECK(none.exitCode == 0);
  CHECK(countOf(none.out, "<failure ") == 0);
  CHECK(countOf(none.out, "<testcase ") == 3);
}

TEST_CASE("lint --format junit: files that cannot be analyzed are errors, names are escaped", "[cli][junit]") {
  std::string dir = ljcheck::testing::scratchDirectory("junit-names");
  std::string fixture = ljcheck::testing::readFile(std::string(LJCHECK_SOURCE_DIR) + "/" + ljcheck::testing::kFnewFixture);
  ljcheck::testing::writeFile(dir + "/<a & \"b\">.lua", fixture);
  ljcheck::testing::writeFile(dir + "/esc\x1b\xff.lua", fixture);
  ljcheck::testing::writeFile(dir + "/broken.lua", "for i = 1 do\n");
  ProcessResult r = runLjcheck({"lint", "--format", "junit", "."}, dir);
  CHECK(r.exitCode == 3);
  ljcheck::testing::writeFile(dir + "/report.xml", r.out);
  requireWellFormed(dir + "/report.xml");
  CHECK(r.out.find("name=\"&lt;a &amp; &quot;b&quot;&gt;.lua\"") != std::string::npos);
  CHECK(r.out.find("name=\"esc\\x1b\\xff.lua\"") != std::string::npos);
  CHECK(countOf(r.out, "<error ") == 1);
  CHECK(r.out.find("errors=\"1\"") != std::string::npos);
}
