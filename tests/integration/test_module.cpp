// ljcheck.so in Debian's own luajit: the module loads into a host whose VM it
// did not link, traces a closure loop and prints the report as CSV.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "../support/process.h"

using ljcheck::testing::ProcessResult;

namespace {

// Runs a script in Debian's luajit, which loads our module through require.
ProcessResult runLuajit(const std::string& scriptPath) {
  return ljcheck::testing::runInLuajitHost("/usr/bin/luajit", scriptPath);
}

std::string writeScript(const std::string& name, const std::string& text) {
  std::string path = std::string(LJCHECK_BINARY_DIR) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("require('ljcheck') in Debian's luajit traces a closure loop", "[module]") {
  std::string script = writeScript("test_module_closure.lua",
                                   "local ljcheck = require('ljcheck')\n"
                                   "local session = ljcheck.trace({root = '" LJCHECK_BINARY_DIR "'})\n"
                                   "local n = 0\n"
                                   "for i = 1, 3000 do\n"
                                   "  local f = function(x) return x + 1 end\n"
                                   "  n = f(n)\n"
                                   "end\n"
                                   "local report = session:stop()\n"
                                   "io.write(tostring(report))\n"
                                   "print(report.traceProfile.name, report.traceProfile.supported)\n");
  ProcessResult result = runLuajit(script);
  INFO(result.out << result.err);
  REQUIRE(result.exitCode == 0);
  CHECK(result.out.rfind("severity,count,reasonId,reasonClass,location,zonePath,reason,rawReason,start,fallback\r\n", 0) == 0);
  CHECK(result.out.find(",NYIBC:FNEW,blocker,test_module_closure.lua:5,,") != std::string::npos);
  CHECK(result.out.find("debian-2.1-20220320\ttrue") != std::string::npos);
}

TEST_CASE("the module raises clear errors for misuse in a foreign host", "[module]") {
  std::string script = writeScript("test_module_misuse.lua",
                                   "local ljcheck = require('ljcheck')\n"
                                   "local s = ljcheck.trace()\n"
                                   "print(pcall(ljcheck.trace))\n"
                                   "s:stop()\n"
                                   "print(pcall(s.stop, s))\n");
  ProcessResult result = runLuajit(script);
  INFO(result.out << result.err);
  REQUIRE(result.exitCode == 0);
  CHECK(result.out.find("false\ta trace session is already active") != std::string::npos);
  CHECK(result.out.find("false\ttrace session already stopped") != std::string::npos);
}
