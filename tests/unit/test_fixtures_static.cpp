// The analyzer half of the fixture specification: for every fixture, the
// analyzer predicts exactly the sites annotated with `expect` or `latent`, at
// every confidence. A site masked by an earlier certain abort is not a
// finding of its own, so masked predictions are left out of the comparison.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "../support/fixtures.h"
#include "ljcheck/analyzer.h"

using namespace ljcheck;
using ljcheck::testing::Site;

TEST_CASE("the analyzer predicts exactly the annotated sites of every fixture", "[fixtures][analyzer]") {
  const RecorderProfile& profile = defaultProfile();
  auto fixtures = testing::loadFixtures(LJCHECK_SOURCE_DIR, profile.name);
  const CModules cModules({{}, testing::fixtureCPath(LJCHECK_BINARY_DIR), "", ""});
  REQUIRE(fixtures.size() >= 30);
  for (const auto& fixture : fixtures) {
    DYNAMIC_SECTION(fixture.path) {
      std::ifstream in(std::string(LJCHECK_SOURCE_DIR) + "/" + fixture.path);
      std::stringstream source;
      source << in.rdbuf();
      FileResult result = analyzeSource(source.str(), fixture.path, profile, Confidence::Possible, {}, &cModules);
      REQUIRE(result.errors.empty());
      std::set<Site> predicted;
      for (const auto& p : result.predictions) {
        CHECK(p.path == fixture.path);
        CHECK_FALSE(p.reasoning.empty());
        if (!p.masked()) predicted.insert({p.line, p.reasonId.str()});
      }
      auto expected = fixture.staticallyPredicted();
      INFO("expected:" << testing::describe(expected) << "\npredicted:" << testing::describe(predicted));
      CHECK(predicted == expected);
    }
  }
}
