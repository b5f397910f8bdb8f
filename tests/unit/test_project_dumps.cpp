// The call graph's second analysis of a file runs from its kept bytecode
// dump while the dumps fit in AnalyzeOptions::keptDumpBytes, and compiles the
// file again once they do not: memory per file stays bounded on large
// trees, and the findings are the same either way. A file that calls other
// files' functions is kept (what it imports from them may take a second
// analysis) and mapped to its source after its last analysis, from the file
// read again; a module only called is analyzed after its callers, once.
#include <catch2/catch.hpp>
#include <filesystem>
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "ljcheck/analyzer.h"
#include "../support/process.h"

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

TEST_CASE("a project analyzed again without its kept dumps gets the same findings", "[analyzer][project]") {
  // Every fixture project: those whose files import ctypes, registering
  // functions or returned library functions from each other are analyzed
  // twice.
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::string(LJCHECK_SOURCE_DIR) + "/fixtures/projects"))
    if (entry.path().extension() == ".lua") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() > 10);
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

TEST_CASE("a module analyzed after its caller has the caller's heat and is mapped to its source",
          "[analyzer][project]") {
  // main.lua requires shapes.lua, so it is analyzed first; shapes.lua then
  // knows that main.lua's loop makes area hot, and is mapped as it is read.
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
  CHECK(closure->severity == Severity::Blacklist);  // with main.lua's heat
  // `  local scale = function(x) ...`: the closure at its `function` keyword.
  CHECK(closure->range.start.line == 4);
  CHECK(closure->range.start.column == 17);
  CHECK(closure->column == 17);
}

namespace {

// hot_module's two files copied to a scratch folder, shapes.lua calling a
// function of a third module on lines that were there (so it is kept: it
// calls other files' functions), linted with `between` run once every
// file's first analysis is done: after the first read of shapes.lua,
// before its kept dump is mapped to the file read again.
std::vector<FileResult> lintChangingShapes(const std::string& name, const std::function<void(const std::string&)>& between) {
  const std::string from = std::string(LJCHECK_SOURCE_DIR) + "/fixtures/projects/hot_module/";
  const std::string dir = ljcheck::testing::freshDirectory(std::string(LJCHECK_BINARY_DIR) + "/unit-tests/" + name);
  ljcheck::testing::writeFile(dir + "/main.lua", ljcheck::testing::readFile(from + "main.lua"));
  std::string shapes = ljcheck::testing::readFile(from + "shapes.lua");
  shapes.replace(shapes.find("local M = {}"), 12, "local M = {} local util = require(\"util\")");
  shapes.replace(shapes.find("scale(r * r)"), 12, "scale(util.id(r) * r)");
  ljcheck::testing::writeFile(dir + "/shapes.lua", shapes);
  ljcheck::testing::writeFile(dir + "/util.lua", "local M = {}\nfunction M.id(x) return x end\nreturn M\n");
  AnalyzeOptions options;
  options.root = dir;
  options.progress = [&](std::size_t done, std::size_t total) {
    if (done == total) between(dir + "/shapes.lua");
  };
  return analyzeFiles({dir + "/main.lua", dir + "/shapes.lua", dir + "/util.lua"}, options);
}

const Prediction* closureAtLine4(const FileResult& shapes) {
  for (const auto& p : shapes.predictions)
    if (p.line == 4 && p.reasonId.str() == "NYIBC:FNEW") return &p;
  return nullptr;
}

}  // namespace

TEST_CASE("a kept module is mapped to the file read again, when it is the same file", "[analyzer][project]") {
  const auto results = lintChangingShapes("mapped-again-same", [](const std::string&) {});
  REQUIRE(results.size() == 3);
  CHECK(results[1].errors.empty());
  const Prediction* closure = closureAtLine4(results[1]);
  REQUIRE(closure != nullptr);
  CHECK(closure->column == 17);
}

TEST_CASE("a kept module changed before it is mapped keeps its findings, without columns, and says so",
          "[analyzer][project]") {
  // The text the findings came from is not the text on disk any more: its
  // columns and allow comments would be another text's.
  const auto results = lintChangingShapes("mapped-again-changed", [](const std::string& shapes) {
    ljcheck::testing::writeFile(shapes, "-- ljcheck: allow NYIBC:FNEW\n" + ljcheck::testing::readFile(shapes));
  });
  REQUIRE(results.size() == 3);
  const FileResult& shapes = results[1];
  REQUIRE(shapes.errors.size() == 1);
  CHECK(shapes.errors[0].kind == FileError::Kind::Io);
  CHECK(shapes.errors[0].path == "shapes.lua");
  CHECK(shapes.errors[0].message ==
        "the file changed while it was linted: its findings are given at their lines without columns, and allow "
        "comments in it are not applied");
  const Prediction* closure = closureAtLine4(shapes);
  REQUIRE(closure != nullptr);  // not lost, and not taken for suppressed by the new text's comment
  CHECK(closure->severity == Severity::Blacklist);
  CHECK(closure->column == 0);
  CHECK(results[0].errors.empty());  // main.lua, mapped when it was read
}

TEST_CASE("a kept module removed before it is mapped keeps its findings and names the error", "[analyzer][project]") {
  const auto results =
      lintChangingShapes("mapped-again-removed", [](const std::string& shapes) { std::filesystem::remove(shapes); });
  REQUIRE(results.size() == 3);
  const FileResult& shapes = results[1];
  REQUIRE(shapes.errors.size() == 1);
  CHECK(shapes.errors[0].message.rfind("cannot open file: no such file or directory: its findings are given", 0) == 0);
  REQUIRE(closureAtLine4(shapes) != nullptr);
}

TEST_CASE("one file linted alone is placed in the text it was read from, not read again", "[analyzer][project]") {
  // Nothing can make one file run again, so nothing is kept: a save that
  // lands while it is linted changes nothing in this report.
  const std::string from = std::string(LJCHECK_SOURCE_DIR) + "/fixtures/projects/hot_module/shapes.lua";
  const std::string dir = ljcheck::testing::freshDirectory(std::string(LJCHECK_BINARY_DIR) + "/unit-tests/alone");
  ljcheck::testing::writeFile(dir + "/shapes.lua", ljcheck::testing::readFile(from));
  AnalyzeOptions options;
  options.root = dir;
  options.minConfidence = Confidence::Possible;
  options.progress = [&](std::size_t, std::size_t) {
    ljcheck::testing::writeFile(dir + "/shapes.lua", "-- ljcheck: allow NYIBC:FNEW\n" + ljcheck::testing::readFile(from));
  };
  const auto results = analyzeFiles({dir + "/shapes.lua"}, options);
  REQUIRE(results.size() == 1);
  CHECK(results[0].errors.empty());
  const Prediction* closure = closureAtLine4(results[0]);
  REQUIRE(closure != nullptr);
  CHECK(closure->column == 17);
}
