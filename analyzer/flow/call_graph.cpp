// Hot prototypes from resolved calls (see call_graph.h).
#include "flow/call_graph.h"

#include "flow/loops.h"

namespace ljcheck::flow {

using bytecode::Op;

bool isCallInstruction(Op op) {
  switch (op) {
    case Op::CALL: case Op::CALLM: case Op::CALLT: case Op::CALLMT: case Op::ITERC:
      return true;
    default:
      return false;
  }
}

int calleeSlot(const bytecode::Instruction& ins) {
  return ins.op == Op::ITERC || ins.op == Op::ITERN ? ins.a - 3 : ins.a;
}

CallGraph::CallGraph(const bytecode::Chunk& chunk, const ValueMap& values)
    : hot_(chunk.prototypes.size(), false),
      callers_(chunk.prototypes.size()),
      loopRanges_(chunk.prototypes.size()) {
  for (std::size_t q = 0; q < chunk.prototypes.size(); ++q) {
    const auto& proto = chunk.prototypes[q];
    LoopMap loops(proto);
    for (const auto& loop : loops.loops()) loopRanges_[q].push_back({loop.first, loop.last});
    for (int pc = 1; pc <= proto.size(); ++pc) {
      const auto& ins = proto.at(pc);
      if (!isCallInstruction(ins.op)) continue;
      Value callee = values.at(q, pc, calleeSlot(ins));
      if (callee.kind == Value::Kind::LuaFunction && callee.proto < chunk.prototypes.size())
        callers_[callee.proto].push_back({q, pc});
    }
  }
  // A function is hot when one of its calls runs hot; iterate to a fixpoint.
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t p = 0; p < callers_.size(); ++p) {
      if (hot_[p]) continue;
      for (const auto& site : callers_[p]) {
        if (runsHot(site.proto, site.pc)) {
          hot_[p] = changed = true;
          break;
        }
      }
    }
  }
}

bool CallGraph::runsHot(std::size_t proto, int pc) const { return hot_.at(proto) || inLoop(proto, pc); }

bool CallGraph::inLoop(std::size_t proto, int pc) const {
  for (const auto& [first, last] : loopRanges_.at(proto))
    if (pc >= first && pc <= last) return true;
  return false;
}

}  // namespace ljcheck::flow
