// Resolves forward-declared local functions (see local_functions.h).
#include "flow/local_functions.h"
#include "flow/variables.h"

#include "flow/instruction_effects.h"

namespace ljcheck::flow {

using bytecode::Op;

std::size_t forwardDeclaredFunction(const bytecode::Chunk& chunk, std::size_t parent, int pc, int slot) {
  const auto& p = chunk.prototypes[parent];
  const bytecode::VarInfo* var = variableAt(p, pc, slot);
  if (!var) return SIZE_MAX;
  std::size_t function = SIZE_MAX;
  int first = var->startpc > 1 ? var->startpc - 1 : 1;  // the declaring instruction
  for (int q = first; q < var->endpc && q <= p.size(); ++q) {
    const auto& ins = p.at(q);
    Writes w = writesOf(ins);
    if (slot < w.first || slot > w.last) continue;
    bool nil = (ins.op == Op::KPRI && ins.d == 0) || ins.op == Op::KNIL;
    if (nil) continue;
    bool closure = ins.op == Op::FNEW && ins.a == slot && ins.d < p.gc.size() &&
                   p.gc[ins.d].kind == bytecode::GcConstant::Kind::Child;
    if (!closure || function != SIZE_MAX) return SIZE_MAX;
    function = p.gc[ins.d].child;
  }
  return function;
}

}  // namespace ljcheck::flow
