// The opcode table of the default recorder profile, built once: what the
// unit tests that read dumps of the embedded parser decode them with.
#pragma once

#include "ljcheck/bytecode.h"
#include "ljcheck/profile.h"

namespace ljcheck::testing {

inline const bytecode::OpcodeTable& profileOpcodes() {
  static const bytecode::OpcodeTable table(defaultProfile().bytecodeNames());
  return table;
}

}  // namespace ljcheck::testing
