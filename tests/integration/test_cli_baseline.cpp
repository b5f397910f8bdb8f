// `ljcheck lint --write-baseline` and `--baseline`: findings are matched by
// fingerprint (reasonId, path, enclosing function, the construct's line
// text, occurrence), so code moved down by new lines above it stays
// baselined, a finding added before another in its function is the one
// reported, and stale entries are counted and dropped when the baseline is
// written again.
#include <catch2/catch.hpp>

#include <map>
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
  CHECK(baseline["entries"][0]["function"] == "M.makers");
  CHECK(baseline["entries"][0]["lineHash"].get<std::string>().size() == 16);  // of the closure's line
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
    CHECK(results[i]["partialFingerprints"]["ljcheckSite/v2"] == baseline["entries"][i]["fingerprint"]);
}

TEST_CASE("a finding added before another of its reason in the function is the new one", "[cli][baseline]") {
  std::string dir = scratchDirectory("baseline-added-before");
  writeFile(dir + "/src/m.lua", kMakers);
  lint(dir, {"--write-baseline", "b.json"});
  // A second closure in the same loop, above the first: the same reason in
  // the same function, now first in the file. Counting occurrences alone
  // would give it the old site's fingerprint and report the old site.
  writeFile(dir + "/src/m.lua", R"(local M = {}
function M.makers(n)
  local t = {}
  for i = 1, n do
    t[-i] = function() return -i end
    t[i] = function() return i end
  end
  return t
end
return M
)");
  ProcessResult added = lint(dir, {"--baseline", "b.json"});
  CHECK(added.exitCode == 1);
  CHECK(added.out.find("src/m.lua:5:") != std::string::npos);  // the new closure
  CHECK(added.out.find("src/m.lua:6:") == std::string::npos);  // the old one, baselined
  CHECK(added.err.find("3 findings baselined, 0 baseline entries no longer occur") != std::string::npos);

  // Re-indenting the old line keeps it baselined; editing it makes it new.
  writeFile(dir + "/src/m.lua", R"(local M = {}
function M.makers(n)
  local t = {}
  for i = 1, n do
        t[i] = function()  return i  end
  end
  return t
end
return M
)");
  CHECK(lint(dir, {"--baseline", "b.json"}).exitCode == 0);
}

TEST_CASE("an allow comment on one site leaves the other sites' fingerprints", "[cli][baseline][sarif]") {
  std::string dir = scratchDirectory("baseline-allow-numbering");
  // Three calls of one reason on identical lines in one loop: told apart by
  // occurrence alone. Allowing the first must not renumber the other two.
  const std::string body = R"(local M = {}
function M.clean(list)
  for i = 1, #list do
    local s = list[i]
    s = s:gsub("a", "b")
    s = s:gsub("a", "b")
    s = s:gsub("a", "b")
    list[i] = s
  end
end
return M
)";
  writeFile(dir + "/src/m.lua", body);
  auto fingerprintsAt = [&](const nlohmann::json& log) {
    std::map<int, std::string> byLine;
    for (const auto& r : log["runs"][0]["results"])
      if (r["ruleId"] == "STITCH:string.gsub")
        byLine[r["locations"][0]["physicalLocation"]["region"]["startLine"].get<int>()] =
            r["partialFingerprints"]["ljcheckSite/v2"].get<std::string>();
    return byLine;
  };
  auto before = fingerprintsAt(nlohmann::json::parse(lint(dir, {"--format", "sarif"}).out));
  REQUIRE(before.size() == 3);
  CHECK(before.at(5) != before.at(6));
  std::string allowed = body;
  allowed.replace(allowed.find("    s = s:gsub"), 0, "    -- ljcheck: allow(STITCH:string.gsub)\n");
  writeFile(dir + "/src/m.lua", allowed);
  auto after = fingerprintsAt(nlohmann::json::parse(lint(dir, {"--format", "sarif"}).out));
  REQUIRE(after.size() == 2);
  CHECK(after.at(7) == before.at(6));
  CHECK(after.at(8) == before.at(7));
}

