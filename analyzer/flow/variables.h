// Local variables by slot, from a prototype's debug info.
#pragma once

#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

// The debug-info variable that occupies `slot` at `pc` (null when none, or
// when the dump was stripped): active locals take consecutive slots in
// declaration order.
const bytecode::VarInfo* variableAt(const bytecode::Prototype& p, int pc, int slot);

}  // namespace ljcheck::flow
