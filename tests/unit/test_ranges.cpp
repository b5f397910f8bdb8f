// Prediction ranges: each construct's range points at the construct itself,
// though LuaJIT gives its instruction the line of the last token before it
// (a closure's FNEW is on its `end`), and of several calls on one line at
// the one the bytecode names.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "../support/fixtures.h"
#include "flow/instruction_effects.h"
#include "ljcheck/bytecode.h"
#include "ljcheck/compile.h"
#include "ljcheck/source_map.h"
#include "test_rules_support.h"

using namespace ljcheck;
using ljcheck::testing::find;
using ljcheck::testing::predict;

namespace {

// "line:column-line:column"
std::string shown(const SourceRange& r) {
  return std::to_string(r.start.line) + ":" + std::to_string(r.start.column) + "-" + std::to_string(r.end.line) +
         ":" + std::to_string(r.end.column);
}

// The 1-based byte column of the n-th (1-based) `word` in `text`.
int columnOf(const std::string& text, const std::string& word, int n = 1) {
  std::size_t at = std::string::npos;
  for (int k = 0; k < n; ++k) at = text.find(word, at == std::string::npos ? 0 : at + 1);
  return static_cast<int>(at) + 1;
}

}  // namespace

TEST_CASE("a multi-line closure's range is its `function` keyword, FNEW is on its `end`", "[source][ranges]") {
  auto ps = predict("local t = {}\n"
                    "for i = 1, 100 do\n"
                    "  t[i] = function(x)\n"
                    "    return x + i\n"
                    "  end\n"
                    "end\n"
                    "return t\n");
  const Prediction* fnew = find(ps, 5, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(shown(fnew->range) == "3:10-3:18");
  CHECK(fnew->column == 0);  // the range is not on the VM's line
  // The loop body's UCLO is on the line of its last token; it closes at the loop's `end`.
  const Prediction* uclo = find(ps, 5, "NYIBC:UCLO");
  REQUIRE(uclo);
  CHECK(shown(uclo->range) == "6:1-6:4");
}

TEST_CASE("a one-line closure's range is on its line, and so are column and endColumn", "[source][ranges]") {
  auto ps = predict("local t = {}\n"
                    "for i = 1, 100 do\n"
                    "  t[i] = function() return i end\n"
                    "end\n");
  const Prediction* fnew = find(ps, 3, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(shown(fnew->range) == "3:10-3:18");
  CHECK(fnew->column == 10);
  CHECK(fnew->endColumn == 18);
}

TEST_CASE("of two gsub calls on one line, the range is the one in the loop", "[source][ranges]") {
  const std::string line = "local r = s:gsub('a', 'b') for i = 1, 100 do local u = s:gsub('a', 'b') end";
  auto ps = predict("local s = 'abc'\n" + line + "\nreturn r\n");
  const Prediction* gsub = find(ps, 2, "STITCH:string.gsub");
  REQUIRE(gsub);
  CHECK(gsub->range.start.column == columnOf(line, "gsub", 2));
  CHECK(gsub->column == gsub->range.start.column);
  CHECK(gsub->endColumn == gsub->range.start.column + 4);
}

TEST_CASE("the occurrence-th call of a line is counted in the bytecode's order", "[source][ranges]") {
  // Every callee is f; the argument counts tell the calls apart in the bytecode.
  const std::string line = "local x = f(f(f(1), 2, 3, 4), 5) .. f(6, 7, 8) .. f(function() return f(9, 9, 9, 9, 9) end, 0, 0, 0, 0, 0)";
  const std::string source = "local f = ...\n" + line + "\nreturn x\n";
  std::map<int, int> columnByArgs = {{1, columnOf(line, "f(", 3)}, {4, columnOf(line, "f(", 2)},
                                     {2, columnOf(line, "f(", 1)}, {3, columnOf(line, "f(", 4)},
                                     {6, columnOf(line, "f(", 5)}, {5, columnOf(line, "f(", 6)}};
  LuaCompiler compiler;
  CompileResult compiled = compiler.compile(source, "calls.lua");
  REQUIRE(compiled.ok());
  const bytecode::OpcodeTable opcodes(compiler.bytecodeNames());
  const bytecode::Chunk chunk = bytecode::readDump(compiled.dump, opcodes, "calls.lua");
  SourceMap map(source);
  int calls = 0;
  for (const auto& proto : chunk.prototypes) {
    int occurrence = 0;
    for (int pc = 1; pc <= proto.size(); ++pc) {
      const auto& ins = proto.at(pc);
      if (!flow::isCall(ins.op) || ins.line != 2) continue;
      REQUIRE((ins.op == bytecode::Op::CALL || ins.op == bytecode::Op::CALLT));  // no multiple results
      ++occurrence;
      ++calls;
      int args = (ins.op == bytecode::Op::CALLT ? ins.d : ins.c) - 1;
      INFO("the call with " << args << " arguments, call " << occurrence << " of the function at line "
                            << proto.firstline);
      SourceRange r = map.locate({2, "call", "f", occurrence, false, proto.firstline});
      CHECK(r.start.column == columnByArgs.at(args));
    }
  }
  CHECK(calls == 6);
}

TEST_CASE("an aliased callee is found by its occurrence alone", "[source][ranges]") {
  SourceMap map("local g = string.gsub\n"
                "x = g(s, 'a', 'b') .. g(s, 'c', 'd')\n");
  CHECK(shown(map.locate({2, "call", "string.gsub", 2, false, 0})) == "2:23-2:24");
  // Without an occurrence nothing on the line tells them apart: the first call.
  CHECK(shown(map.locate({2, "call", "string.gsub", 0, false, 0})) == "2:5-2:6");
}

TEST_CASE("a split a helper's tail call lands at its call points at that call, not at a call of the callee",
          "[source][ranges]") {
  // int tail-calls string.format with '%s' of a number: the split is at
  // `int(i)`, inside another string.format call on the same line.
  const std::string line = "  n = n + #string.format('<v>%s</v>', int(i))";
  auto ps = predict("local function int(v) return string.format('<int>%s</int>', v) end\n"
                    "local n = 0\n"
                    "for i = 1, 3000 do\n" +
                    line + "\n"
                    "end\n");
  const Prediction* split = find(ps, 4, "RETURN:string.format");
  REQUIRE(split);
  CHECK(split->callee == "string.format");
  CHECK(split->range.start.column == columnOf(line, "int("));
  CHECK(split->range.end.column == columnOf(line, "int(") + 3);
}

TEST_CASE("an inner loop's range is its keyword, LINNER is on its body's first line", "[source][ranges]") {
  auto ps = predict("local n = 0\n"
                    "local function visit(w)\n"
                    "  local k = 0\n"
                    "  while k < 20 do\n"
                    "    k = k + 1\n"
                    "    n = n + k\n"
                    "  end\n"
                    "  return w\n"
                    "end\n"
                    "local s = string.rep('word ', 3000)\n"
                    "local r = string.gsub(s, '%a+', visit)\n");
  const Prediction* linner = find(ps, 5, "LINNER");
  REQUIRE(linner);
  CHECK(shown(linner->range) == "4:3-4:8");
}

TEST_CASE("an upvalue close points at the loop's `end`, or at the break that leaves it", "[source][ranges]") {
  SourceMap map("for i = 1, 10 do\n"
                "  local x = i\n"
                "  if x > 5 then break end\n"
                "  g(function() return x end)\n"
                "  n = n + x\n"
                "end\n"
                "local function f()\n"
                "  local y = 1\n"
                "  g(function() return y end)\n"
                "end\n"
                "repeat\n"
                "  local z = 1\n"
                "  g(function() return z end)\n"
                "until z\n");
  CHECK(shown(map.locate({3, "upvalue close", "", 0, true})) == "3:17-3:22");  // break
  CHECK(shown(map.locate({5, "upvalue close", "", 0, true})) == "6:1-6:4");    // the body's end
  CHECK(shown(map.locate({10, "upvalue close", "", 0, false})) == "10:1-10:4");  // the function's implicit return
  CHECK(shown(map.locate({14, "upvalue close", "", 0, true})) == "14:1-14:6");   // until
  // A closure's own return closes nothing: the line's UCLO is the loop body's.
  SourceMap closing("for i = 1, 10 do\n"
                    "  local x = i\n"
                    "  t[i] = function()\n"
                    "    return x end\n"
                    "end\n");
  CHECK(shown(closing.locate({4, "upvalue close", "", 0, true})) == "5:1-5:4");
}

TEST_CASE("a return's range is its keyword, an implicit one the function's `end`", "[source][ranges]") {
  auto ps = predict("local function sum(k)\n"
                    "  if k == 0 then return 0 end\n"
                    "  return k + sum(k - 1)\n"
                    "end\n"
                    "local n = 0\n"
                    "for i = 1, 3000 do\n"
                    "  n = n + sum(20)\n"
                    "end\n");
  const Prediction* downrec = find(ps, 3, "DOWNREC");
  REQUIRE(downrec);
  CHECK(shown(downrec->range) == "3:3-3:9");
  // CUNROLL is reported at the function's header: its `function` keyword.
  const Prediction* unroll = find(ps, 1, "CUNROLL");
  REQUIRE(unroll);
  CHECK(shown(unroll->range) == "1:7-1:15");

  auto retl = predict("local function work(n)\n"
                      "  local s = 0\n"
                      "  for i = 1, n do s = s + i end\n"
                      "  return s\n"
                      "end\n"
                      "local total = 0\n"
                      "for k = 1, 300 do\n"
                      "  local ok, v = pcall(work, 20)\n"
                      "  total = total + v\n"
                      "end\n");
  const Prediction* nyiretl = find(retl, 4, "NYIRETL");
  REQUIRE(nyiretl);
  CHECK(shown(nyiretl->range) == "4:3-4:9");

  SourceMap implicit("local function f(t)\n"
                     "  for i = 1, #t do t[i] = 0 end\n"
                     "end\n");
  CHECK(shown(implicit.locate({3, "return", ""})) == "3:1-3:4");
}

TEST_CASE("every prediction over the fixtures has a range", "[source][ranges][fixtures]") {
  const RecorderProfile& profile = defaultProfile();
  auto fixtures = testing::loadFixtures(LJCHECK_SOURCE_DIR, profile.name);
  REQUIRE(fixtures.size() >= 30);
  int predictions = 0;
  for (const auto& fixture : fixtures) {
    std::ifstream in(std::string(LJCHECK_SOURCE_DIR) + "/" + fixture.path);
    std::stringstream source;
    source << in.rdbuf();
    FileResult result = analyzeSource(source.str(), fixture.path, profile, Confidence::Possible);
    for (const auto& p : result.predictions) {
      INFO(p.location() << " " << p.reasonId.str() << " (" << p.construct << ")");
      ++predictions;
      CHECK(p.range.start.column > 0);
      CHECK(p.range.start.line > 0);
      CHECK((p.range.end.line > p.range.start.line ||
             (p.range.end.line == p.range.start.line && p.range.end.column > p.range.start.column)));
    }
  }
  CHECK(predictions > 50);
}
