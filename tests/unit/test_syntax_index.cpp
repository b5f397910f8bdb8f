// The source map's token index against LuaJIT's own parse: every function
// of a file is found at its prototype's lines, and every line of a function
// holds as many calls as the bytecode has call instructions there (what
// Prediction::occurrence counts).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "flow/instruction_effects.h"
#include "ljcheck/bytecode.h"
#include "ljcheck/compile.h"
#include "source/lua_tokens.h"
#include "source/syntax_index.h"
#include "../support/process.h"

using namespace ljcheck;
using ljcheck::testing::readFile;

namespace {

using FunctionLine = std::tuple<int, int, int>;  // the function's first and last line, a line in it

// Call instructions per function and line, as the bytecode has them and as the index counts them.
std::pair<std::map<FunctionLine, int>, std::map<FunctionLine, int>> callsPerLine(const bytecode::Chunk& chunk,
                                                                                   const SyntaxIndex& index) {
  std::map<FunctionLine, int> bytecode, source;
  for (std::size_t i = 0; i < chunk.prototypes.size(); ++i) {
    const auto& p = chunk.prototypes[i];
    bool main = i + 1 == chunk.prototypes.size();
    for (int pc = 1; pc <= p.size(); ++pc)
      if (flow::isCall(p.at(pc).op)) ++bytecode[{main ? 0 : p.firstline, main ? 0 : p.lastline(), p.at(pc).line}];
  }
  for (const auto& c : index.calls) {
    const auto& f = index.functions[static_cast<std::size_t>(c.function)];
    ++source[{f.firstLine, f.lastLine, c.line}];
  }
  return {bytecode, source};
}

void checkAgainstBytecode(const std::string& path, const std::string& source) {
  LuaCompiler compiler;
  CompileResult compiled = compiler.compile(source, path);
  REQUIRE(compiled.ok());
  const bytecode::OpcodeTable opcodes(compiler.bytecodeNames());
  const bytecode::Chunk chunk = bytecode::readDump(compiled.dump, opcodes, path);
  SyntaxIndex index(source);
  std::set<std::pair<int, int>> functions;
  for (std::size_t i = 1; i < index.functions.size(); ++i)
    functions.insert({index.functions[i].firstLine, index.functions[i].lastLine});
  CHECK(index.functions.size() == chunk.prototypes.size());
  for (std::size_t i = 0; i + 1 < chunk.prototypes.size(); ++i) {
    const auto& p = chunk.prototypes[i];
    INFO(path << ": the function at lines " << p.firstline << "-" << p.lastline());
    CHECK(functions.count({p.firstline, p.lastline()}) == 1);
  }
  auto [bytecode, counted] = callsPerLine(chunk, index);
  INFO(path);
  CHECK(counted == bytecode);
}

}  // namespace

TEST_CASE("the token index finds LuaJIT's functions and calls in every fixture and example", "[source][ranges]") {
  int files = 0;
  for (const char* dir : {"fixtures", "examples"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(LJCHECK_SOURCE_DIR) + "/" + dir)) {
      if (entry.path().extension() != ".lua") continue;
      DYNAMIC_SECTION(entry.path().filename().string()) { checkAgainstBytecode(entry.path().string(), readFile(entry.path())); }
      ++files;
    }
  }
  CHECK(files > 100);
}

TEST_CASE("calls are placed where LuaJIT's parser stands", "[source][ranges]") {
  // A tail call is on the line of the return's last token; a string
  // argument's call on its last line; chained arguments are calls too; a
  // parenthesized statement after a parameter list is not an argument list.
  checkAgainstBytecode("calls.lua",
                       "local function f(...)\n"
                       "  g(\n"
                       "    1)\n"
                       "  h [[a\n"
                       "  b]] \"c\" {d}\n"
                       "  local m = require 'm' ()\n"
                       "  return k(function() end,\n"
                       "    2)\n"
                       "end\n"
                       "local t = setmetatable({}, {__index = function(_, key)\n"
                       "  (f or g)(key)\n"
                       "  return (f(key))\n"
                       "end})\n"
                       "return f, t\n");
}

TEST_CASE("the tokens skip comments and long strings, and keep their positions", "[source]") {
  auto tokens = tokenizeLua("#!/usr/bin/env luajit\n"
                            "local s = [==[ ]] end\n ]==] --[[ end\n ]] x = 0x1p-4 + .5e+3 .. \"\\\"end\"\n"
                            "y = a.b:c(...) -- end\n");
  std::vector<std::string> text;
  for (const auto& t : tokens) text.emplace_back(t.text);
  CHECK(text == std::vector<std::string>{"local", "s", "=", "[==[ ]] end\n ]==]", "x", "=", "0x1p-4", "+", ".5e+3", "..",
                                         "\"\\\"end\"", "y", "=", "a", ".", "b", ":", "c", "(", "...", ")"});
  REQUIRE(tokens.size() == 21);
  CHECK(tokens[3].start.line == 2);
  CHECK(tokens[3].start.column == 11);
  CHECK(tokens[3].end.line == 3);
  CHECK(tokens[3].end.column == 6);
  CHECK(tokens[4].start.line == 4);  // x, after the long comment
  CHECK(tokens[4].start.column == 5);
  CHECK(tokens[0].kind == LuaToken::Kind::Keyword);
  CHECK(tokens[19].symbol("..."));
}
