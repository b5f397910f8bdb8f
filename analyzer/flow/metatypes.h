// ctypes with a `__new` metamethod: ffi.metatype(ct, mt) where mt is a table
// of this file whose `__new` field is a Lua function. Calling such a ctype
// does not allocate: the recorder tail-calls the metamethod instead
// (lj_crecord.c recff_cdata_call -> crec_tailcall), so what the metamethod
// does is recorded as if the caller had done it. A metatype is set once per
// ctype for the life of the process, so the declaration's spelling names it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "flow/values.h"
#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

// What a `__new` metamethod does in tail position that the recorder refuses.
// A tail call leaves no Lua frame of its own, so the abort lands on the line
// that called the ctype (verified with luajit -jv on both 2.1 builds).
enum class NewInitializer {
  None,      // nothing the analyzer knows to abort
  Table,     // return ffi.new(ct, {...}): a table as the only initializer (BADTYPE)
  Argument,  // return ffi.new(ct, x) with x the constructor's first argument: BADTYPE when x is a table
};

struct CtypeConstructor {
  std::string spelling;           // the declaration, "struct timespec"
  std::size_t newProto = 0;       // the `__new` function
  int metatypeLine = 0;           // the ffi.metatype call
  NewInitializer initializer = NewInitializer::None;
  int initializerLine = 0;        // the ffi.new call inside `__new`
  std::string definedIn;          // the file that sets the metatype, when another one
  // Registered through a helper (ctype_registrars.h): the key it is stored
  // under in a table of this file from a constructor, that table, and a
  // clause saying which call registered it and where the helper stores it.
  std::string registeredKey;
  std::uint32_t registeredProto = Value::kNoProto;
  int registeredPc = 0;
  std::string registeredBy;
};

// The constructors one file can call: its own (by spelling), and those the
// module tables of other project files export (by "module:member", the name
// of the file's ModuleMember value for require("module").member).
struct CtypeConstructors {
  std::vector<CtypeConstructor> own;
  std::map<std::string, CtypeConstructor> imported;
};

// Every ffi.metatype with a `__new` function in one chunk.
std::vector<CtypeConstructor> findCtypeConstructors(const bytecode::Chunk& chunk, const ValueMap& values);

// What `__new` hands to ffi.new in a tail call: fills c.initializer and
// c.initializerLine from the function c.newProto.
void summarizeNew(const bytecode::Chunk& chunk, const ValueMap& values, CtypeConstructor& c);

// The constructor for a ctype spelling, or null.
const CtypeConstructor* findConstructor(const std::vector<CtypeConstructor>& constructors, std::string_view spelling);

// When the slot read at pc holds the first parameter of a `__new` function
// of `constructors` (copied there just before, and never assigned in the
// function): the ctype being constructed, which that parameter always is.
const CtypeConstructor* constructedType(const bytecode::Chunk& chunk, const std::vector<CtypeConstructor>& constructors,
                                        std::size_t proto, int pc, int slot);

// The members of the chunk's module table (`return M`) that hold such a
// ctype (M.point = ffi.metatype(...)), by member name: what other files
// reach with require(...).member.
std::map<std::string, CtypeConstructor> exportedConstructors(const bytecode::Chunk& chunk, const ValueMap& values,
                                                             const std::vector<CtypeConstructor>& own);

}  // namespace ljcheck::flow
