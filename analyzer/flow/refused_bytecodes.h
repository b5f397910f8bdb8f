// Which bytecodes a recorder profile refuses (its nyiBytecodes: FNEW and UCLO
// in every 2.1 build), by Op: the rules ask at every closure and upvalue
// close, and the call graph at every instruction it walks.
#pragma once

#include <vector>

#include "ljcheck/bytecode.h"
#include "ljcheck/profile.h"

namespace ljcheck::flow {

// Indexed by Op; built once per thread and profile.
const std::vector<bool>& refusedBytecodes(const RecorderProfile& profile);

// `refused`: refusedBytecodes(profile), looked up once before a walk over
// every instruction.
inline bool refuses(const std::vector<bool>& refused, bytecode::Op op) {
  auto i = static_cast<std::size_t>(op);
  return i < refused.size() && refused[i];
}

inline bool refuses(const RecorderProfile& profile, bytecode::Op op) { return refuses(refusedBytecodes(profile), op); }

}  // namespace ljcheck::flow