TEST_CASE("a baseline written with fingerprint recipe v1 is still matched", "[cli][baseline]") {
  // tests/data/baseline-v1: a file and the baseline ljcheck wrote for it
  // before recipe v2 (see its README).
  std::string dir = scratchDirectory("baseline-v1");
  const std::string data = std::string(LJCHECK_SOURCE_DIR) + "/tests/data/baseline-v1";
  writeFile(dir + "/src/m.lua", readFile(data + "/src/m.lua"));
  writeFile(dir + "/b.json", readFile(data + "/ljcheck-baseline.json"));
  ProcessResult same = lint(dir, {"--baseline", "b.json"});
  CHECK(same.exitCode == 0);
  CHECK(same.out.empty());
  CHECK(same.err.find("3 findings baselined, 0 baseline entries no longer occur") != std::string::npos);
  CHECK(same.err.find("fingerprint recipe v1") != std::string::npos);
  // Written again, it is v2.
  lint(dir, {"--write-baseline", "b.json"});
  CHECK(nlohmann::json::parse(readFile(dir + "/b.json"))["format"] == "ljcheck-baseline/v2");
}

TEST_CASE("a baseline that cannot be read is a usage error naming it", "[cli][baseline]") {
  std::string dir = scratchDirectory("baseline-bad");
  writeFile(dir + "/src/m.lua", kMakers);
  writeFile(dir + "/not-json.json", "{ nope");
  ProcessResult bad = lint(dir, {"--baseline", "not-json.json"});
  CHECK(bad.exitCode == 2);
  CHECK(bad.err.find("not-json.json: not a baseline file: not valid JSON at byte 4") != std::string::npos);
  writeFile(dir + "/newer.json", R"({"format": "ljcheck-baseline/v9", "entries": []})");
  ProcessResult newer = lint(dir, {"--baseline", "newer.json"});
  CHECK(newer.exitCode == 2);
  CHECK(newer.err.find("newer.json: a baseline of format ljcheck-baseline/v9, which this ljcheck does not know") !=
        std::string::npos);
  ProcessResult missing = lint(dir, {"--baseline", "absent.json"});
  CHECK(missing.exitCode == 2);
  CHECK(missing.err.find("absent.json: cannot read the baseline") != std::string::npos);
  // A fingerprint edited by hand would match nothing: told, with the entry's index.
  writeFile(dir + "/edited.json", R"({"format": "ljcheck-baseline/v2", "entries": [)"
                                  R"({"fingerprint": "0123456789abcdef"}, {"fingerprint": "0123456789ABCDEF"}]})");
  ProcessResult edited = lint(dir, {"--baseline", "edited.json"});
  CHECK(edited.exitCode == 2);
  CHECK(edited.err.find("edited.json: entry 1: \"fingerprint\" \"0123456789ABCDEF\" is not one ljcheck writes") !=
        std::string::npos);
  writeFile(dir + "/good.json", R"({"format": "ljcheck-baseline/v2", "entries": [{"fingerprint": "0123456789abcdef"}]})");
  ProcessResult good = lint(dir, {"--baseline", "good.json"});
  CHECK(good.err.find("baseline good.json: 0 findings baselined, 1 baseline entries no longer occur") !=
        std::string::npos);
}

TEST_CASE("a comment added to a finding's line, or a function of the same name in another table, keeps it baselined",
          "[cli][baseline]") {
  std::string dir = scratchDirectory("baseline-comments-and-tables");
  const std::string two = R"(local M = {}
function M.a(t)
  for i = 1, 50000 do
    t[i] = string.gsub(t[i], "a", "b"); t[-i] = function() return i end
  end
end
return M
)";
  writeFile(dir + "/src/m.lua", two);
  lint(dir, {"--write-baseline", "b.json"});
  // An allow for one of the line's two findings: the other stays baselined.
  std::string allowed = two;
  allowed.replace(allowed.find("return i end") + 12, 0, " -- ljcheck: allow(STITCH:string.gsub)");
  writeFile(dir + "/src/m.lua", allowed);
  ProcessResult commented = lint(dir, {"--baseline", "b.json"});
  INFO(commented.out << commented.err);
  CHECK(commented.exitCode == 0);
  CHECK(commented.out.empty());

  // Another table's function of the same name, above: it is the new one.
  writeFile(dir + "/src/m.lua", std::string("local N = {}\nfunction N.a(t)\n  for i = 1, 50000 do\n"
                                            "    t[i] = string.gsub(t[i], \"a\", \"b\"); t[-i] = function() return i end\n"
                                            "  end\nend\n") + two);
  ProcessResult other = lint(dir, {"--baseline", "b.json"});
  INFO(other.out << other.err);
  CHECK(other.exitCode == 1);
  CHECK(other.out.find("src/m.lua:4:") != std::string::npos);   // N.a: new
  CHECK(other.out.find("src/m.lua:10:") == std::string::npos);  // M.a: baselined
  CHECK(other.err.find("3 findings baselined, 0 baseline entries no longer occur") != std::string::npos);
}
