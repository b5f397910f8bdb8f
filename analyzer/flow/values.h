// What each register holds at each instruction, as far as the bytecode shows:
// library tables and functions (string, string.gsub), constant strings,
// aliases through locals and immutable upvalues. Anything else is Unknown:
// an unresolved value never yields a prediction.
#pragma once

#include <cstdint>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <string>
#include <vector>

#include "ljcheck/bytecode.h"
#include "ljcheck/profile.h"

namespace ljcheck::flow {

struct Value {
  enum class Kind { Unknown, Global, LibTable, LibFunction, CFunction, String, Number, LuaFunction };
  Kind kind = Kind::Unknown;
  // Global or library name (string.gsub) or string constant; points into the
  // chunk's constants or the ValueMap's name pool, so values copy cheaply.
  std::string_view name;
  std::size_t proto = SIZE_MAX;  // LuaFunction: the prototype it instantiates

  bool known() const { return kind != Kind::Unknown; }
  bool operator==(const Value& o) const { return kind == o.kind && name == o.name && proto == o.proto; }
};

// Values of every prototype of a chunk; prototypes are resolved parent first
// so that upvalues see the values their parent's locals were given.
class ValueMap {
 public:
  ValueMap(const bytecode::Chunk& chunk, const RecorderProfile& profile);
  // The value in `slot` just before the instruction at `pc` runs. Kept for
  // calls, returns and closure creations; Unknown at other instructions.
  Value at(std::size_t proto, int pc, int slot) const;
  // The value of upvalue `index` of a prototype.
  Value upvalue(std::size_t proto, int index) const;
  // What a prototype returns when every return hands back one known value
  // (return coroutine.wrap(...), return string.gmatch(...)); else Unknown.
  Value returned(std::size_t proto) const;
  // Per prototype: whether a closure of it escapes (stored in a table or a
  // global or an upvalue, returned, or passed as an argument).
  std::vector<bool> escapingFunctions() const;

 private:
  using Registers = std::vector<Value>;
  struct ProtoValues {
    std::map<int, Registers> before;  // at calls, returns and FNEW
    std::vector<Value> upvalues;
    Value returns;
    std::vector<std::size_t> escaping;  // prototypes whose closures escape from here
  };
  void noteEscapes(const bytecode::Instruction& ins, const Registers& regs, std::vector<std::size_t>& out) const;
  void transfer(std::size_t index, const bytecode::Instruction& ins, Registers& regs);
  // A library table or function by dotted name, or Unknown (cached).
  Value library(std::string_view name);
  std::string_view intern(std::string text);
  Value returnedFunction(std::string_view callee);
  void resolve(std::size_t proto);
  void summarizeReturns(std::size_t proto);

  const bytecode::Chunk& chunk_;
  const RecorderProfile& profile_;
  std::vector<ProtoValues> protos_;
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string_view, Value> libraryCache_;
};

}  // namespace ljcheck::flow
