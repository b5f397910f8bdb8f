// `ljcheck lint --format sarif`: SARIF 2.1.0 as GitHub code scanning takes
// it, checked field by field and validated by Microsoft's SARIF multitool
// with GitHub's ingestion rules (scripts/setup.sh installs it).
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "ljcheck/reason.h"

#include "../support/cli.h"
#include "lint_output.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::runLjcheck;
using nlohmann::json;

namespace {

const std::string kMultitool = std::string(LJCHECK_SOURCE_DIR) +
                               "/third_party/sarif-multitool/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool";

// Validates `sarifFile` with the multitool under the SARIF and GitHub rule
// kinds and returns its error-level findings ("RULE: message" each). The
// multitool exits 0 whatever it finds, so its own SARIF log is read. The
// Linux binary is called directly: the npm wrapper passes its arguments
// through a shell, which would split "Sarif;Gh".
std::vector<std::string> multitoolErrors(const std::string& sarifFile, const std::string& scratch) {
  std::string log = scratch + "/validation.sarif";
  ProcessResult r = ljcheck::testing::runProcess(
      {kMultitool, "validate", sarifFile, "-o", log, "--log", "ForceOverwrite", "--rule-kind", "Sarif;Gh"}, scratch,
      300);
  INFO("multitool stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exitedNormally());
  json validation = json::parse(ljcheck::testing::readFile(log));
  std::vector<std::string> errors;
  for (const auto& run : validation.at("runs"))
    for (const auto& result : run.value("results", json::array()))
      if (result.value("level", "") == "error") errors.push_back(result.dump());
  return errors;
}

json lintSarif(const std::vector<std::string>& inputs, const std::string& dir = LJCHECK_SOURCE_DIR,
               int expectedExit = 1) {
  std::vector<std::string> args{"lint", "--format", "sarif"};
  args.insert(args.end(), inputs.begin(), inputs.end());
  ProcessResult r = runLjcheck(args, dir);
  CHECK(r.exitCode == expectedExit);
  return json::parse(r.out);
}

std::set<std::string> fingerprints(const json& sarif) {
  std::set<std::string> out;
  for (const auto& result : sarif.at("runs")[0].at("results"))
    out.insert(result.at("partialFingerprints").at("ljcheckSite/v2").get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("lint --format sarif: rules from the catalog, results with regions and relative URIs", "[cli][sarif]") {
  json sarif = lintSarif({ljcheck::testing::kFnewFixture, ljcheck::testing::kGsubFixture});
  CHECK(sarif.at("version") == "2.1.0");
  CHECK(sarif.at("$schema").get<std::string>().find("sarif-2.1.0") != std::string::npos);
  REQUIRE(sarif.at("runs").size() == 1);
  const json& run = sarif.at("runs")[0];
  const json& driver = run.at("tool").at("driver");
  CHECK(driver.at("name") == "ljcheck");
  CHECK(!driver.at("semanticVersion").get<std::string>().empty());
  CHECK(run.at("columnKind") == "utf16CodeUnits");
  CHECK(run.at("originalUriBaseIds").at("%SRCROOT%").at("uri") == "file://" + std::string(LJCHECK_SOURCE_DIR) + "/");
  CHECK(sarif.dump().find("security-severity") == std::string::npos);

  const json& rules = driver.at("rules");
  REQUIRE(rules.size() == 2);
  CHECK(rules[0].at("id") == "NYIBC:FNEW");
  CHECK(rules[1].at("id") == "STITCH:string.gsub");
  for (const auto& rule : rules) {
    INFO(rule.dump());
    CHECK(!rule.at("shortDescription").at("text").get<std::string>().empty());
    CHECK(!rule.at("fullDescription").at("text").get<std::string>().empty());
    CHECK(!rule.at("help").at("text").get<std::string>().empty());
    // helpUri names the reason's page, which exists in the repository.
    std::string uri = rule.at("helpUri");
    std::string code = rule.at("id").get<std::string>().substr(0, rule.at("id").get<std::string>().find(':'));
    std::string page = "docs/reasons/" + code + ".md";
    CHECK(uri.size() > page.size());
    CHECK(uri.compare(uri.size() - page.size(), page.size(), page) == 0);
    CHECK(std::filesystem::exists(std::string(LJCHECK_SOURCE_DIR) + "/" + page));
  }
  // The default level is the catalog's severity of the code, in the printed words.
  const std::map<ljcheck::Severity, std::string> level{
      {ljcheck::Severity::Blacklist, "error"}, {ljcheck::Severity::Warn, "warning"}, {ljcheck::Severity::Info, "note"}};
  CHECK(rules[0].at("defaultConfiguration").at("level") == level.at(ljcheck::ReasonCatalog::builtin().find("NYIBC")->severity));
  CHECK(rules[1].at("defaultConfiguration").at("level") == level.at(ljcheck::ReasonCatalog::builtin().find("STITCH")->severity));

  const json& results = run.at("results");
  REQUIRE(results.size() == 2);
  const json& fnew = results[0];
  CHECK(fnew.at("ruleId") == "NYIBC:FNEW");
  CHECK(fnew.at("ruleIndex") == 0);
  CHECK(fnew.at("level") == "error");
  CHECK(fnew.at("message").at("text").get<std::string>().find("closure created in a loop body") == 0);
  const json& location = fnew.at("locations")[0].at("physicalLocation");
  CHECK(location.at("artifactLocation") ==
        json{{"uri", ljcheck::testing::kFnewFixture}, {"uriBaseId", "%SRCROOT%"}});
  CHECK(location.at("region") == json::parse(R"({"startLine": 4, "startColumn": 13, "endLine": 4, "endColumn": 21})"));
  CHECK(results[1].at("level") == "note");
  CHECK(results[1].at("ruleIndex") == 1);
  CHECK(fingerprints(sarif).size() == 2);
}

TEST_CASE("lint --format sarif: columns in UTF-16 code units, fingerprints that survive line shifts", "[cli][sarif]") {
  std::string dir = ljcheck::testing::scratchDirectory("sarif-columns");
  // "é" is 2 bytes and 1 unit, "😀" 4 bytes and 2 units: `function` starts 3 units before its byte column.
  const std::string body =
      "local t = {}\n"
      "for i = 1, 100 do\n"
      "  t[i] = { \"\xc3\xa9\xf0\x9f\x98\x80\", function() return 1 end }\n"
      "end\n"
      "return t\n";
  ljcheck::testing::writeFile(dir + "/wide.lua", body);
  auto rows = ljcheck::testing::parseCsv(runLjcheck({"lint", "--format", "csv", "wide.lua"}, dir).out);
  REQUIRE(rows.size() == 2);
  int byteColumn = std::stoi(rows[1][6]);
  REQUIRE(byteColumn == 22);  // bytes: 2 spaces, `t[i] = { "` 10, é 2, 😀 4, `", ` 3: 21 before it
  json sarif = lintSarif({"wide.lua"}, dir);
  const json& region = sarif.at("runs")[0].at("results")[0].at("locations")[0].at("physicalLocation").at("region");
  CHECK(region.at("startColumn") == byteColumn - 3);
  CHECK(region.at("endColumn") == byteColumn - 3 + 8);  // `function`
  // A masked site names its masking site by line only: a byte column would
  // not match the UTF-16 columns of the regions beside it.
  ljcheck::testing::writeFile(dir + "/masked.lua",
                              "local t = {}\nfor i = 1, 100 do\n  local x = i\n"
                              "  t[i] = { \"\xc3\xa9\xf0\x9f\x98\x80\", function() return x end }\nend\nreturn t\n");
  bool named = false;
  const json masked = lintSarif({"masked.lua"}, dir);
  for (const auto& result : masked.at("runs")[0].at("results")) {
    std::string text = result.at("message").at("text").get<std::string>();
    if (text.find("(masked by ") == std::string::npos) continue;
    named = true;
    CHECK(text.find("(masked by masked.lua:4 NYIBC:FNEW)") != std::string::npos);
  }
  CHECK(named);

  // The same code three lines further down, in a new function above it: the
  // line moves, the fingerprint does not.
  auto before = fingerprints(sarif);
  ljcheck::testing::writeFile(dir + "/wide.lua", "-- a comment\nlocal unused = 1\n\n" + body);
  json shifted = lintSarif({"wide.lua"}, dir);
  CHECK(shifted.at("runs")[0].at("results")[0].at("locations")[0].at("physicalLocation").at("region").at(
            "startLine") == 6);
  CHECK(fingerprints(shifted) == before);
  // Another reason at the same place is another fingerprint.
  ljcheck::testing::writeFile(dir + "/other.lua", "for i = 1, 100 do\n  local s = string.gsub('a', 'a', 'b')\nend\n");
  auto other = fingerprints(lintSarif({"other.lua"}, dir, 0));
  REQUIRE(other.size() == 1);
  CHECK(before.count(*other.begin()) == 0);
}

TEST_CASE("lint --format sarif passes the SARIF multitool's SARIF and GitHub rules", "[cli][sarif][multitool]") {
  if (!std::filesystem::exists(kMultitool)) {
    WARN("SARIF validation skipped: the multitool is not installed at " << kMultitool
                                                                         << " (scripts/setup.sh installs it)");
    return;
  }
  std::string dir = ljcheck::testing::scratchDirectory("sarif-multitool");
  // Every fixture: many rules and results, masked sites, several files.
  ProcessResult all = runLjcheck({"lint", "--format", "sarif", "fixtures/"});
  CHECK(all.exitCode == 1);
  ljcheck::testing::writeFile(dir + "/fixtures.sarif", all.out);
  REQUIRE(json::parse(all.out).at("runs")[0].at("results").size() >= 30);
  auto errors = multitoolErrors(dir + "/fixtures.sarif", dir);
  for (const auto& e : errors) UNSCOPED_INFO(e);
  CHECK(errors.empty());

  // The gate catches what GitHub would reject: a relative helpUri and a region starting at line 0.
  json broken = json::parse(all.out);
  broken["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] = "docs/reasons/NYIBC.md";
  broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0;
  ljcheck::testing::writeFile(dir + "/broken.sarif", broken.dump());
  CHECK(multitoolErrors(dir + "/broken.sarif", dir).size() >= 2);

  // Names a URI must encode, a syntax error (a notification), a clean file,
  // and suppression-comment problems (their own rules: unused-allow, unpaired-push).
  std::string odd = dir + "/odd";
  std::string fixture = ljcheck::testing::readFile(std::string(LJCHECK_SOURCE_DIR) + "/" + ljcheck::testing::kFnewFixture);
  ljcheck::testing::writeFile(odd + "/with space, comma #1%.lua", fixture);
  ljcheck::testing::writeFile(odd + "/bad\xff\xfe.lua", fixture);
  ljcheck::testing::writeFile(odd + "/co:lon.lua", fixture);  // a colon in the first segment reads as a scheme
  ljcheck::testing::writeFile(odd + "/broken.lua", "for i = 1 do\n");
  ljcheck::testing::writeFile(odd + "/clean.lua", "return 1\n");
  ljcheck::testing::writeFile(odd + "/directives.lua", "local x = 1 -- ljcheck: allow(FNEW)\n-- ljcheck: push\nreturn x\n");
  ProcessResult oddRun = runLjcheck({"lint", "--format", "sarif", "--report-unused-allows", "."}, odd);
  CHECK(oddRun.out.find("\"ruleId\": \"unpaired-push\"") != std::string::npos);
  CHECK(oddRun.out.find("\"uri\": \"co%3Alon.lua\"") != std::string::npos);
  CHECK(oddRun.exitCode == 3);
  ljcheck::testing::writeFile(dir + "/odd.sarif", oddRun.out);
  errors = multitoolErrors(dir + "/odd.sarif", dir);
  for (const auto& e : errors) UNSCOPED_INFO(e);
  CHECK(errors.empty());
}

TEST_CASE("lint --format sarif links the reason pages under --docs-url, or this build's docs", "[cli][sarif]") {
  json own = lintSarif({"fixtures/nyibc_fnew_in_loop.lua"});
  const json& rule = own.at("runs")[0].at("tool").at("driver").at("rules")[0];
  CHECK(rule.at("helpUri").get<std::string>() == "file://" + std::string(LJCHECK_SOURCE_DIR) + "/docs/reasons/NYIBC.md");

  json published = lintSarif({"--docs-url", "https://docs.example/ljcheck", "fixtures/nyibc_fnew_in_loop.lua"});
  const json& linked = published.at("runs")[0].at("tool").at("driver").at("rules")[0];
  CHECK(linked.at("helpUri").get<std::string>() == "https://docs.example/ljcheck/reasons/NYIBC.md");
  CHECK(linked.at("help").at("markdown").get<std::string>().find("(https://docs.example/ljcheck/reasons/NYIBC.md)") !=
        std::string::npos);

  // A path, not a URI: taken as a folder, and written as an absolute file: URI
  // (SARIF's helpUri must be absolute; the multitool refused the relative one).
  json local = lintSarif({"--docs-url", "docs", "fixtures/nyibc_fnew_in_loop.lua"});
  CHECK(local.at("runs")[0].at("tool").at("driver").at("rules")[0].at("helpUri").get<std::string>() ==
        "file://" + std::string(LJCHECK_SOURCE_DIR) + "/docs/reasons/NYIBC.md");
}
