// Lint's `error` (blacklist) severity against what the collector sees: the
// same loop, whose trace aborts at a closure on every try, turned often
// enough to blacklist its start (44,500 turns: the profile's penalty
// constants say 44,487 with the largest random bits) and too few (36,800:
// the smallest random bits need 36,894). Lint says `error` for the first and
// `warning` for the second; the run blacklists the first and not the second.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "../support/cli.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::readFile;
using ljcheck::testing::runLjcheck;
using ljcheck::testing::writeFile;
using nlohmann::json;

namespace {

struct Outcome {
  std::string predicted;   // the lint severity of the FNEW on line 3
  long blacklisted = -1;   // the run's count of blacklisted starts
  std::string observed;    // the run's severity of that site
};

Outcome lintAndRun(const std::string& dir, int turns) {
  const std::string script = dir + "/loop" + std::to_string(turns) + ".lua";
  writeFile(script, "local t = {}\nfor i = 1, " + std::to_string(turns) +
                        " do\n  t[i % 7 + 1] = function() return i end\nend\n");
  Outcome o;
  ProcessResult lint = runLjcheck({"lint", "--format", "json", "--fail-on", "none", script});
  INFO(lint.err);
  REQUIRE(lint.exitCode == 0);
  const json predictions = json::parse(lint.out).at("predictions");
  for (const auto& p : predictions)
    if (p.at("reasonId") == "NYIBC:FNEW" && p.at("line") == 3) o.predicted = p.at("severity").get<std::string>();
  const std::string report = dir + "/run" + std::to_string(turns) + ".json";
  ProcessResult run = runLjcheck({"run", "--json", report, "--", script});
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  const json r = json::parse(readFile(report));
  o.blacklisted = r.at("blacklisted").get<long>();
  for (const auto& s : r.at("sites"))
    if (s.at("reasonId") == "NYIBC:FNEW" && s.at("line") == 3) o.observed = s.at("severity").get<std::string>();
  return o;
}

}  // namespace

TEST_CASE("error means the run blacklists the loop; a certain abort with too few runs is a warning",
          "[cli][lint][run][blacklist]") {
  const std::string dir = ljcheck::testing::scratchDirectory("blacklist-severity");
  Outcome many = lintAndRun(dir, 44500);
  CHECK(many.predicted == "blacklist");
  CHECK(many.blacklisted == 1);
  CHECK(many.observed == "blacklist");
  Outcome few = lintAndRun(dir, 36800);
  CHECK(few.predicted == "warn");
  CHECK(few.blacklisted == 0);
  CHECK(few.observed == "warn");
}
