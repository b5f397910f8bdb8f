// The lint progress bar: only on a terminal, only for runs longer than a
// quarter second, a counter that never goes backwards, and erased before
// the first diagnostic. script(1) gives the command a terminal.
#include <catch2/catch.hpp>

#include <regex>

#include "../support/cli.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::runLjcheck;
using ljcheck::testing::runShell;
using ljcheck::testing::scratchDirectory;
using ljcheck::testing::shellQuote;
using ljcheck::testing::writeFile;

namespace {

// Enough files that the run outlasts the bar's quarter-second delay.
std::string manyFiles(const std::string& name, int count) {
  std::string dir = scratchDirectory(name);
  for (int i = 0; i < count; ++i) {
    std::string source = "local M = {}\n";
    for (int f = 0; f < 400; ++f)
      source += "function M.f" + std::to_string(f) + "(t)\n  local s = 0\n  for i = 1, #t do\n    s = s + t[i] * " +
                std::to_string(f) + "\n  end\n  return s\nend\n";
    if (i == 0) source += "for i = 1, 100 do M[i] = function() return i end end\n";
    writeFile(dir + "/src/m" + std::to_string(i) + ".lua", source);
  }
  return dir;
}

}  // namespace

TEST_CASE("the progress bar counts up on a terminal and is gone before the report", "[cli][progress]") {
  std::string dir = manyFiles("progress-tty", 400);
  std::string command = shellQuote(LJCHECK_EXE) + " lint --no-config --brief -j 2 src";
  ProcessResult tty = runShell("cd " + shellQuote(dir) + " && script -qec " + shellQuote(command) + " /dev/null");
  if (tty.exitCode == 127) {
    WARN("script(1) is not installed: the terminal test is skipped");
    return;
  }
  const std::string& screen = tty.out;  // stdout and stderr, as the terminal got them
  std::size_t firstDiagnostic = screen.find("src/m");
  REQUIRE(firstDiagnostic != std::string::npos);
  std::string before = screen.substr(0, firstDiagnostic), after = screen.substr(firstDiagnostic);
  CHECK(after.find("\r[") == std::string::npos);  // nothing of the bar after the report starts

  static const std::regex counter(R"(\] (\d+)/(\d+))");
  std::size_t last = 0, draws = 0;
  for (std::sregex_iterator it(before.begin(), before.end(), counter), end; it != end; ++it, ++draws) {
    std::size_t done = std::stoul((*it)[1]);
    CHECK(done > last);  // never backwards, never the same twice
    CHECK((*it)[2] == "400");
    last = done;
  }
  if (draws == 0) {
    WARN("the run took under a quarter second: no bar was drawn");
  } else {
    // Erased: the last thing before the report is the erase sequence.
    CHECK(before.size() >= 4);
    CHECK(before.rfind("\r\x1b[K") != std::string::npos);
    CHECK(before.rfind("\r\x1b[K") > before.rfind("\r["));
  }

  SECTION("no bar when stderr is not a terminal, or with --no-progress") {
    ProcessResult piped = runLjcheck({"lint", "--no-config", "--brief", "src"}, dir);
    CHECK(piped.err.find("\r[") == std::string::npos);
    ProcessResult off =
        runShell("cd " + shellQuote(dir) + " && script -qec " + shellQuote(command + " --no-progress") + " /dev/null");
    CHECK(off.out.find("\r[") == std::string::npos);
  }
}

TEST_CASE("a short run on a terminal draws no bar", "[cli][progress]") {
  std::string dir = manyFiles("progress-short", 2);
  std::string command = shellQuote(LJCHECK_EXE) + " lint --no-config --brief src";
  ProcessResult tty = runShell("cd " + shellQuote(dir) + " && script -qec " + shellQuote(command) + " /dev/null");
  if (tty.exitCode == 127) return;
  CHECK(tty.out.find("\r[") == std::string::npos);
}
