// ljcheck.so in Debian's own luajit: the module loads into a host whose VM it
// did not link, traces a closure loop and prints the report as CSV.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

struct ProcessResult {
  int status = -1;
  std::string output;  // stdout and stderr
};

ProcessResult runLuajit(const std::string& scriptPath) {
  std::string command = "LUA_CPATH='" LJCHECK_MODULE_DIR "/?.so' /usr/bin/luajit '" + scriptPath +
                        "' 2>&1";
  ProcessResult result;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe);
  std::array<char, 4096> buffer{};
  for (size_t n; (n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0;)
    result.output.append(buffer.data(), n);
  int raw = pclose(pipe);
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return result;
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
  INFO(result.output);
  REQUIRE(result.status == 0);
  CHECK(result.output.rfind("severity,count,reasonId,reasonClass,location,zonePath,reason,rawReason\r\n", 0) == 0);
  CHECK(result.output.find(",NYIBC:FNEW,blocker,test_module_closure.lua:5,,") != std::string::npos);
  CHECK(result.output.find("debian-2.1-20220320\ttrue") != std::string::npos);
}

TEST_CASE("the module raises clear errors for misuse in a foreign host", "[module]") {
  std::string script = writeScript("test_module_misuse.lua",
                                   "local ljcheck = require('ljcheck')\n"
                                   "local s = ljcheck.trace()\n"
                                   "print(pcall(ljcheck.trace))\n"
                                   "s:stop()\n"
                                   "print(pcall(s.stop, s))\n");
  ProcessResult result = runLuajit(script);
  INFO(result.output);
  REQUIRE(result.status == 0);
  CHECK(result.output.find("false\ta trace session is already active") != std::string::npos);
  CHECK(result.output.find("false\ttrace session already stopped") != std::string::npos);
}
