// How a loop can stop short of its count, or never compile (see loop_exits.h).
#include "flow/loop_exits.h"

#include <algorithm>

#include "flow/instruction_effects.h"

namespace ljcheck::flow {

bool returnsInside(const bytecode::Prototype& proto, const std::vector<Branch>& branches, int first, int last) {
  for (const Branch& b : branches) {
    if (b.from < first || b.from > last) continue;
    if (b.to == 0) return true;
    if (b.to > last && b.to <= proto.size() && (isReturn(proto.at(b.to).op) || isTailCall(proto.at(b.to).op)))
      return true;
  }
  return false;
}

bool blockedOnEveryPass(const std::vector<Branch>& branches, const std::vector<int>& refused, int first, int last) {
  for (auto it = std::lower_bound(refused.begin(), refused.end(), first); it != refused.end() && *it <= last; ++it)
    if (!routesAround(branches, *it, first, last, false).compiles) return true;
  return false;
}

std::vector<int> refusedPcs(const bytecode::Prototype& proto, const std::vector<bool>& refused) {
  std::vector<int> out;
  for (int pc = 1; pc <= proto.size(); ++pc) {
    const auto op = static_cast<std::size_t>(proto.at(pc).op);
    if (op < refused.size() && refused[op]) out.push_back(pc);
  }
  return out;
}

bool stopsGeneratorEarly(const bytecode::Chunk& chunk, const ValueMap& values, const std::vector<LoopMap>& loops,
                         const std::vector<std::vector<Branch>>& branches) {
  for (std::size_t q = 0; q < chunk.prototypes.size(); ++q)
    for (const Loop& loop : loops[q].loops()) {
      if (loop.kind != Loop::Kind::GenericFor || loop.last < 2) continue;
      const auto& iterator = chunk.prototypes[q].at(loop.last - 1);
      const Value callee = values.at(q, loop.last - 1, calleeSlot(iterator));
      if (callee.is(Value::Kind::LibFunction) && callee.name == "coroutine.wrap_aux" &&
          earlyExit(branches[q], loop.first, loop.last))
        return true;
    }
  return false;
}

int yieldLine(const bytecode::Prototype& proto, const ValueMap& values, std::size_t index, int first, int last) {
  for (int pc = first; pc <= last; ++pc) {
    const auto& ins = proto.at(pc);
    if (ins.op != bytecode::Op::CALL && ins.op != bytecode::Op::CALLM) continue;
    const Value callee = values.at(index, pc, calleeSlot(ins));
    if (callee.is(Value::Kind::LibFunction) && callee.name == "coroutine.yield") return ins.line;
  }
  return 0;
}

}  // namespace ljcheck::flow
