// `-- ljcheck: allow(...)` comments from the command line: the short form
// that names the subject alone, and the masked-by notes a suppressed site
// takes with it.
#include <catch2/catch.hpp>

#include "../support/cli.h"
#include "../support/text_search.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::runLjcheck;
using ljcheck::testing::scratchDirectory;
using ljcheck::testing::writeFile;

using ljcheck::testing::has;

namespace {

// FNEW on line 4 masks the UCLO and the STITCH:print behind it.
std::string closureLoop(const std::string& comment) {
  return "local t = {}\nfor i = 1, 100 do\n  " + comment + "\n  t[i] = function() return i end\n  print(i)\nend\nreturn t\n";
}

ProcessResult lintSource(const std::string& name, const std::string& source) {
  std::string dir = scratchDirectory(name);
  writeFile(dir + "/a.lua", source);
  return runLjcheck({"lint", "--brief", "--no-config", "a.lua"}, dir);
}


}  // namespace

TEST_CASE("without a suppression the closure masks the sites behind it", "[cli][suppressions]") {
  ProcessResult r = lintSource("suppress-none", closureLoop("-- nothing to see"));
  CHECK(r.exitCode == 1);
  CHECK(has(r.out, "[NYIBC:FNEW]"));
  CHECK(has(r.out, "a.lua:4:10: warning: closure created in a loop body"));
  CHECK(has(r.out, "(masked by a.lua:4:10 NYIBC:FNEW) [STITCH:print]"));
}

TEST_CASE("allow(FNEW) is the short form of allow(NYIBC:FNEW)", "[cli][suppressions]") {
  ProcessResult full = lintSource("suppress-full", closureLoop("-- ljcheck: allow(NYIBC:FNEW)"));
  ProcessResult shortForm = lintSource("suppress-short", closureLoop("-- ljcheck: allow(FNEW)"));
  CHECK(shortForm.exitCode == 0);
  CHECK_FALSE(has(shortForm.out, "[NYIBC:FNEW]"));
  CHECK(shortForm.out == full.out);
}

TEST_CASE("suppressing the masking site removes the masked-by notes it causes", "[cli][suppressions]") {
  ProcessResult r = lintSource("suppress-masking", closureLoop("-- ljcheck: allow(FNEW)"));
  CHECK_FALSE(has(r.out, "masked by"));
  CHECK_FALSE(has(r.out, "[STITCH:print]"));
  CHECK(r.err.empty());
}

TEST_CASE("a reason turned off in the config takes its masked-by notes too", "[cli][suppressions][config]") {
  std::string dir = scratchDirectory("suppress-config");
  writeFile(dir + "/a.lua", closureLoop("-- plain"));
  writeFile(dir + "/.ljcheck.toml", "[reasons]\nFNEW = \"off\"\n");
  ProcessResult r = runLjcheck({"lint", "--brief", "a.lua"}, dir);
  CHECK(r.exitCode == 0);
  CHECK_FALSE(has(r.out, "masked by"));
}
