// Finds loops from their back edges (see loops.h).
#include "flow/loops.h"

#include <algorithm>
#include <cmath>

#include "flow/instruction_effects.h"

namespace ljcheck::flow {

using bytecode::Op;

int jumpAround(const bytecode::Prototype& proto, int first, int last, int upTo) {
  for (int q = 1; q < first && q <= proto.size(); ++q) {
    const auto& ins = proto.at(q);
    if (ins.op != bytecode::Op::JMP && ins.op != bytecode::Op::UCLO) continue;
    const int target = ins.jumpTarget(q);
    if (target > last && target <= upTo) return ins.line;
  }
  return 0;
}

std::vector<bool> reachablePcs(const bytecode::Prototype& proto, int start) {
  std::vector<bool> reached(static_cast<std::size_t>(proto.size()) + 2, false);
  std::vector<int> work{start};
  while (!work.empty()) {
    int pc = work.back();
    work.pop_back();
    if (pc < 1 || pc > proto.size() || reached[static_cast<std::size_t>(pc)]) continue;
    reached[static_cast<std::size_t>(pc)] = true;
    Flow flow = flowOf(proto.at(pc), pc);
    if (flow.fallsThrough) work.push_back(pc + 1);
    if (flow.jump > 0) work.push_back(flow.jump);
    if (flow.skip > 0) work.push_back(flow.skip);
  }
  return reached;
}

std::vector<bool> pcsReaching(const bytecode::Prototype& proto, int target) {
  const int n = proto.size();
  std::vector<std::vector<int>> from(static_cast<std::size_t>(n) + 2);  // each pc's predecessors
  for (int pc = 1; pc <= n; ++pc) {
    const Flow flow = flowOf(proto.at(pc), pc);
    for (int next : {flow.fallsThrough ? pc + 1 : 0, flow.jump, flow.skip})
      if (next > 0 && next <= n) from[static_cast<std::size_t>(next)].push_back(pc);
  }
  std::vector<bool> reaching(static_cast<std::size_t>(n) + 2, false);
  std::vector<int> work{target};
  while (!work.empty()) {
    const int pc = work.back();
    work.pop_back();
    if (pc < 1 || pc > n || reaching[static_cast<std::size_t>(pc)]) continue;
    reaching[static_cast<std::size_t>(pc)] = true;
    for (int q : from[static_cast<std::size_t>(pc)]) work.push_back(q);
  }
  return reaching;
}

long numericForTurns(long start, long stop, long step) {
  long span = stop - start;
  if ((step > 0) != (span >= 0)) return span == 0 ? 1 : 0;
  return span / step + 1;
}

long fractionalForTurns(double start, double stop, double step) {
  if (!(step > 0 || step < 0) || std::isnan(start) || std::isnan(stop)) return -1;
  constexpr long kMost = 2147483647;
  const double estimate = std::floor((stop - start) / step) + 1;
  if (!(estimate > 0)) return 0;
  if (estimate > 1e6) return estimate >= kMost ? kMost : static_cast<long>(estimate);
  // Counted as the VM turns, so that rounding (0.1 ten times is not 1)
  // cannot put the count one off.
  long turns = 0;
  for (double i = start; step > 0 ? i <= stop : i >= stop; i += step) ++turns;
  return turns;
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
      case Op::JMP:
      case Op::UCLO: {  // a body whose locals a closure captured ends in UCLO, which jumps back itself
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
  // A loop no live back edge closes runs at most once: every path through
  // its body returns or breaks first (`while true do return f end end`; the
  // parser still emits the JMP back). One live back edge to the same head
  // keeps the others: after `if c then return x end` at the end of a while
  // body, the test jumps back itself and the JMP below the return is dead,
  // yet it still bounds the body. Only a back edge after a return or a jump
  // can be dead (nearly every one follows an instruction that falls
  // through), so the walk over the function runs only when there is one.
  bool maybeDead = std::any_of(loops_.begin(), loops_.end(), [&](const Loop& l) {
    return l.last > 1 && !flowOf(proto.at(l.last - 1), l.last - 1).fallsThrough;
  });
  std::vector<Loop> dead;
  if (maybeDead) {
    // A head is the loop's own: `while true do ... break end` as the first
    // statement of a for body shares the for loop's head pc, and the for
    // loop's live FORL keeps no back edge of the while loop alive.
    const std::vector<bool> reached = reachablePcs(proto);
    std::vector<std::pair<int, Loop::Kind>> liveHeads;
    for (const Loop& l : loops_)
      if (reached[static_cast<std::size_t>(l.last)]) liveHeads.emplace_back(l.first, l.kind);
    auto live = [&](const Loop& l) {
      return std::find(liveHeads.begin(), liveHeads.end(), std::make_pair(l.first, l.kind)) != liveHeads.end();
    };
    for (const Loop& l : loops_)
      if (!live(l)) dead.push_back(l);
    loops_.erase(std::remove_if(loops_.begin(), loops_.end(), [&](const Loop& l) { return !live(l); }), loops_.end());
  }
  // repeat ... until cond: LOOP at the top, the back edge is a conditional
  // jump (ISxx + JMP) found above; a LOOP whose range no back edge covers
  // still marks a loop up to its exit (one whose back edges are all dead
  // does not).
  std::vector<int> loopOps;
  for (int pc = 1; pc <= proto.size(); ++pc) {
    const auto& ins = proto.at(pc);
    if (ins.op != Op::LOOP && ins.op != Op::ILOOP && ins.op != Op::JLOOP) continue;
    loopOps.push_back(pc);
    auto covers = [pc](const Loop& l) { return l.contains(pc); };
    bool covered = std::any_of(loops_.begin(), loops_.end(), covers) || std::any_of(dead.begin(), dead.end(), covers);
    int exit = ins.jumpTarget(pc);
    if (!covered && exit > pc + 1) loops_.push_back({Loop::Kind::While, pc, exit - 1});
  }
  std::sort(loops_.begin(), loops_.end(), [](const Loop& a, const Loop& b) {
    return a.first != b.first ? a.first < b.first : a.last > b.last;
  });
  for (int pc : loopOps) {
    int exit = proto.at(pc).jumpTarget(pc);
    if (exit <= pc + 1 || exit > proto.size()) continue;
    auto closes = [&](const Loop& l) {
      if (l.first > pc || l.last != exit - 1) return false;
      Flow back = flowOf(proto.at(l.last), l.last);
      return (back.jump > 0 && back.jump <= pc) || (back.skip > 0 && back.skip <= pc);
    };
    if (std::none_of(loops_.begin(), loops_.end(), closes)) once_.emplace_back(pc, exit);
  }
}

const Loop* LoopMap::innermost(int pc) const {
  const Loop* best = nullptr;
  for (const auto& l : loops_)
    if (l.contains(pc) && (!best || l.last - l.first < best->last - best->first)) best = &l;
  return best;
}

}  // namespace ljcheck::flow
