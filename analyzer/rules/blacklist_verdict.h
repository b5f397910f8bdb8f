// Whether a blocker that runs hot blacklists its trace start: an `error`,
// or a warning whose reasoning says what keeps it from that (a branch around
// it, an inner loop first, a split before it, too few runs).
#pragma once

#include <cstddef>
#include <string>

#include "flow/call_graph.h"
#include "rules/rule.h"

namespace ljcheck::rules {

struct BlacklistVerdict {
  bool blacklists = false;  // an error: the start is blacklisted
  std::string clause;       // appended to the reasoning: "; at 50000 runs or more, ..."
  // Whether passes run it at all depends on the data (a branch can go
  // around it): the loop's heat is no evidence that it runs hot, so it is
  // `likely` at most.
  bool dependsOnData = false;
  // No trace records it: every call of its function is in a loop whose
  // trace aborts first ahead of the call, and the function's own entry is
  // never hot-counted (it takes varargs). A latent abort, behind the first:
  // `likely` at most.
  bool unreached = false;
  // A function its blacklisted loop's interpreted calls blacklist too
  // (interpreted_calls.h): its entry line, 0 for none, and its name.
  int entryLine = 0;
  std::string entryFunction;
};

// For a finding in prototype `proto` (a blocker whose heat is known) whose
// trace runs at heatPc of heatProto. `unknownAround`: a loop around it whose
// trip count the bytecode does not show (HeatEvidence), or null.
BlacklistVerdict blacklistVerdict(const FunctionView& fn, const Finding& finding, std::size_t proto,
                                  std::size_t heatProto, int heatPc, const flow::LoopTrips* unknownAround);

// For any other finding at heatPc of vararg function heatProto, outside its
// loops, when no trace records it (BlacklistVerdict::unreached): the clause
// that says why, ending "so likely"; empty otherwise (audit 97: a RETURN of
// `unpack` in the closure `partial(f, ...)` returns, called after partial
// itself aborts the loop's trace).
std::string unreachedClause(const FunctionView& fn, std::size_t heatProto, int heatPc);

}  // namespace ljcheck::rules
