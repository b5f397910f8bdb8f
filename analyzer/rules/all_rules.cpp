// The one list of rule families. Adding a rule family adds a line here, a
// file beside this one, fixtures and a page under docs/reasons/.
#include "rules/rule.h"

namespace ljcheck::rules {

std::unique_ptr<Rule> makeClosureRule();
std::unique_ptr<Rule> makeVarargRule();
std::unique_ptr<Rule> makeCallSplitRule();
std::unique_ptr<Rule> makeRecordedVariantRule();

const std::vector<std::unique_ptr<Rule>>& allRules() {
  static const std::vector<std::unique_ptr<Rule>> rules = [] {
    std::vector<std::unique_ptr<Rule>> v;
    v.push_back(makeClosureRule());
    v.push_back(makeVarargRule());
    v.push_back(makeCallSplitRule());
    v.push_back(makeRecordedVariantRule());
    return v;
  }();
  return rules;
}

Context contextOf(const flow::CallGraph& calls, const bytecode::Chunk& chunk, std::size_t proto, int pc) {
  if (calls.inLoop(proto, pc)) return Context::Loop;
  return proto + 1 == chunk.prototypes.size() ? Context::Main : Context::Function;
}

flow::Value calleeAt(const FunctionView& fn, int pc) {
  return fn.values.at(fn.index, pc, flow::calleeSlot(fn.proto.at(pc)));
}

}  // namespace ljcheck::rules

namespace ljcheck::rules {

bool maskedByEarlierAbort(const FunctionView& fn, int pc) {
  const flow::Loop* loop = fn.loops.innermost(pc);
  flow::Loop body{flow::Loop::Kind::While, 1, fn.proto.size()};
  const flow::Loop& scope = loop ? *loop : body;
  for (int p = scope.first; p < pc; ++p) {
    if (fn.proto.at(p).op != bytecode::Op::FNEW) continue;
    if (fn.loops.innermost(p) != loop) continue;
    if (!flow::runsOnEveryIteration(fn.proto, scope, p)) continue;
    // A function called after the FNEW can get its own trace, which returns
    // into this body behind the FNEW and records on from there.
    bool callBetween = false;
    for (int q = p + 1; q < pc && !callBetween; ++q) callBetween = flow::isCallInstruction(fn.proto.at(q).op);
    if (!callBetween) return true;
  }
  return false;
}

}  // namespace ljcheck::rules
