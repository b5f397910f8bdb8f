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

}  // namespace

std::vector<FixtureExpectations> loadFixtures(const std::string& sourceDir, const std::string& profile) {
  namespace fs = std::filesystem;
  static const std::regex expect(R"(--\s*(expect-runtime|expect|latent)(\[([^\]]*)\])?\s*:\s*(.*)$)");
  std::vector<FixtureExpectations> all;
  for (const auto& entry : fs::directory_iterator(fs::path(sourceDir) / "fixtures")) {
    if (entry.path().extension() != ".lua") continue;
    FixtureExpectations f;
    f.path = "fixtures/" + entry.path().filename().string();
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::smatch m;
      if (n == 1 || !std::regex_search(line, m, expect)) continue;
      if (m[2].matched && m[3].str() != profile) continue;
      auto& into = m[1] == "expect" ? f.predicted : m[1] == "latent" ? f.latent : f.runtimeOnly;
      for (const auto& id : splitIds(m[4].str())) into.insert({n, id});
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
