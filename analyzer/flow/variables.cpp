// Local variables by slot (see variables.h).
#include "flow/variables.h"

namespace ljcheck::flow {

const bytecode::VarInfo* variableAt(const bytecode::Prototype& p, int pc, int slot) {
  int index = 0;
  for (const auto& v : p.vars) {
    if (v.startpc > pc || v.endpc <= pc) continue;
    if (index == slot) return &v;
    ++index;
  }
  return nullptr;
}

}  // namespace ljcheck::flow
