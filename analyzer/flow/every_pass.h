// Whether an instruction runs on every pass through the code around it:
// its innermost loop's body (every turn), or its function's body (every
// call). A root trace records the path its first pass takes; when a branch
// can go around a blocker, a trace that records the other path compiles,
// and the blocker then aborts only side traces, which never blacklist.
#pragma once

#include <vector>

#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

// Where a function's control leaves straight-line order: a jump or a
// test's skip (to > 0), or a return or tail call (to == 0).
struct Branch {
  int from = 0, to = 0;
  int line = 0;  // of the instruction at `from`
};
std::vector<Branch> branchesOf(const bytecode::Prototype& proto);

// The branch in [first, pc) that can reach (pc, last] without running pc,
// or, over a whole function body, a return before pc (an early return is
// such a path too); null when every pass runs pc. Branches that leave the
// region (break, a loop's exit) end the pass instead and do not count.
// `branches`: branchesOf the function, in pc order.
const Branch* branchAround(const std::vector<Branch>& branches, int pc, int first, int last, bool wholeFunction);

// A branch in [first, last) that leaves the loop those pcs make up before
// its own exit: a break or goto past its end, a return or tail call; null
// when there is none. (A while loop's condition leaves it this way too.)
const Branch* earlyExit(const std::vector<Branch>& branches, int first, int last);

}  // namespace ljcheck::flow
