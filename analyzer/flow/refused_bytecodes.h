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

inline bool refuses(const RecorderProfile& profile, bytecode::Op op) {
  const std::vector<bool>& refused = refusedBytecodes(profile);
  auto i = static_cast<std::size_t>(op);
  return i < refused.size() && refused[i];
}

}  // namespace ljcheck::flow
