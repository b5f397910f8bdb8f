// Reads the expectations written into fixtures/*.lua (see fixtures/README.md)
// so that both halves can be held to them.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ljcheck::testing {

using Site = std::pair<int, std::string>;  // line, reasonId

struct FixtureExpectations {
  std::string path;              // fixtures/x.lua, relative to the repository root
  std::set<Site> predicted;      // `expect`: the analyzer predicts and the collector observes
  std::set<Site> runtimeOnly;    // `expect-runtime`: observed, not (yet) predicted statically
  std::set<Site> latent;         // `latent`: predicted, not observed on this run's path
  std::set<Site> timing;         // `timing`: may be observed, depending on hot-counter timing
  std::set<Site> observed() const;        // what the collector must see: expect + expect-runtime
  std::set<Site> staticallyPredicted() const;  // what the analyzer must say: expect + latent
};

// All fixtures, sorted by path, with the expectations that hold on `profile`.
std::vector<FixtureExpectations> loadFixtures(const std::string& sourceDir, const std::string& profile);
// One fixture file, `path` relative to `sourceDir` (a module of a fixture
// project under fixtures/projects/ too).
FixtureExpectations loadFixture(const std::string& sourceDir, const std::string& path, const std::string& profile);

// The package.cpath template of the C module the C-module fixtures require
// (tests/support/fixture_c_module.cpp), built under `binaryDir`: every
// fixture runner puts it on the C path, the analyzer's included.
inline std::string fixtureCPath(const std::string& binaryDir) { return binaryDir + "/fixture-cmodules/?.so"; }

std::string describe(const std::set<Site>& sites);

}  // namespace ljcheck::testing
