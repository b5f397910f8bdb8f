// Compiles Lua source to a LuaJIT bytecode dump with the embedded LuaJIT: the
// parser ljcheck analyzes is the VM's own, so a syntax error carries LuaJIT's
// own message and the dump is exactly what the VM would run.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct lua_State;

namespace ljcheck {

struct SyntaxError {
  std::string message;  // LuaJIT's own, e.g. "fixtures/x.lua:3: '=' expected near 'x'"
  int line = 0;         // parsed from the message; 0 if it names none
};

struct CompileResult {
  std::string dump;
  std::optional<SyntaxError> error;
  bool ok() const { return !error; }
};

// Owns one lua_State. Not thread-safe: use one compiler per thread.
class LuaCompiler {
 public:
  LuaCompiler();
  ~LuaCompiler();
  LuaCompiler(const LuaCompiler&) = delete;
  LuaCompiler& operator=(const LuaCompiler&) = delete;

  // Compiles `source` with chunk name "@" + chunkPath and returns lua_dump's
  // output with debug info kept. Source text only: a precompiled chunk is an error.
  CompileResult compile(std::string_view source, std::string_view chunkPath);

  // This VM's bytecode names in opcode order, from require("jit.vmdef").bcnames.
  std::vector<std::string> bytecodeNames() const;

 private:
  lua_State* L_;
  unsigned compiles_ = 0;
};

}  // namespace ljcheck
