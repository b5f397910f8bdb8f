// The runtime half of the fixture specification: every fixture, run under
// the collector, shows exactly the sites annotated with `expect` and
// `expect-runtime` (benign stop-class aborts only where annotated). Run
// twice: in the `ljcheck run` host, and in Debian's own luajit through
// require("ljcheck").
#include <catch2/catch.hpp>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../support/fixtures.h"
#include "ljcheck/profile.h"
#include "ljcheck/reason.h"

using namespace ljcheck;
using testing::Site;

namespace {

int runCommand(const std::string& command, std::string& output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe);
  std::array<char, 4096> buffer{};
  for (size_t n; (n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) output.append(buffer.data(), n);
  int raw = pclose(pipe);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

bool isBenign(const std::string& reasonId) {
  const Reason* r = ReasonCatalog::builtin().find(ReasonId::parse(reasonId).code);
  return r && r->benign;
}

struct Observed {
  std::set<Site> actionable, benign;
};

Observed sitesIn(const std::string& jsonPath, const std::string& fixturePath) {
  std::ifstream in(jsonPath);
  REQUIRE(in);
  auto j = nlohmann::json::parse(in);
  CHECK(j.at("traceProfile").at("supported").get<bool>());
  Observed o;
  for (const auto& s : j.at("sites")) {
    if (s.at("path").get<std::string>() != fixturePath) continue;
    Site site{s.at("line").get<int>(), s.at("reasonId").get<std::string>()};
    (isBenign(site.second) ? o.benign : o.actionable).insert(site);
  }
  return o;
}

void checkAgainst(const testing::FixtureExpectations& fixture, const Observed& observed) {
  std::set<Site> expected, expectedBenign;
  for (const auto& site : fixture.observed()) (isBenign(site.second) ? expectedBenign : expected).insert(site);
  INFO("expected:" << testing::describe(expected) << "\nobserved:" << testing::describe(observed.actionable));
  CHECK(observed.actionable == expected);
  for (const auto& site : expectedBenign) {
    INFO("benign site annotated but not observed: line " << site.first << " " << site.second);
    CHECK(observed.benign.count(site) == 1);
  }
}

std::string scratch(const std::string& fixturePath, const std::string& suffix) {
  std::string name = fixturePath.substr(fixturePath.rfind('/') + 1);
  return std::string(LJCHECK_BINARY_DIR) + "/fixture-runs/" + name + suffix;
}

}  // namespace

TEST_CASE("the collector observes exactly the annotated sites of every fixture (ljcheck run)", "[fixtures][runtime]") {
  auto fixtures = testing::loadFixtures(LJCHECK_SOURCE_DIR, defaultProfile().name);
  REQUIRE(fixtures.size() >= 30);
  std::string out;
  REQUIRE(runCommand("mkdir -p '" LJCHECK_BINARY_DIR "/fixture-runs'", out) == 0);
  for (const auto& fixture : fixtures) {
    DYNAMIC_SECTION(fixture.path) {
      std::string json = scratch(fixture.path, ".json");
      std::string output;
      int status = runCommand("cd '" LJCHECK_SOURCE_DIR "' && '" LJCHECK_EXE "' run --include-benign --json '" +
                                  json + "' -- " + fixture.path + " > /dev/null",
                              output);
      INFO(output);
      REQUIRE(status == 0);
      checkAgainst(fixture, sitesIn(json, fixture.path));
    }
  }
}

TEST_CASE("the collector observes the same sites inside Debian's luajit via require('ljcheck')", "[fixtures][module]") {
  auto fixtures = testing::loadFixtures(LJCHECK_SOURCE_DIR, defaultProfile().name);
  std::string out;
  REQUIRE(runCommand("mkdir -p '" LJCHECK_BINARY_DIR "/fixture-runs'", out) == 0);
  for (const auto& fixture : fixtures) {
    DYNAMIC_SECTION(fixture.path) {
      std::string json = scratch(fixture.path, ".module.json");
      std::string wrapper = scratch(fixture.path, ".wrapper.lua");
      std::ofstream(wrapper) << "local ljcheck = require('ljcheck')\n"
                                "local session = ljcheck.trace({includeBenign = true})\n"
                                "local chunk = assert(loadfile('" << fixture.path << "'))\n"
                                "chunk()\n"
                                "local report = session:stop()\n"
                                "local f = assert(io.open('" << json << "', 'w'))\n"
                                "f:write(report:json())\nf:close()\n";
      std::string output;
      int status = runCommand("cd '" LJCHECK_SOURCE_DIR "' && LUA_CPATH='" LJCHECK_MODULE_DIR
                              "/?.so' /usr/bin/luajit '" + wrapper + "' > /dev/null",
                              output);
      INFO(output);
      REQUIRE(status == 0);
      checkAgainst(fixture, sitesIn(json, fixture.path));
    }
  }
}
