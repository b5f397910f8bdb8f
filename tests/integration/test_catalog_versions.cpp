// Reports outlive catalog versions: `ljcheck verify` reads reports stored
// under reason catalog version 0 (tests/data/catalog-v0/, see its README)
// and joins them, through the catalog's aliases, on today's reasonIds.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "../support/cli.h"

using ljcheck::testing::ProcessResult;
using nlohmann::json;

namespace {

const std::string kData = std::string(LJCHECK_SOURCE_DIR) + "/tests/data/catalog-v0";

// ljcheck, required to succeed.
ProcessResult succeeding(std::vector<std::string> args) {
  ProcessResult r = ljcheck::testing::runLjcheck(std::move(args));
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exitCode == 0);
  return r;
}

// The joined sites as "status location reasonId" strings.
std::vector<std::string> joined(const std::string& verifyJson) {
  const json verification = json::parse(verifyJson);
  std::vector<std::string> rows;
  for (const auto& s : verification.at("sites"))
    rows.push_back(s.at("status").get<std::string>() + " " + s.at("location").get<std::string>() + " " +
                   s.at("reasonId").get<std::string>());
  return rows;
}

}  // namespace

TEST_CASE("verify joins two reports stored under catalog version 0 on today's ids", "[cli][verify][catalog]") {
  ProcessResult r = succeeding({"verify", "--static", kData + "/lint.json", "--runtime", kData + "/run.json",
                                "--format", "json"});
  CHECK(joined(r.out) == std::vector<std::string>{"confirmed fixtures/nyibc_fnew_in_loop.lua:4 NYIBC:FNEW",
                                                  "confirmed fixtures/stitch_string_gsub.lua:5 STITCH:string.gsub"});
  CHECK(r.out.find("NYIFF") == std::string::npos);
}

TEST_CASE("a version-0 prediction joins a fresh run's observation", "[cli][verify][catalog]") {
  const std::string dir =
      ljcheck::testing::freshDirectory(std::string(LJCHECK_BINARY_DIR) + "/cli-tests/catalog-v0-fresh-run");
  succeeding({"run", "--json", dir + "/run.json", "--", "fixtures/stitch_string_gsub.lua"});
  CHECK(json::parse(ljcheck::testing::readFile(dir + "/run.json")).at("reasonCatalogVersion") == 1);

  ProcessResult r = succeeding({"verify", "--static", kData + "/lint.json", "--runtime", dir + "/run.json",
                                "--format", "json"});
  // The old NYIFF:string.gsub prediction meets today's STITCH:string.gsub
  // observation; NYIBC:FNEW was predicted for a fixture this run did not
  // run, which the run's coverage shows: unexercised, not refuted.
  CHECK(joined(r.out) == std::vector<std::string>{"confirmed fixtures/stitch_string_gsub.lua:5 STITCH:string.gsub",
                                                  "unexercised fixtures/nyibc_fnew_in_loop.lua:4 NYIBC:FNEW"});
}
