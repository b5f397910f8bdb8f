// A value map that takes passes over from the last map of the same document
// (flow/value_history.h) answers every query exactly as a fresh map of the
// same chunk does, after edits that change a constant, an upvalue's value,
// what a function returns, a class, a module field, the line count, or two
// functions at once, and after seeded random edits of every fixture.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <iterator>
#include <tuple>
#include <string>
#include <vector>

#include "../../analyzer/flow/value_history.h"
#include "../../analyzer/flow/values.h"
#include "ljcheck/bytecode.h"
#include "ljcheck/compile.h"
#include "ljcheck/dump_reread.h"
#include "ljcheck/profile.h"
#include "../support/opcodes.h"
#include "../support/process.h"
#include "../support/text_edits.h"

using namespace ljcheck;
using flow::Value;

using ljcheck::testing::profileOpcodes;
using ljcheck::testing::readFile;
using ljcheck::testing::replaced;

namespace {

void describe(std::ostream& out, const Value& v) {
  out << int(v.kind) << (v.constant ? "k" : "") << (v.reassignable ? "r" : "") << ':' << v.pc << ':' << v.integer
      << ':' << v.proto << ':' << v.name << ' ';
}

// Every answer of the map: values at every pc and slot, upvalues, returns,
// escapes, jit.off targets, creating pcs, metatables of every constructor,
// C module operations, exported functions.
std::string describe(const bytecode::Chunk& chunk, const flow::ValueMap& values) {
  std::ostringstream out;
  std::vector<bool> escaping = values.escapingFunctions();
  for (std::size_t i = 0; i < chunk.prototypes.size(); ++i) {
    const bytecode::Prototype& p = chunk.prototypes[i];
    out << "proto " << i << " escapes " << escaping[i] << " jitoff " << values.jitDisabled(i) << " created at "
        << values.creatingPc(i) << " cmodule ops " << values.cModuleOperations(i).size() << "\n returns ";
    describe(out, values.returned(i));
    out << "\n upvalues ";
    for (std::size_t u = 0; u < p.upvalues.size(); ++u) describe(out, values.upvalue(i, static_cast<int>(u)));
    for (int pc = 1; pc <= p.size(); ++pc) {
      out << "\n " << pc << ": ";
      for (int slot = 0; slot < p.framesize + 2; ++slot) describe(out, values.at(i, pc, slot));
      const auto op = p.at(pc).op;
      if (op == bytecode::Op::TNEW || op == bytecode::Op::TDUP)
        out << " metatable " << int(values.metatableOf(Value::table(i, pc)));
    }
    out << '\n';
  }
  for (const auto& [name, proto] : values.exportedFunctions()) out << "export " << name << ' ' << proto << '\n';
  return out.str();
}

// One document edited again and again, as the language server sees it:
// the dump re-read and the value map built with the last map's history.
class Document {
 public:
  // What the map with history answers, and what a fresh map answers.
  std::pair<std::string, std::string> analyze(const std::string& source) {
    CompileResult compiled = compiler_.compile(source, "edited.lua");
    if (!compiled.ok()) return {"syntax error", "syntax error"};
    bytecode::Chunk chunk = dumps_.read(compiled.dump, profileOpcodes(), "edited.lua");
    std::string reused;
    {
      history_.sameBytes = dumps_.takenOver();
      flow::ValueMap values(chunk, defaultProfile(), nullptr, nullptr, &history_);
      reused = describe(chunk, values);
    }
    dumps_.keep(std::move(chunk));
    bytecode::Chunk freshChunk = bytecode::readDump(compiled.dump, profileOpcodes(), "edited.lua");
    flow::ValueMap fresh(freshChunk, defaultProfile());
    return {reused, describe(freshChunk, fresh)};
  }
  const flow::ValueMap::History& history() const { return history_; }

 private:
  LuaCompiler compiler_;
  bytecode::DumpRereader dumps_;
  flow::ValueMap::History history_;
};

const std::string kModule =
    "local M = {}\n"
    "local fmt = string.format\n"
    "local K = 10\n"
    "local C = {}\n"
    "C.__index = C\n"
    "function C.new(x) return setmetatable({x = x}, C) end\n"
    "function C:get() return self.x end\n"
    "function C:run(n) local s = 0 for i = 1, n do s = s + self:get() end return s end\n"
    "local function helper() return string.gsub end\n"
    "function M.a(t, n)\n"
    "  local s = 0\n"
    "  for i = 1, n do s = s + t[i] * K end\n"
    "  return s\n"
    "end\n"
    "function M.b(t, n)\n"
    "  local g = helper()\n"
    "  for i = 1, n do t[i] = g('a', 'a', 'b') end\n"
    "end\n"
    "function M.c(n)\n"
    "  local o = C.new(n)\n"
    "  return o:run(n), fmt('%d', n)\n"
    "end\n"
    "M.d = function(...) return select('#', ...) end\n"
    "local function make()\n"
    "  local step = math.floor\n"
    "  return function(x) return step(x) + 1 end\n"
    "end\n"
    "M.f = make()\n"
    "return M\n";

}  // namespace

