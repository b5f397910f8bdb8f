// `ljcheck run` stopped by a signal, as servers and game loops are: the
// script unwinds with "interrupted", and the reports cover the run so far;
// and output paths that cannot be written, found before the run.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

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

TEST_CASE("ljcheck run checks its output paths before it runs the script", "[cli][run][bad-input]") {
  std::string dir = ljcheck::testing::scratchDirectory("run-output-paths");
  // The script would leave a file behind if it ran.
  ljcheck::testing::writeFile(dir + "/app.lua", "io.open('ran', 'w'):close()\n");
  for (const auto& [option, path, why] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"--json", "missing/run.json", "no directory 'missing'"},
           {"--trace", ".", "it is a directory"},
           {"--speedscope", "missing/p.json", "no directory 'missing'"}}) {
    INFO(option << ' ' << path);
    ProcessResult r = ljcheck::testing::runLjcheck({"run", option, path, "--", "app.lua"}, dir);
    CHECK(r.exitCode == 125);  // run's own failure, apart from any status a script chooses
    CHECK(r.err.find("cannot write report file '" + path + "': " + why + " (nothing was run)") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir + "/ran"));
  }
}
