// Lua 5.1's `module("name", ...)`: from the call on, the chunk's globals are
// the fields of the module table, which the chunk also reaches as `_M`
// (`local M = _M`, then `function M.f() ... end`). A function stored there
// is what a global read of its name gets, as with `function f() ... end`.
#pragma once

#include <cstddef>
#include <map>
#include <string_view>

#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

// The pc just after the main function's call of the global `module`; 0
// when the chunk does not call it. From there on, a global the chunk (or a
// closure it creates) assigns is a field of the module table.
int afterModuleCall(const bytecode::Prototype& main);

// Adds the stores into the module table of a chunk that calls `module`:
// one count per store by name to `stores`, and to `closures` the
// prototype each `M.name = function` store creates. Nothing for a chunk
// that does not call `module` in its main function.
// `start`: afterModuleCall of the chunk's main function.
void addModuleTableStores(const bytecode::Chunk& chunk, int start, std::map<std::string_view, int>& stores,
                          std::map<std::string_view, std::size_t>& closures);

}  // namespace ljcheck::flow
