// The JSON writer renders a window of files at a time (so that the text in
// memory stays bounded on a tree of 20,000 files) on `jobs` threads: the
// bytes must be the same for any number of threads, in file order, across
// window boundaries.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "ljcheck/analyzer.h"
#include "ljcheck/lint_report.h"
#include "ljcheck/profile.h"

using namespace ljcheck;

TEST_CASE("lint JSON over many windows of files is the same bytes on 1, 2 and 3 threads", "[output][json]") {
  const FileResult one = analyzeSource("for i = 1, 100 do local f = function() return i end end\n", "m.lua",
                                       defaultProfile(), Confidence::Possible);
  REQUIRE(!one.predictions.empty());
  LintReport report;
  report.profile = &defaultProfile();
  for (int i = 0; i < 1500; ++i) {
    FileResult copy = one;
    copy.path = "d/m" + std::to_string(i) + ".lua";
    for (auto& p : copy.predictions) p.path = copy.path;
    if (i % 2 == 0) copy.predictions.clear();  // windows with empty runs of files
    report.files.push_back(std::move(copy));
  }
  std::string written[3];
  for (unsigned jobs : {1u, 2u, 3u}) {
    std::ostringstream out;
    writeJson(out, report, jobs);
    written[jobs - 1] = out.str();
  }
  CHECK(written[0] == written[1]);
  CHECK(written[0] == written[2]);
  const auto parsed = nlohmann::json::parse(written[0]);
  const auto& rows = parsed.at("predictions");
  REQUIRE(rows.size() == 750 * one.predictions.size());
  CHECK(rows.front().at("location").get<std::string>().rfind("d/m1.lua:", 0) == 0);
  CHECK(rows.back().at("location").get<std::string>().rfind("d/m1499.lua:", 0) == 0);
}
