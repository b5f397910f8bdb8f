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
                    std::string(toString(p.confidence)) + " " + p.reasoning + " column " +
                    std::to_string(p.column) + " range " + std::to_string(p.range.start.line) + ":" +
                    std::to_string(p.range.start.column) + "-" + std::to_string(p.range.end.line) + ":" +
                    std::to_string(p.range.end.column));
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

TEST_CASE("a module analyzed again from its kept dump is mapped to its source: its range and column",
          "[analyzer][project]") {
  // shapes.lua is analyzed twice (main.lua's loop makes area hot); its text
  // is kept with its dump and mapped once, after the second analysis.
  const std::string dir = std::string(LJCHECK_SOURCE_DIR) + "/fixtures/projects/hot_module/";
  AnalyzeOptions options;
  options.root = LJCHECK_SOURCE_DIR;
  const auto results = analyzeFiles({dir + "main.lua", dir + "shapes.lua"}, options);
  REQUIRE(results.size() == 2);
  const FileResult& shapes = results[1];
  const Prediction* closure = nullptr;
  for (const auto& p : shapes.predictions)
    if (p.line == 4 && p.reasonId.str() == "NYIBC:FNEW") closure = &p;
  REQUIRE(closure != nullptr);
  CHECK(closure->severity == Severity::Blacklist);  // the second analysis's, with main.lua's heat
  // `  local scale = function(x) ...`: the closure at its `function` keyword.
  CHECK(closure->range.start.line == 4);
  CHECK(closure->range.start.column == 17);
  CHECK(closure->column == 17);
}
