// libFuzzer harness for `.ljcheck.toml` (cli/config.cpp): parse the bytes as
// a config file, then use what it holds as lint does: match its include,
// exclude and [[overrides]] globs against paths, and apply its reason levels
// to a real analysis. Every bad file must come back as one config error line
// naming the file; an exception escaping, a crash, a hang, a leak or
// undefined behaviour is a finding, and so is an error that does not name
// the file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "config.h"
#include "ljcheck/analyzer.h"
#include "ljcheck/lint_report.h"
#include "ljcheck/profile.h"

namespace {

constexpr const char* kName = "fuzz/.ljcheck.toml";

// A file with several reasons, a masking note and a suppression, analyzed
// once: the reason levels are applied to a copy of it per input.
constexpr std::string_view kSource = R"(local t = {}
for i = 1, 100 do
  t[i] = function() return i end
  print(i)
  local s = string.rep("x", i)
  t[#t + 1] = s:gsub("x", "y")
end
return t
)";

const ljcheck::FileResult* analysis = nullptr;
std::string directory;  // the folder the config's globs are relative to

void matchGlobs(const ljcheck::cli::LintConfig& config) {
  for (const char* rel : {"src/a.lua", "spec/a_spec.lua", "vendor/x/y.lua", ".hidden/z.lua", "a.lua"}) {
    const std::string path = directory + "/" + rel;
    (void)ljcheck::pathMatchesGlobs(config.include, directory, path);
    (void)ljcheck::pathMatchesGlobs(config.exclude, directory, path);
    for (const auto& o : config.overrides) (void)ljcheck::pathMatchesGlobs(o.files, directory, path);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  static const ljcheck::FileResult result = ljcheck::analyzeSource(
      kSource, "src/a.lua", ljcheck::defaultProfile(), ljcheck::Confidence::Possible);
  analysis = &result;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto loaded = ljcheck::cli::parseConfig(text, kName);
  if (const auto* error = std::get_if<std::string>(&loaded)) {
    if (error->rfind(kName, 0) != 0) std::abort();  // a config error must name the file
    return 0;
  }
  const auto& config = std::get<ljcheck::cli::LintConfig>(loaded);
  directory = config.directory;
  matchGlobs(config);
  ljcheck::LintReport report;
  report.files.push_back(*analysis);
  ljcheck::cli::applyReasonLevels(report, config, directory);
  return 0;
}
