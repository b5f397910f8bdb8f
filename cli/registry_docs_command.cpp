// `ljcheck registry docs --out DIR [--fixtures DIR]`: writes the reason
// pages (docs/reasons/) from the built-in catalog and profiles and the
// fixtures, which give each page its smallest example. Run from the
// repository root: the pages link to ../../fixtures/.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "ljcheck/reason_docs.h"
#include "registry_subcommands.h"

namespace ljcheck::cli {
namespace {

namespace fs = std::filesystem;

struct DocsOptions {
  std::string out;
  std::string fixtures = "fixtures";
};

// The fixtures, sorted by file name, as `fixtures/NAME` paths.
std::vector<FixtureSource> readFixtures(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".lua") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<FixtureSource> fixtures;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) throw std::runtime_error(file.string() + ": cannot be read");
    fixtures.push_back({"fixtures/" + file.filename().string(), text.str()});
  }
  return fixtures;
}

int runDocs(const DocsOptions& o) {
  std::error_code ec;
  if (!fs::is_directory(o.fixtures, ec)) {
    std::cerr << "ljcheck registry docs: " << o.fixtures
              << ": not a directory (the fixtures give each page its example; pass --fixtures DIR)\n";
    return kInputError;
  }
  try {
    auto pages = renderReasonDocs(ReasonCatalog::builtin(), builtinProfiles(), readFixtures(o.fixtures));
    fs::create_directories(o.out);
    for (const auto& [name, text] : pages) {
      std::ofstream out(fs::path(o.out) / name, std::ios::binary | std::ios::trunc);
      out << text;
      if (!out.flush()) throw std::runtime_error((fs::path(o.out) / name).string() + ": cannot be written");
    }
    std::cout << "wrote " << pages.size() << " pages to " << o.out << "\n";
  } catch (const std::exception& e) {
    std::cerr << "ljcheck registry docs: " << e.what() << "\n";
    return kInputError;
  }
  return kClean;
}

}  // namespace

RegistrySubcommand addRegistryDocs(CLI::App& registryCmd) {
  auto o = std::make_shared<DocsOptions>();
  auto* cmd = registryCmd.add_subcommand("docs", "Write one Markdown page per reason code and an index");
  cmd->add_option("--out", o->out, "Folder for the pages (docs/reasons)")->required();
  cmd->add_option("--fixtures", o->fixtures, "Fixtures folder the examples come from (default: fixtures)");
  return {cmd, [o]() { return runDocs(*o); }};
}

}  // namespace ljcheck::cli
