// The one list of rule families. Adding a rule family adds a line here, a
// file beside this one, fixtures and a page under docs/reasons/.
#include "flow/instruction_effects.h"
#include "rules/prediction_sink.h"
#include "rules/rule.h"

namespace ljcheck::rules {

std::unique_ptr<Rule> makeClosureRule();
std::unique_ptr<Rule> makeVarargRule();
std::unique_ptr<Rule> makeCallSplitRule();
std::unique_ptr<Rule> makeRecordedVariantRule();
std::unique_ptr<Rule> makeFfiCallRule();
std::unique_ptr<Rule> makeJitOffRule();
std::unique_ptr<Rule> makeInnerLoopRule();
std::unique_ptr<Rule> makeRecursionRule();
std::unique_ptr<Rule> makeFrameReturnRule();

const std::vector<std::unique_ptr<Rule>>& allRules() {
  static const std::vector<std::unique_ptr<Rule>> rules = [] {
    std::vector<std::unique_ptr<Rule>> v;
    v.push_back(makeClosureRule());
    v.push_back(makeVarargRule());
    v.push_back(makeCallSplitRule());
    v.push_back(makeRecordedVariantRule());
    v.push_back(makeFfiCallRule());
    v.push_back(makeJitOffRule());
    v.push_back(makeInnerLoopRule());
    v.push_back(makeRecursionRule());
    v.push_back(makeFrameReturnRule());
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

int loopLine(const FunctionView& fn, int pc) {
  const flow::Loop* loop = fn.loops.innermost(pc);
  if (!loop) return 0;
  // A numeric or generic for: its FORI/ITERC sits before the body; the
  // first body instruction has the `for` line for while loops too.
  int at = loop->first > 1 ? loop->first - 1 : loop->first;
  return fn.proto.at(loop->kind == flow::Loop::Kind::While ? loop->first : at).line;
}

std::string whyHot(const FunctionView& fn, int pc) {
  if (fn.calls.inLoop(fn.index, pc)) return "it runs in the loop at line " + std::to_string(loopLine(fn, pc));
  std::string name = functionName(fn.chunk, fn.index);
  for (const auto& site : fn.calls.callers(fn.index)) {
    if (!fn.calls.runsHot(site.proto, site.pc)) continue;
    int line = fn.chunk.prototypes[site.proto].at(site.pc).line;
    if (fn.calls.inLoop(site.proto, site.pc)) return name + " is called from a loop at line " + std::to_string(line);
    return name + " is called at line " + std::to_string(line) + " from " + functionName(fn.chunk, site.proto) +
           ", which runs hot";
  }
  return name + " escapes, so code elsewhere may call it hot";
}

}  // namespace ljcheck::rules

