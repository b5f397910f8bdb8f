// `ljcheck run --max-sites`: past the bound the totals stay exact, the
// summary and the runtime JSON say the limit was reached and what it left
// out, and `ljcheck verify` reads the report and warns about it.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "../support/cli.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::runLjcheck;
using ljcheck::testing::writeFile;
using nlohmann::json;

namespace {

// Ten functions on ten lines, each a hot loop that creates a closure: ten sites.
std::string tenSites() {
  std::string lua;
  for (int k = 1; k <= 10; ++k)
    lua += "local function f" + std::to_string(k) +
           "() local n = 0 for i = 1, 200 do local g = function() return i end n = n + g() end return n end\n";
  for (int k = 1; k <= 10; ++k) lua += "assert(f" + std::to_string(k) + "() == 20100)\n";
  return lua;
}

}  // namespace

TEST_CASE("ljcheck run --max-sites keeps the totals and reports the overflow", "[cli][run][stress]") {
  std::string dir = ljcheck::testing::scratchDirectory("run-site-limit");
  writeFile(dir + "/ten.lua", tenSites());
  ProcessResult run = runLjcheck({"run", "--max-sites", "3", "--include-benign", "--no-sampling", "--json",
                                  dir + "/run.json", "--", dir + "/ten.lua"});
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  CHECK(run.err.find("site limit 3 reached") != std::string::npos);
  CHECK(run.err.find("past the limit are in the totals but in no site") != std::string::npos);

  json report = json::parse(ljcheck::testing::readFile(dir + "/run.json"));
  const json& collector = report.at("collector");
  CHECK(collector.at("maxSites") == 3);
  CHECK(collector.at("limitReached") == true);
  CHECK(collector.at("memoryBytes").get<long>() > 0);
  CHECK(report.at("sites").size() <= 3);
  long kept = 0;
  for (const json& site : report.at("sites")) kept += site.at("count").get<long>();
  long overflow = collector.at("overflowAborts").get<long>();
  CHECK(overflow > 0);
  CHECK(kept + overflow == report.at("totalAborts").get<long>());  // no stitches here: every site is an abort

  ProcessResult lint = runLjcheck({"lint", "--format", "json", dir + "/ten.lua"});
  writeFile(dir + "/lint.json", lint.out);
  ProcessResult verify = runLjcheck({"verify", "--static", dir + "/lint.json", "--runtime", dir + "/run.json"});
  INFO(verify.out);
  CHECK(verify.exitCode == 0);
  CHECK(verify.err.find("reached its site limit (3 sites)") != std::string::npos);
}

TEST_CASE("ljcheck run --max-sites 0 is a usage error", "[cli][run]") {
  ProcessResult run = runLjcheck({"run", "--max-sites", "0", "--", "fixtures/nyibc_fnew_in_loop.lua"});
  CHECK(run.exitCode == 2);
  CHECK(run.err.find("--max-sites") != std::string::npos);
}
