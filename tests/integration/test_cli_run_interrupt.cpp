// `ljcheck run` stopped by a signal, as servers and game loops are: the
// script unwinds with "interrupted", and the reports cover the run so far.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "../support/cli.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::shellQuote;
using nlohmann::json;

TEST_CASE("ljcheck run stopped by SIGTERM writes its reports and exits 143", "[cli][run][signals]") {
  std::string dir = ljcheck::testing::scratchDirectory("run-interrupt");
  // It says it started, then loops for ever in the interpreter (the closure
  // aborts every trace), so the next instruction sees the interrupt.
  ljcheck::testing::writeFile(dir + "/forever.lua",
                              "io.open('started', 'w'):close()\n"
                              "local t, i = {}, 0\n"
                              "while true do i = i + 1; t[i % 100 + 1] = function() return i end end\n");
  std::string exe = shellQuote(LJCHECK_EXE);
  ProcessResult r = ljcheck::testing::runShell(
      "cd " + shellQuote(dir) + " && rm -f started && (" + exe +
          " run --json run.json -- forever.lua & pid=$!; "
          "n=0; while [ ! -f started ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n+1)); done; sleep 0.2; "
          "kill -TERM $pid; wait $pid; echo \"status $?\")",
      120);
  INFO(r.out << r.err);
  CHECK(r.out.find("status 143") != std::string::npos);
  CHECK(r.err.find("forever.lua:3: interrupted by SIGTERM") != std::string::npos);
  CHECK(r.err.find("terminated (SIGTERM): the reports cover the run up to the interrupt") != std::string::npos);
  json run = json::parse(ljcheck::testing::readFile(dir + "/run.json"));
  CHECK(run.at("totalAborts").get<long>() > 0);
  bool closure = false;
  for (const auto& site : run.at("sites")) closure = closure || site.at("location") == "forever.lua:3";
  CHECK(closure);
}
