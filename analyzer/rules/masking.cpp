// Whether an earlier certain abort hides a site (see masking.h).
#include "rules/masking.h"

#include "flow/call_graph.h"

namespace ljcheck::rules {

bool masks(const bytecode::Prototype& proto, const flow::LoopMap& loops, int masker, int pc) {
  if (masker <= 0 || masker >= pc) return false;
  const flow::Loop* loop = loops.innermost(pc);
  if (loops.innermost(masker) != loop) return false;
  flow::Loop body{flow::Loop::Kind::While, 1, proto.size()};
  if (!flow::runsOnEveryIteration(proto, loop ? *loop : body, masker)) return false;
  for (int q = masker + 1; q < pc; ++q)
    if (flow::isCallInstruction(proto.at(q).op)) return false;
  for (const auto& inner : loops.loops())
    if (inner.first > masker && inner.last < pc) return false;
  return true;
}

}  // namespace ljcheck::rules
