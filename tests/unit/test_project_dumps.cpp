// The call graph's second analysis of a module runs from its kept bytecode
// dump while the dumps fit in AnalyzeOptions::keptDumpBytes, and compiles the
// module again once they do not: memory per file stays bounded on large
// trees, and the findings are the same either way.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ljcheck/analyzer.h"

using namespace ljcheck;

namespace {

std::vector<std::string> rows(const std::vector<FileResult>& results) {
  std::vector<std::string> out;
  for (const auto& file : results) {
    for (const auto& p : file.predictions)
      out.push_back(p.location() + " " + p.reasonId.str() + " " + std::string(toString(p.severity)) + " " +
                    std::string(toString(p.confidence)) + " " + p.reasoning);
    for (const auto& e : file.errors) out.push_back(e.path + " error " + e.message);
  }
  return out;
}

}  // namespace

TEST_CASE("a module analyzed again without its kept dump gets the same findings", "[analyzer][project]") {
  const std::string dir = std::string(LJCHECK_SOURCE_DIR) + "/fixtures/projects/hot_module/";
  const std::vector<std::string> files{dir + "main.lua", dir + "shapes.lua"};
  AnalyzeOptions kept;
  kept.root = LJCHECK_SOURCE_DIR;
  kept.minConfidence = Confidence::Possible;
  AnalyzeOptions compiledAgain = kept;
  compiledAgain.keptDumpBytes = 0;
  const auto withDumps = rows(analyzeFiles(files, kept));
  const auto withoutDumps = rows(analyzeFiles(files, compiledAgain));
  CHECK(withDumps == withoutDumps);
  // The cross-file heat reached the module both ways.
  bool hot = false;
  for (const auto& row : withoutDumps)
    hot = hot || row.rfind("fixtures/projects/hot_module/shapes.lua:4 NYIBC:FNEW blacklist certain", 0) == 0;
  CHECK(hot);
}
