// Parses fixture expectations (see fixtures.h).
#include "fixtures.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

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

std::vector<std::string> splitIds(const std::string& list) {
  std::vector<std::string> ids;
  std::stringstream ss(list);
  std::string id;
  while (std::getline(ss, id, ',')) {
    id.erase(0, id.find_first_not_of(" \t"));
    id.erase(id.find_last_not_of(" \t\r") + 1);
    if (!id.empty()) ids.push_back(id);
  }
  return ids;
}

// `[P]` applies on profile P only, `[!P]` on every profile but P, no tag on all.
bool appliesTo(const std::ssub_match& tag, const std::string& profile) {
  if (!tag.matched) return true;
  std::string t = tag.str();
  return !t.empty() && t[0] == '!' ? t.substr(1) != profile : t == profile;
}

}  // namespace

std::vector<FixtureExpectations> loadFixtures(const std::string& sourceDir, const std::string& profile) {
  namespace fs = std::filesystem;
  // One or more annotations per line, each running to the next `--` or the end.
  static const std::regex expect(R"(--\s*(expect-runtime|expect|latent)(\[([^\]]*)\])?\s*:\s*((?:(?!--).)*))");
  std::vector<FixtureExpectations> all;
  for (const auto& entry : fs::directory_iterator(fs::path(sourceDir) / "fixtures")) {
    if (entry.path().extension() != ".lua") continue;
    FixtureExpectations f;
    f.path = "fixtures/" + entry.path().filename().string();
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      if (n == 1) continue;
      for (std::sregex_iterator it(line.begin(), line.end(), expect), end; it != end; ++it) {
        const std::smatch& m = *it;
        if (!appliesTo(m[3], profile)) continue;
        auto& into = m[1] == "expect" ? f.predicted : m[1] == "latent" ? f.latent : f.runtimeOnly;
        for (const auto& id : splitIds(m[4].str())) into.insert({n, id});
      }
    }
    all.push_back(std::move(f));
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
