// Whether an instruction runs on every pass through the code around it:
// its innermost loop's body (every turn), or its function's body (every
// call). A root trace records the path its first pass takes; when a branch
// can go around a blocker, a trace that records the other path compiles,
// and the blocker then aborts only side traces, which never blacklist.
#pragma once

#include <functional>
#include <vector>

#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

// Where a function's control leaves straight-line order: a jump or a
// test's skip (to > 0), or a return or tail call (to == 0).
struct Branch {
  int from = 0, to = 0;
  int line = 0;  // of the instruction at `from`
  // The route it opens aborts on every path, so no trace of it compiles:
  // the instruction itself is one the recorder refuses, or every path from
  // its target reaches one before a return, a tail call or a jump back (the
  // UCLO of an early return in a function that creates closures; a closure
  // right after a skipped block; a test whose two ways each do one).
  bool aborts = false;
};
// `refused`: by Op, the bytecodes the recorder refuses (the profile's
// nyiBytecodes: FNEW, UCLO); empty for none. `splitsAt`, when given: whether
// the call at a pc surely ends or stitches the trace (a builtin the recorder
// does not compile): a path through it ends the root trace there, compiled,
// and does not abort it (audit 106: wsapi's url_decode, `string.gsub`
// before the closure on the way around an early return's UCLO).
std::vector<Branch> branchesOf(const bytecode::Prototype& proto, const std::vector<bool>& refused = {},
                               const std::function<bool(int)>& splitsAt = {});

// The routes in [first, pc) that reach (pc, last] without running pc, or,
// over a whole function body, a return before pc (an early return is such
// a route too). `compiles`: the first whose trace can compile, null when
// every pass runs pc or aborts; `aborts`: the first that runs into a
// refused instruction (Branch::aborts) before it, null when none does.
// A jump back to the loop's head (`first`) ends a pass without pc and
// counts. Branches that leave the region (break, a loop's exit) end the pass
// instead and do not count. `branches`: branchesOf the function, in pc order.
struct Routes {
  const Branch* compiles = nullptr;
  const Branch* aborts = nullptr;
};
Routes routesAround(const std::vector<Branch>& branches, int pc, int first, int last, bool wholeFunction);

// Whether any route goes around pc (routesAround's `compiles` or `aborts`),
// for many pcs in ascending order: one sweep over the branches instead of
// one per pc, so a loop body with thousands of calls stays linear.
class RouteSweep {
 public:
  RouteSweep(const std::vector<Branch>& branches, int first, int last, bool wholeFunction);
  bool around(int pc);  // pc at least the last one asked about

 private:
  const std::vector<Branch>& branches_;
  std::vector<Branch>::const_iterator next_;
  int first_, last_;
  bool wholeFunction_;
  bool returnOrHead_ = false;  // a return (whole function) or a jump back to the loop's head seen
  int farthest_ = 0;           // the farthest target seen within [.., last]
};

// A branch in [first, last) that leaves the loop those pcs make up before
// its own exit: a break or goto past its end, a return or tail call; null
// when there is none. (A while loop's condition leaves it this way too.)
const Branch* earlyExit(const std::vector<Branch>& branches, int first, int last);

}  // namespace ljcheck::flow
