// The register-value tracker on small snippets, for the value tests: what
// the callee (or an argument) of the call on a given line resolves to. Each
// snippet is compiled with the embedded LuaJIT and its dump read, as the
// analyzer does.
#pragma once

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "../../analyzer/flow/instruction_effects.h"
#include "../../analyzer/flow/values.h"
#include "ljcheck/bytecode.h"
#include "ljcheck/compile.h"
#include "ljcheck/profile.h"

namespace ljcheck::testing {

struct Snippet {
  using Value = flow::Value;
  bytecode::Chunk chunk;
  std::unique_ptr<flow::ValueMap> values;

  explicit Snippet(const std::string& source, const BuiltinAliases* aliases = nullptr) {
    static LuaCompiler compiler;
    CompileResult compiled = compiler.compile(source, "snippet.lua");
    INFO((compiled.error ? compiled.error->message : ""));
    REQUIRE(compiled.ok());
    static const bytecode::OpcodeTable opcodes(defaultProfile().bytecodeNames());
    chunk = bytecode::readDump(compiled.dump, opcodes, "snippet.lua");
    values = std::make_unique<flow::ValueMap>(chunk, defaultProfile(), aliases);
  }

  // The value in `slot` offset from the last CALL-like instruction on `line`
  // (the outermost call of a chain): offset 0 is the callee, k + 1 the k-th argument.
  Value atCall(int line, int offset = 0) const {
    Value found;
    bool any = false;
    for (std::size_t p = 0; p < chunk.prototypes.size(); ++p) {
      const auto& proto = chunk.prototypes[p];
      for (int pc = 1; pc <= proto.size(); ++pc) {
        const auto& ins = proto.at(pc);
        if (!flow::isCall(ins.op) || ins.line != line) continue;
        int slot = offset == 0 ? ins.a : flow::argumentSlot(chunk, ins, offset - 1);
        found = values->at(p, pc, slot);
        any = true;
      }
    }
    if (!any) FAIL("no call on line " << line);
    return found;
  }
  Value callee(int line) const { return atCall(line, 0); }
  Value argument(int line, int k) const { return atCall(line, k + 1); }
};

inline void requireLib(const flow::Value& v, const std::string& name) {
  INFO("kind " << static_cast<int>(v.kind) << " name " << std::string(v.name));
  REQUIRE(v.is(flow::Value::Kind::LibFunction));
  REQUIRE(v.name == name);
}


}  // namespace ljcheck::testing
