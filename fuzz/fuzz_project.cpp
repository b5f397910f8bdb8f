// libFuzzer harness for the project pass: several Lua files that require
// one another, linted together as `ljcheck lint DIR` lints them (the require
// scan that orders the first pass, the module index, heat carried across
// files, the imports round and the settling rounds), then as the language
// server keeps them (ProjectAnalysis: unsaved buffers, an edit, a second
// update). The input is split into files at lines `--- NAME` (the text
// before the first one is main.lua); names keep [a-z0-9_/.] and get .lua.
// The lint writes the files into a folder of its own first. Errors come back
// as FileErrors: any exception escaping, and every crash, leak or undefined
// behaviour, is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ljcheck/analyzer.h"
#include "ljcheck/profile.h"
#include "ljcheck/project_analysis.h"

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxFiles = 6;
constexpr std::size_t kMaxNameBytes = 40;

std::string folder;  // where the lint's files are written, one per process

struct File {
  std::string name;  // relative: main.lua, lib/util.lua
  std::string text;
};

// A name made safe to write under `folder`: no "..", no leading '/', at
// most two levels.
std::string safeName(std::string_view raw) {
  std::string name;
  int slashes = 0;
  for (char c : raw) {
    if (name.size() >= kMaxNameBytes) break;
    bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
                (c == '/' && slashes < 2 && !name.empty() && name.back() != '/');
    if (!keep) continue;
    if (c == '/') ++slashes;
    if (c == '.' && !name.empty() && name.back() == '.') continue;
    name += c;
  }
  while (!name.empty() && (name.back() == '/' || name.back() == '.')) name.pop_back();
  if (name.empty()) name = "m";
  if (name.size() < 4 || name.compare(name.size() - 4, 4, ".lua") != 0) name += ".lua";
  return name;
}

std::vector<File> splitFiles(std::string_view input) {
  std::vector<File> files{{"main.lua", {}}};
  std::size_t at = 0;
  while (at <= input.size()) {
    std::size_t end = input.find('\n', at);
    std::string_view line = input.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    if (line.substr(0, 4) == "--- " && files.size() < kMaxFiles) {
      std::string name = safeName(line.substr(4));
      bool taken = false;
      for (const auto& f : files) taken = taken || f.name == name;
      if (!taken) {
        files.push_back({name, {}});
        at = end == std::string_view::npos ? input.size() + 1 : end + 1;
        continue;
      }
    }
    files.back().text += line;
    if (end == std::string_view::npos) break;
    files.back().text += '\n';
    at = end + 1;
  }
  return files;
}

void lintFromDisk(const std::vector<File>& files) {
  std::error_code ec;
  fs::remove_all(folder, ec);
  std::vector<std::string> paths;
  for (const auto& f : files) {
    fs::path path = fs::path(folder) / f.name;
    fs::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary);
    out << f.text;
    if (out) paths.push_back(path.string());
  }
  ljcheck::AnalyzeOptions options;
  options.root = folder;
  options.minConfidence = ljcheck::Confidence::Possible;
  options.keptDumpBytes = 4096;  // some dumps kept, others compiled again
  std::vector<ljcheck::FileResult> results = ljcheck::analyzeFiles(paths, options);
  (void)results;
}

void keepAsTheServerDoes(const std::vector<File>& files) {
  ljcheck::AnalyzeOptions options;
  options.root = "/nonexistent-ljcheck-fuzz";
  options.minConfidence = ljcheck::Confidence::Possible;
  ljcheck::ProjectAnalysis project({}, options);
  for (const auto& f : files) project.setText(options.root + "/" + f.name, f.text);
  (void)project.update();
  // An edit of the first file, and the rest analyzed again only as needed.
  project.setText(options.root + "/" + files.front().name, files.front().text + "\nlocal _ = 1\n");
  (void)project.update();
  for (const auto& f : files) (void)project.result(options.root + "/" + f.name);
}


void removeFolder() {
  std::error_code ec;
  fs::remove_all(folder, ec);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)ljcheck::defaultProfile();
  const char* tmp = std::getenv("TMPDIR");
  folder = std::string(tmp && *tmp ? tmp : "/tmp") + "/ljcheck-fuzz-project-" + std::to_string(getpid());
  std::atexit(removeFolder);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<File> files = splitFiles(std::string_view(reinterpret_cast<const char*>(data), size));
  lintFromDisk(files);
  keepAsTheServerDoes(files);
  return 0;
}
