// Forward-declared local functions: `local encode` ... `encode = function ...`,
// the idiom for mutual recursion. The closures that call it see a mutable
// upvalue; when the declaring function assigns the local nothing but nil and
// exactly one function, and no closure assigns it, every call that runs
// after the assignment reaches that function.
#pragma once

#include <cstddef>

#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

// The prototype the local in `slot` of prototype `parent` (live at `pc`)
// ends up holding, when `parent` assigns it only nil and one function;
// SIZE_MAX otherwise. Whether a closure assigns it is the caller's check.
std::size_t forwardDeclaredFunction(const bytecode::Chunk& chunk, std::size_t parent, int pc, int slot);

}  // namespace ljcheck::flow
