// Where a sample taken in compiled code gets its stack (compiledStacks): by
// default a sample session leaves the program's traces alone (no flush at
// start), and samples in compiled code are still counted as compiled; with
// "function" LuaJIT flushes every trace at start, as under jit.p. Observed
// with a jit.attach handler on the trace events in both supported hosts.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../support/process.h"
#include "../support/spin_clock.h"

using ljcheck::testing::ProcessResult;

namespace {

struct Observed {
  int flushesAtStart = -1;  // trace flushes between before and after ljcheck.sample()
  long compiled = -1;       // the report's compiled samples
  long samples = -1;
};

Observed sampleHotLoop(const std::string& luajit, const std::string& compiledStacks) {
  std::string dir = ljcheck::testing::freshDirectory(std::string(LJCHECK_BINARY_DIR) + "/compiled-stacks/" +
                                                     compiledStacks + (luajit == "/usr/bin/luajit" ? "" : "-luajit2"));
  std::string script = dir + "/hot.lua";
  ljcheck::testing::writeFile(
      script,
      std::string(ljcheck::testing::kSpinClock) +
      "local ljcheck = require('ljcheck')\n"
      "local flushes = 0\n"
      "jit.attach(function(what) if what == 'flush' then flushes = flushes + 1 end end, 'trace')\n"
      "local function work() local n = 0 for i = 1, 100000 do n = n + i % 7 end return n end\n"
      "local function spin(seconds)\n"
      "  local wall, cpu = deadline(seconds)\n"
      "  while now() < wall or os.clock() < cpu do work() end\n"
      "end\n"
      "spin(0.02)\n"
      "local before = flushes\n"
      "local s = ljcheck.sample({ intervalMs = 1, compiledStacks = '" + compiledStacks + "' })\n"
      "assert(s.compiledStacks == '" + compiledStacks + "', tostring(s.compiledStacks))\n"
      "local atStart = flushes - before\n"
      "spin(0.15)\n"
      "local report = s:stop()\n"
      "io.write(atStart, ' ', report.compiled, ' ', report.samples, '\\n')\n");
  ProcessResult run = ljcheck::testing::runInLuajitHost(luajit, script, dir);
  INFO(run.out << run.err);
  REQUIRE(run.exitCode == 0);
  Observed observed;
  std::istringstream(run.out) >> observed.flushesAtStart >> observed.compiled >> observed.samples;
  return observed;
}

void checkBothModes(const std::string& luajit) {
  Observed exit = sampleHotLoop(luajit, "exit");
  CHECK(exit.flushesAtStart == 0);
  CHECK(exit.samples >= 20);
  // The loop runs compiled; its samples arrive at the trace's exits and keep their state.
  CHECK(exit.compiled * 2 > exit.samples);

  Observed function = sampleHotLoop(luajit, "function");
  CHECK(function.flushesAtStart == 1);
  CHECK(function.samples >= 20);
  CHECK(function.compiled * 2 > function.samples);
}

}  // namespace

TEST_CASE("a sample session leaves the traces alone unless compiledStacks is function, in Debian's luajit",
          "[module][sampler]") {
  checkBothModes("/usr/bin/luajit");
}

TEST_CASE("a sample session leaves the traces alone unless compiledStacks is function, in OpenResty's luajit2",
          "[module][sampler][openresty]") {
  if (access(LJCHECK_LUAJIT2, X_OK) != 0) {
    WARN("skipped: " LJCHECK_LUAJIT2 " does not exist (scripts/setup.sh builds it)");
    return;
  }
  checkBothModes(LJCHECK_LUAJIT2);
}

TEST_CASE("ljcheck.sample refuses a compiledStacks that is neither exit nor function", "[module][sampler]") {
  std::string dir = ljcheck::testing::freshDirectory(std::string(LJCHECK_BINARY_DIR) + "/compiled-stacks/bad");
  std::string script = dir + "/bad.lua";
  ljcheck::testing::writeFile(script,
                              "local ljcheck = require('ljcheck')\n"
                              "local ok, err = pcall(ljcheck.sample, { compiledStacks = 'line' })\n"
                              "io.write(tostring(ok), '|', tostring(err), '\\n')\n"
                              "ok, err = pcall(ljcheck.sample, { compiledStacks = 1 })\n"
                              "io.write(tostring(ok), '|', tostring(err), '\\n')\n");
  ProcessResult run = ljcheck::testing::runInLuajitHost("/usr/bin/luajit", script, dir);
  INFO(run.out << run.err);
  REQUIRE(run.exitCode == 0);
  CHECK(run.out.find("false|ljcheck.sample: option 'compiledStacks' must be \"exit\" or \"function\", got \"line\"") !=
        std::string::npos);
  CHECK(run.out.find("false|ljcheck.sample: option 'compiledStacks' must be a string, got a number") !=
        std::string::npos);
}

TEST_CASE("ljcheck run --compiled-stacks takes exit or function and refuses anything else", "[cli][run][sampler]") {
  std::string dir = ljcheck::testing::freshDirectory(std::string(LJCHECK_BINARY_DIR) + "/compiled-stacks/run");
  ljcheck::testing::writeFile(dir + "/busy.lua",
                              std::string(ljcheck::testing::kSpinClock) +
                              "local n, wall, cpu = 0, deadline(0.05)\n"
                              "while now() < wall or os.clock() < cpu do for i = 1, 1000 do n = n + i end end\n");
  for (const char* where : {"exit", "function"}) {
    ProcessResult run = ljcheck::testing::runProcess(
        {LJCHECK_EXE, "run", "--compiled-stacks", where, "--interval", "1", "--json", "run.json", "--", "busy.lua"},
        dir);
    INFO(where << ": " << run.out << run.err);
    CHECK(run.exitCode == 0);
    nlohmann::json report = nlohmann::json::parse(ljcheck::testing::readFile(dir + "/run.json"));
    CHECK(report.at("samples").at("compiledStacks") == where);
  }
  ProcessResult bad = ljcheck::testing::runProcess({LJCHECK_EXE, "run", "--compiled-stacks", "line", "busy.lua"}, dir);
  INFO(bad.out << bad.err);
  CHECK(bad.exitCode == 2);
  CHECK(bad.err.find("--compiled-stacks") != std::string::npos);
}
