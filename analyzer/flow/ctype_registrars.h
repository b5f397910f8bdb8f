// ctypes registered by name through a helper function: a function that
// stores ffi.metatype(ct, mt) of two of its parameters under a third, its
// key, in a table a fourth reaches (ljsyscall's syscall/helpers.lua:
// `types.t[name] = ffi.metatype(tp, mt)` in h.addtype(types, name, tp, mt)).
// Called with a table of the caller's file, a literal name, a literal ctype
// and a metatable whose `__new` is a function of that file, it makes
// `types.t.<name>` that ctype: a call of it runs `__new` (metatypes.h).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "flow/metatypes.h"
#include "flow/values.h"
#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

// What a registering function does with its parameters (0-based).
struct CtypeRegistrar {
  std::size_t proto = 0;  // the function, in the file that defines it
  int tableParam = 0;     // the table, or the table holding it under `field`
  std::string field;      // `types.t[name]`: "t"; empty when the store is into the parameter itself
  int keyParam = 0;
  int ctypeParam = 0;
  int metatableParam = 0;
  int storeLine = 0;      // the line of the store
  std::string definedIn;  // the file that defines it, when another one
};

// Every function of a chunk that stores ffi.metatype(param, param) under
// param[...] (or param.field[param]), with the key and the metatable
// parameters never assigned in the function.
std::vector<CtypeRegistrar> findCtypeRegistrars(const bytecode::Chunk& chunk, const ValueMap& values);

// The registering functions the chunk's module table exports, by member
// name: what other files reach with require(...).member.
std::map<std::string, CtypeRegistrar> exportedRegistrars(const ValueMap& values,
                                                        const std::vector<CtypeRegistrar>& own);

// The ctypes with a `__new` metamethod the chunk registers by calling one
// of `own` or of `imported` (by "module:member") with a table of its own,
// a constant name, a constant ctype and a metatable of its own whose
// `__new` is a Lua function of the chunk.
std::vector<CtypeConstructor> registeredConstructors(const bytecode::Chunk& chunk, const ValueMap& values,
                                                     const std::vector<CtypeRegistrar>& own,
                                                     const std::map<std::string, CtypeRegistrar>& imported);

// The registered constructor a call at pc calls when its callee (in
// `slot`) is read by name from the table it was registered in: `t.point`
// after addtype(types, "point", ct, mt) with t being types.t. Null otherwise.
const CtypeConstructor* registeredConstructorCalled(const ValueMap& values,
                                                    const std::vector<CtypeConstructor>& constructors,
                                                    std::size_t proto, int pc, int slot);

}  // namespace ljcheck::flow
