// Parses fixture expectations (see fixtures.h).
#include "fixtures.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "ljcheck/fixture_annotations.h"

namespace ljcheck::testing {

std::set<Site> FixtureExpectations::observed() const {
  std::set<Site> all = predicted;
  all.insert(runtimeOnly.begin(), runtimeOnly.end());
  return all;
}

std::set<Site> FixtureExpectations::staticallyPredicted() const {
  std::set<Site> all = predicted;
  all.insert(latent.begin(), latent.end());
  return all;
}

namespace {

// `[P]` applies on profile P only, `[!P]` on every profile but P, no tag on all.
bool appliesTo(const std::string& tag, const std::string& profile) {
  if (tag.empty()) return true;
  return tag[0] == '!' ? tag.substr(1) != profile : tag == profile;
}

}  // namespace

FixtureExpectations loadFixture(const std::string& sourceDir, const std::string& path, const std::string& profile) {
  FixtureExpectations f;
  f.path = path;
  std::ifstream in(std::filesystem::path(sourceDir) / path, std::ios::binary);
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& a : readFixtureAnnotations(source)) {
    if (!appliesTo(a.profile, profile)) continue;
    auto& into = a.kind == "expect"   ? f.predicted
                 : a.kind == "latent" ? f.latent
                 : a.kind == "timing" ? f.timing
                                      : f.runtimeOnly;
    for (const auto& id : a.reasonIds) into.insert({a.line, id});
  }
  return f;
}

std::vector<FixtureExpectations> loadFixtures(const std::string& sourceDir, const std::string& profile) {
  namespace fs = std::filesystem;
  std::vector<FixtureExpectations> all;
  for (const auto& entry : fs::directory_iterator(fs::path(sourceDir) / "fixtures")) {
    if (entry.path().extension() != ".lua") continue;
    all.push_back(loadFixture(sourceDir, "fixtures/" + entry.path().filename().string(), profile));
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return all;
}

std::string describe(const std::set<Site>& sites) {
  std::string out;
  for (const auto& [line, id] : sites) out += "\n  line " + std::to_string(line) + ": " + id;
  return out.empty() ? " (none)" : out;
}

}  // namespace ljcheck::testing