TEST_CASE("a value map with the last map's history answers as a fresh map after each kind of edit", "[values]") {
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"local s = 0", "local s = 1"},                              // a constant inside M.a
      {"local K = 10", "local K = 'x'"},                           // the value of M.a's upvalue
      {"step = math.floor", "step = math.sqrt"},                   // the upvalue of an unchanged closure
      {"* K end", "* 3 end"},                                      // M.a no longer has the upvalue
      {"return string.gsub", "return string.find"},                // what helper returns, which M.b calls
      {"return self.x end", "return self.x + 1 end"},              // a method
      {"C.__index = C", "C.__index = M"},                          // the class
      {"M.d = function", "M.e = function"},                        // a module field's key
      {"local fmt = string.format\n", "local fmt = string.format\n\n"},  // every line below moves
      {"local M = {}\n", "local M = {}\nlocal A = function() end\n"},    // a prototype added
  };
  Document document;
  for (const auto& [from, to] : edits) {
    CAPTURE(from, to);
    for (const std::string& source : {kModule, replaced(kModule, from, to), kModule}) {
      auto [reused, fresh] = document.analyze(source);
      CHECK(reused == fresh);
    }
  }
  // Two functions at once, then back.
  const std::string both = replaced(replaced(kModule, "local s = 0", "local s = 2"), "fmt('%d', n)", "fmt('%x', n)");
  for (const std::string& source : {both, kModule}) {
    auto [reused, fresh] = document.analyze(source);
    CHECK(reused == fresh);
  }
}

TEST_CASE("an edit inside one function runs only the passes whose inputs changed", "[values]") {
  Document document;
  document.analyze(kModule);
  const std::size_t all = document.history().passesRun + document.history().passesReused;
  CHECK(document.history().passesReused == 0);
  auto [reused, fresh] = document.analyze(replaced(kModule, "local s = 0", "local s = 4"));
  CHECK(reused == fresh);
  // M.a's, in both rounds (main calls make(), whose result is a function,
  // so every prototype goes through a second round).
  CHECK(document.history().passesRun == 2);
  CHECK(document.history().passesReused == all - 2);
  document.analyze(kModule);
  // The closure make() returns calls a function through its upvalue: its
  // passes run again although its bytes are those of the last map.
  std::tie(reused, fresh) = document.analyze(replaced(kModule, "step = math.floor", "step = math.sqrt"));
  CHECK(reused == fresh);
  CHECK(document.history().passesRun == 4);  // make's and the closure's
}

TEST_CASE("a value map with history answers as a fresh map after random edits of every fixture", "[values]") {
  std::mt19937 random(20261202u);
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(LJCHECK_SOURCE_DIR) + "/fixtures"))
    if (entry.path().extension() == ".lua") files.push_back(entry.path().string());
  files.push_back(std::string(LJCHECK_SOURCE_DIR) + "/examples/particles/world.lua");
  REQUIRE(files.size() > 100);
  std::size_t compared = 0;
  for (const std::string& file : files) {
    CAPTURE(file);
    Document document;
    std::string text = readFile(file);
    document.analyze(text);
    for (int edit = 0; edit < 4; ++edit) {
      // A digit changed, a letter replaced, a piece of a line deleted,
      // or a closure put in; undone when the text no longer compiles.
      std::string next = text;
      std::size_t at = std::uniform_int_distribution<std::size_t>(0, next.size() - 1)(random);
      switch (random() % 4) {
        case 0: {
          auto digit = next.find_first_of("0123456789", at);
          if (digit != std::string::npos) next[digit] = static_cast<char>('0' + random() % 10);
          break;
        }
        case 1: next[at] = static_cast<char>('a' + random() % 26); break;
        case 2: next.erase(at, random() % 8); break;
        default: {
          auto line = next.find('\n', at);
          if (line != std::string::npos) next.insert(line + 1, "local _f = function() return K end\n");
        }
      }
      auto [reused, fresh] = document.analyze(next);
      CHECK(reused == fresh);
      if (reused != "syntax error") {
        text = next;
        ++compared;
      }
    }
  }
  CHECK(compared > 150);
}
