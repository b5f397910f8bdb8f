// ljcheck.scope in both LuaJIT hosts the suite covers, Debian's luajit and
// OpenResty's luajit2, through require("ljcheck"): each test runs one section
// of tests/integration/scopes/checks.lua, which raises on the first failed
// check and prints "ok <section>" at the end.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <string>

#include "../support/process.h"

using ljcheck::testing::ProcessResult;

namespace {

void checkSection(const std::string& luajit, const std::string& section) {
  ProcessResult run = ljcheck::testing::runInLuajitHost(
      luajit, std::string(LJCHECK_SOURCE_DIR) + "/tests/integration/scopes/checks.lua", "", 120,
      {"-e", "SECTION = '" + section + "'"});
  INFO(luajit << " checks.lua " << section << "\n" << run.out << run.err);
  CHECK(run.exitCode == 0);
  CHECK(run.out.find("ok " + section) != std::string::npos);
}

void checkInBothHosts(const std::string& section) {
  checkSection("/usr/bin/luajit", section);
  if (access(LJCHECK_LUAJIT2, X_OK) != 0) {
    WARN("OpenResty's luajit2 skipped: " LJCHECK_LUAJIT2 " does not exist (scripts/setup.sh builds it)");
    return;
  }
  checkSection(LJCHECK_LUAJIT2, section);
}

}  // namespace

TEST_CASE("scope mem.net telescopes over 10,000 frames with random allocation and collections", "[module][scopes]") {
  checkInBothHosts("telescoping");
}

TEST_CASE("scope memory figures are in bytes, allocations under 1 KB included", "[module][scopes]") {
  checkInBothHosts("bytes");
}

TEST_CASE("100,000 scope mark and done pairs of known labels leave the Lua heap byte-identical", "[module][scopes]") {
  checkInBothHosts("steady");
}

TEST_CASE("scope misuse raises clear errors", "[module][scopes]") { checkInBothHosts("misuse"); }

TEST_CASE("scopes left open across a coroutine switch stay open in the VM's one scope stack", "[module][scopes]") {
  checkInBothHosts("coroutines");
}

TEST_CASE("the scope tree walks by label and converts to label, stats and children", "[module][scopes]") {
  checkInBothHosts("tree");
}

TEST_CASE("scope mark and done in a hot loop compile into its trace: no abort, no stitch", "[module][scopes]") {
  checkInBothHosts("traces");
}
