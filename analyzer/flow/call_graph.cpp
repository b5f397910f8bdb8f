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
    : heat_(chunk.prototypes.size(), Heat::Cold),
      callers_(chunk.prototypes.size()),
      loopRanges_(chunk.prototypes.size()) {
  std::vector<bool> escapes = values.escapingFunctions();
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
  // A function is as hot as its hottest call site; iterate to a fixpoint.
  for (std::size_t p = 0; p < escapes.size(); ++p)
    if (escapes[p]) heat_[p] = Heat::Possible;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t p = 0; p < callers_.size(); ++p) {
      for (const auto& site : callers_[p]) {
        Heat h = heatAt(site.proto, site.pc);
        if (h > heat_[p]) {
          heat_[p] = h;
          changed = true;
        }
      }
    }
  }
}

Heat CallGraph::heatAt(std::size_t proto, int pc) const {
  return inLoop(proto, pc) ? Heat::Known : heat_.at(proto);
}

bool CallGraph::runsHot(std::size_t proto, int pc) const { return heatAt(proto, pc) != Heat::Cold; }

bool CallGraph::inLoop(std::size_t proto, int pc) const {
  for (const auto& [first, last] : loopRanges_.at(proto))
    if (pc >= first && pc <= last) return true;
  return false;
}

}  // namespace ljcheck::flow
