// Forged bytecode dumps end in a clear refusal or a normal analysis, never in
// an exception from the rules: the reader checks every operand that names a
// slot, a constant, an upvalue or a pc before any rule indexes with it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "ljcheck/analyzer.h"
#include "ljcheck/compile.h"

using namespace ljcheck;
namespace fs = std::filesystem;

namespace {

// Dumps (debug info kept) of every fixture that compiles.
std::vector<std::string> fixtureDumps() {
  LuaCompiler compiler;
  std::vector<std::string> dumps;
  for (const auto& entry : fs::directory_iterator(std::string(LJCHECK_SOURCE_DIR) + "/fixtures")) {
    if (entry.path().extension() != ".lua") continue;
    std::ifstream in(entry.path());
    std::stringstream source;
    source << in.rdbuf();
    CompileResult compiled = compiler.compile(source.str(), "fixtures/" + entry.path().filename().string());
    if (compiled.ok()) dumps.push_back(std::move(compiled.dump));
  }
  return dumps;
}

}  // namespace

TEST_CASE("bit flips in real dumps are refused by name or analyzed, never thrown", "[bytecode][forged][robustness]") {
  const std::vector<std::string> dumps = fixtureDumps();
  REQUIRE(dumps.size() > 20);
  std::mt19937 random(20261201);
  const auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random); };
  std::size_t refused = 0, analyzed = 0, operandRefusals = 0;
  for (int round = 0; round < 1500; ++round) {
    std::string forged = dumps[pick(dumps.size())];
    for (std::size_t flips = 1 + pick(3); flips > 0; --flips)
      forged[5 + pick(forged.size() - 5)] ^= static_cast<char>(1 << pick(8));  // the header stays valid
    FileResult result;
    INFO("round " << round);
    REQUIRE_NOTHROW(result = analyzeSource(forged, "forged.luac", defaultProfile(), Confidence::Possible));
    if (result.errors.empty()) {
      ++analyzed;
      continue;
    }
    REQUIRE(result.errors.size() == 1);
    CHECK(result.errors[0].kind == FileError::Kind::Input);
    CHECK(result.errors[0].path == "forged.luac");
    CHECK(result.errors[0].message.rfind("cannot read bytecode dump: ", 0) == 0);
    refused += 1;
    operandRefusals += result.errors[0].message.find(", pc ") != std::string::npos;  // "prototype #N, pc P (OP): "
  }
  CHECK(analyzed > 0);
  CHECK(refused > 0);
  CHECK(operandRefusals > 0);
}
