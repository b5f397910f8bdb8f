// Branches around an instruction (see every_pass.h).
#include "flow/every_pass.h"

#include <algorithm>

#include "flow/instruction_effects.h"

namespace ljcheck::flow {

namespace {

// The first branch from `first` on (branches are in pc order).
std::vector<Branch>::const_iterator firstFrom(const std::vector<Branch>& branches, int first) {
  return std::lower_bound(branches.begin(), branches.end(), first,
                          [](const Branch& b, int at) { return b.from < at; });
}

bool isRefused(const std::vector<bool>& refused, bytecode::Op op) {
  auto k = static_cast<std::size_t>(op);
  return k < refused.size() && refused[k];
}

// By pc: every path from it reaches a refused instruction before a return,
// a tail call or a jump back (a loop, whose own trace may compile). Paths
// that only go forward make a DAG, so one sweep from the end settles it
// (audit 94: `if count > rate then return false end` in a function that
// creates closures, then the closure: both ways abort).
std::vector<char> abortingPaths(const bytecode::Prototype& proto, const std::vector<bool>& refused,
                                const std::vector<Flow>& flows, const std::function<bool(int)>& splitsAt) {
  const int n = proto.size();
  std::vector<char> aborts(static_cast<std::size_t>(n) + 2, 0);
  for (int pc = n; pc >= 1; --pc) {
    if (isRefused(refused, proto.at(pc).op)) {
      aborts[static_cast<std::size_t>(pc)] = 1;
      continue;
    }
    if (splitsAt && isCall(proto.at(pc).op) && splitsAt(pc)) continue;  // the root trace ends here, compiled
    const Flow& f = flows[static_cast<std::size_t>(pc)];
    bool all = f.fallsThrough || f.jump != 0;  // a return or tail call ends the trace's path here
    for (int next : {f.fallsThrough ? pc + 1 : 0, f.jump, f.skip})
      if (next != 0) all = all && next > pc && next <= n && aborts[static_cast<std::size_t>(next)];
    aborts[static_cast<std::size_t>(pc)] = all ? 1 : 0;
  }
  return aborts;
}

}  // namespace

std::vector<Branch> branchesOf(const bytecode::Prototype& proto, const std::vector<bool>& refused,
                               const std::function<bool(int)>& splitsAt) {
  std::vector<Branch> out;
  const int n = proto.size();
  out.reserve(static_cast<std::size_t>(n) / 4 + 1);  // about one instruction in five branches
  // Most functions hold no refused instruction: no route of theirs aborts,
  // and the code after each branch need not be followed.
  bool anyRefused = false;
  for (int pc = 1; pc <= n && !anyRefused; ++pc) anyRefused = isRefused(refused, proto.at(pc).op);
  if (!anyRefused) {
    for (int pc = 1; pc <= n; ++pc) {
      const auto& ins = proto.at(pc);
      const Flow f = flowOf(ins, pc);
      if (!f.fallsThrough && f.jump == 0) out.push_back({pc, 0, ins.line, false});
      for (int target : {f.jump, f.skip})
        if (target != 0) out.push_back({pc, target, ins.line, false});
    }
    return out;
  }
  std::vector<Flow> flows(static_cast<std::size_t>(n) + 1);
  for (int pc = 1; pc <= n; ++pc) flows[static_cast<std::size_t>(pc)] = flowOf(proto.at(pc), pc);
  const std::vector<char> aborting = abortingPaths(proto, refused, flows, splitsAt);
  // The pcs a jump or a test's skip lands on from elsewhere than the
  // instruction before (UCLO names the next pc as its target): a return
  // there is reached without that instruction.
  std::vector<char> landed(static_cast<std::size_t>(n) + 2, 0);
  for (int pc = 1; pc <= n; ++pc)
    for (int target : {flows[static_cast<std::size_t>(pc)].jump, flows[static_cast<std::size_t>(pc)].skip})
      if (target > 0 && target <= n && target != pc + 1) landed[static_cast<std::size_t>(target)] = 1;
  for (int pc = 1; pc <= n; ++pc) {
    const auto& ins = proto.at(pc);
    const Flow& f = flows[static_cast<std::size_t>(pc)];
    const bool refusedHere = isRefused(refused, ins.op);
    // A return right after a refused instruction that every way to it runs
    // (the UCLO LuaJIT's parser puts before each return of a function that
    // creates closures, or the closure `return function ... end` makes).
    const bool refusedBefore =
        pc > 1 && !landed[static_cast<std::size_t>(pc)] && isRefused(refused, proto.at(pc - 1).op);
    if (!f.fallsThrough && f.jump == 0) out.push_back({pc, 0, ins.line, refusedHere || refusedBefore});
    for (int target : {f.jump, f.skip})
      if (target != 0)
        out.push_back({pc, target, ins.line,
                       refusedHere || (target > 0 && target <= n && aborting[static_cast<std::size_t>(target)])});
  }
  return out;
}

Routes routesAround(const std::vector<Branch>& branches, int pc, int first, int last, bool wholeFunction) {
  Routes routes;
  auto it = firstFrom(branches, first);
  for (; it != branches.end() && it->from < pc; ++it) {
    // A jump back to the loop's head from before pc ends the pass without
    // it (LuaJIT's parser sends a while loop's trailing `if` straight to
    // the condition, not through the back edge).
    const bool aroundToEnd = it->to > pc && it->to <= last;
    const bool backToHead = !wholeFunction && it->to > 0 && it->to <= first;
    if (!(it->to == 0 ? wholeFunction : aroundToEnd || backToHead)) continue;
    if (!it->aborts) {
      routes.compiles = &*it;
      return routes;
    }
    if (!routes.aborts) routes.aborts = &*it;
  }
  return routes;
}

RouteSweep::RouteSweep(const std::vector<Branch>& branches, int first, int last, bool wholeFunction)
    : branches_(branches), next_(firstFrom(branches, first)), first_(first), last_(last), wholeFunction_(wholeFunction) {}

bool RouteSweep::around(int pc) {
  // The branches from before pc, as routesAround takes them: a return over
  // a whole function, a jump back to the loop's head, or a target past pc
  // within the region.
  for (; next_ != branches_.end() && next_->from < pc; ++next_) {
    if (next_->to == 0) returnOrHead_ = returnOrHead_ || wholeFunction_;
    else if (!wholeFunction_ && next_->to <= first_) returnOrHead_ = true;
    if (next_->to <= last_) farthest_ = std::max(farthest_, next_->to);
  }
  return returnOrHead_ || farthest_ > pc;
}

const Branch* earlyExit(const std::vector<Branch>& branches, int first, int last) {
  auto it = firstFrom(branches, first);
  for (; it != branches.end() && it->from < last; ++it)
    if (it->to == 0 || it->to > last || it->to < first) return &*it;
  return nullptr;
}

}  // namespace ljcheck::flow
