// Finds loops from their back edges (see loops.h).
#include "flow/loops.h"

#include <algorithm>

namespace ljcheck::flow {

using bytecode::Op;

long numericForTurns(long start, long stop, long step) {
  long span = stop - start;
  if ((step > 0) != (span >= 0)) return span == 0 ? 1 : 0;
  return span / step + 1;
}

LoopMap::LoopMap(const bytecode::Prototype& proto) {
  for (int pc = 1; pc <= proto.size(); ++pc) {
    const auto& ins = proto.at(pc);
    switch (ins.op) {
      case Op::FORL:
      case Op::IFORL:
      case Op::JFORL:
        loops_.push_back({Loop::Kind::NumericFor, ins.jumpTarget(pc), pc});
        break;
      case Op::ITERL:
      case Op::IITERL:
      case Op::JITERL:
        loops_.push_back({Loop::Kind::GenericFor, ins.jumpTarget(pc), pc});
        break;
      case Op::JMP: {
        int target = ins.jumpTarget(pc);
        if (target > pc) break;
        // A backward JMP closes a while/repeat loop when its range holds a LOOP.
        for (int p = target; p < pc; ++p) {
          Op op = proto.at(p).op;
          if (op == Op::LOOP || op == Op::ILOOP || op == Op::JLOOP) {
            loops_.push_back({Loop::Kind::While, target, pc});
            break;
          }
        }
        break;
      }
      default:
        break;
    }
  }
  // repeat ... until cond: LOOP at the top, the back edge is a conditional
  // jump (ISxx + JMP) found above; a LOOP whose range no back edge covers
  // still marks a loop up to its exit.
  for (int pc = 1; pc <= proto.size(); ++pc) {
    const auto& ins = proto.at(pc);
    if (ins.op != Op::LOOP && ins.op != Op::ILOOP && ins.op != Op::JLOOP) continue;
    bool covered = std::any_of(loops_.begin(), loops_.end(),
                               [pc](const Loop& l) { return l.contains(pc); });
    int exit = ins.jumpTarget(pc);
    if (!covered && exit > pc + 1) loops_.push_back({Loop::Kind::While, pc, exit - 1});
  }
  std::sort(loops_.begin(), loops_.end(), [](const Loop& a, const Loop& b) {
    return a.first != b.first ? a.first < b.first : a.last > b.last;
  });
}

const Loop* LoopMap::innermost(int pc) const {
  const Loop* best = nullptr;
  for (const auto& l : loops_)
    if (l.contains(pc) && (!best || l.last - l.first < best->last - best->first)) best = &l;
  return best;
}

}  // namespace ljcheck::flow
