// `ljcheck lint --write-baseline` and `--baseline`: findings are matched by
// fingerprint (reasonId, path, enclosing function, occurrence), so code
// moved down by new lines above it stays baselined, and stale entries are
// counted and dropped when the baseline is written again.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "../support/cli.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::readFile;
using ljcheck::testing::runLjcheck;
using ljcheck::testing::scratchDirectory;
using ljcheck::testing::writeFile;

namespace {

// A closure created in a loop: NYIBC:FNEW, and two upvalue closes (UCLO,
// one masked by the closure).
const std::string kMakers = R"(local M = {}
function M.makers(n)
  local t = {}
  for i = 1, n do
    t[i] = function() return i end
  end
  return t
end
return M
)";

// The same function with a second one above it that has a finding of its own.
const std::string kMakersAndMore = R"(local M = {}
-- a comment
-- and another, so every line below moves

function M.more(n)
  local t = {}
  for i = 1, n do
    t[i] = function() return -i end
  end
  return t
end

function M.makers(n)
  local t = {}
  for i = 1, n do
    t[i] = function() return i end
  end
  return t
end
return M
)";

ProcessResult lint(const std::string& dir, std::vector<std::string> extra) {
  std::vector<std::string> args{"lint", "--no-config", "--brief", "src"};
  args.insert(args.end(), extra.begin(), extra.end());
  return runLjcheck(args, dir);
}

}  // namespace

TEST_CASE("a baseline hides today's findings and reports only new ones, not moved ones", "[cli][baseline]") {
  std::string dir = scratchDirectory("baseline-moves");
  writeFile(dir + "/src/m.lua", kMakers);

  ProcessResult written = lint(dir, {"--write-baseline", "ljcheck-baseline.json"});
  // Writing a baseline accepts what it records (exit 0, as phpstan's and
  // detekt's baseline generation do), and still shows it.
  CHECK(written.exitCode == 0);
  CHECK(written.out.find("src/m.lua:5:") != std::string::npos);
  CHECK(written.err.find("wrote 3 findings to the baseline") != std::string::npos);
  auto baseline = nlohmann::json::parse(readFile(dir + "/ljcheck-baseline.json"));
  REQUIRE(baseline["entries"].size() == 3);
  CHECK(baseline["entries"][0]["reasonId"] == "NYIBC:FNEW");
  CHECK(baseline["entries"][0]["path"] == "src/m.lua");
  CHECK(baseline["entries"][0]["function"] == "makers");
  CHECK(baseline["entries"][0]["occurrence"] == 0);
  CHECK(baseline["entries"][0].count("line") == 0);  // not keyed by line

  ProcessResult same = lint(dir, {"--baseline", "ljcheck-baseline.json"});
  CHECK(same.exitCode == 0);
  CHECK(same.out.empty());
  CHECK(same.err.find("3 findings baselined, 0 baseline entries no longer occur") != std::string::npos);

  // Lines added above move the old finding down; only the new function's is new.
  writeFile(dir + "/src/m.lua", kMakersAndMore);
  ProcessResult moved = lint(dir, {"--baseline", "ljcheck-baseline.json"});
  CHECK(moved.exitCode == 1);
  CHECK(moved.out.find("src/m.lua:8:") != std::string::npos);    // M.more: new
  CHECK(moved.out.find("src/m.lua:16:") == std::string::npos);   // M.makers, moved: baselined
  CHECK(moved.err.find("3 findings baselined, 0 baseline entries no longer occur") != std::string::npos);

  // The old finding fixed: its entry is stale, and a new baseline drops it.
  writeFile(dir + "/src/m.lua", "local M = {}\nreturn M\n");
  ProcessResult fixed = lint(dir, {"--baseline", "ljcheck-baseline.json"});
  CHECK(fixed.exitCode == 0);
  CHECK(fixed.err.find("0 findings baselined, 3 baseline entries no longer occur") != std::string::npos);
  lint(dir, {"--write-baseline", "ljcheck-baseline.json"});
  CHECK(nlohmann::json::parse(readFile(dir + "/ljcheck-baseline.json"))["entries"].empty());
}

TEST_CASE("a baseline's fingerprints are SARIF's partialFingerprints", "[cli][baseline][sarif]") {
  std::string dir = scratchDirectory("baseline-sarif");
  writeFile(dir + "/src/m.lua", kMakers);
  lint(dir, {"--write-baseline", "b.json"});
  ProcessResult sarif = lint(dir, {"--format", "sarif"});
  auto log = nlohmann::json::parse(sarif.out);
  auto baseline = nlohmann::json::parse(readFile(dir + "/b.json"));
  const auto& results = log["runs"][0]["results"];
  REQUIRE(results.size() == baseline["entries"].size());
  REQUIRE(results.size() == 3);
  for (std::size_t i = 0; i < results.size(); ++i)
    CHECK(results[i]["partialFingerprints"]["ljcheckSite/v1"] == baseline["entries"][i]["fingerprint"]);
}

TEST_CASE("a baseline that cannot be read is a usage error naming it", "[cli][baseline]") {
  std::string dir = scratchDirectory("baseline-bad");
  writeFile(dir + "/src/m.lua", kMakers);
  writeFile(dir + "/not-json.json", "{ nope");
  ProcessResult bad = lint(dir, {"--baseline", "not-json.json"});
  CHECK(bad.exitCode == 2);
  CHECK(bad.err.find("not-json.json: not a baseline file") != std::string::npos);
  ProcessResult missing = lint(dir, {"--baseline", "absent.json"});
  CHECK(missing.exitCode == 2);
  CHECK(missing.err.find("absent.json: cannot read the baseline") != std::string::npos);
}
