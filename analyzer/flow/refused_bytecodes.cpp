#include "flow/refused_bytecodes.h"

#include <string>

namespace ljcheck::flow {

using bytecode::Op;

const std::vector<bool>& refusedBytecodes(const RecorderProfile& profile) {
  thread_local const RecorderProfile* of = nullptr;
  thread_local std::string ofId;
  thread_local std::vector<bool> refused;
  if (of != &profile || ofId != profile.id) {
    refused.assign(static_cast<std::size_t>(Op::Unknown), false);
    for (std::size_t op = 0; op < refused.size(); ++op)
      refused[op] = profile.nyiBytecodes.count(std::string(bytecode::opName(static_cast<Op>(op)))) > 0;
    of = &profile;
    ofId = profile.id;
  }
  return refused;
}

}  // namespace ljcheck::flow
