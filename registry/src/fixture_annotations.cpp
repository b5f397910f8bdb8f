// Reads fixture expectation comments with the grammar of fixtures/README.md:
// `-- expect[PROFILE]: ID, ID`, several per line, each running to the next `--`.
#include "ljcheck/fixture_annotations.h"

#include <regex>
#include <sstream>

namespace ljcheck {
namespace {

std::vector<std::string> splitIds(const std::string& list) {
  std::vector<std::string> ids;
  std::stringstream items(list);
  for (std::string id; std::getline(items, id, ',');) {
    id.erase(0, id.find_first_not_of(" \t"));
    id.erase(id.find_last_not_of(" \t\r") + 1);
    if (!id.empty()) ids.push_back(id);
  }
  return ids;
}

}  // namespace

std::vector<FixtureAnnotation> readFixtureAnnotations(std::string_view source) {
  static const std::regex annotation(R"(--\s*(expect-runtime|expect|latent|timing)(\[([^\]]*)\])?\s*:\s*((?:(?!--).)*))");
  std::vector<FixtureAnnotation> all;
  std::istringstream lines{std::string(source)};
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    if (n == 1) continue;  // the fixture's summary, never an annotation
    for (std::sregex_iterator it(line.begin(), line.end(), annotation), end; it != end; ++it) {
      const std::smatch& m = *it;
      all.push_back({n, m[1].str(), m[3].str(), splitIds(m[4].str())});
    }
  }
  return all;
}

}  // namespace ljcheck
