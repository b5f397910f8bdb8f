// DOWNREC and CUNROLL (stop class, benign): a function that calls itself
// (directly, or round a cycle of calls), not in tail position, and runs hot.
// Returning into a frame of the same prototype whose return was already
// recorded restarts recording as a down-recursion trace (DOWNREC,
// lj_record.c: check_downrec_unroll), at a return that some path from a
// recursive call reaches (verified for direct and mutual recursion, with
// and without loops). A trace that did not start at the function's header
// and inlines the recursion more than `callunroll` (3) levels deep aborts at
// the header (CUNROLL, check_call_unroll); whether that happens depends on
// which trace the recursion meets first.
#include <algorithm>
#include <vector>

#include "flow/instruction_effects.h"
#include "rules/prediction_sink.h"
#include "rules/rule.h"

namespace ljcheck::rules {
namespace {

using bytecode::Op;


// The returns that some path from one of `calls` reaches, in pc order. A
// return only on paths that never recurse (the base case) does not return
// into a frame of the recursion a second time.
std::vector<int> returnsAfter(const bytecode::Prototype& proto, const std::vector<int>& calls) {
  std::vector<char> seen(static_cast<std::size_t>(proto.size()) + 2, 0);
  std::vector<int> work(calls), out;
  while (!work.empty()) {
    int pc = work.back();
    work.pop_back();
    if (pc < 1 || pc > proto.size() || seen[static_cast<std::size_t>(pc)]) continue;
    seen[static_cast<std::size_t>(pc)] = 1;
    Op op = proto.at(pc).op;
    if (flow::isReturn(op)) {
      out.push_back(pc);
      continue;
    }
    flow::Flow next = flow::flowOf(proto.at(pc), pc);
    if (next.fallsThrough) work.push_back(pc + 1);
    if (next.jump) work.push_back(next.jump);
    if (next.skip) work.push_back(next.skip);
  }
  std::sort(out.begin(), out.end());
  return out;
}

class RecursionRule final : public Rule {
 public:
  std::string_view name() const override { return "recursion"; }
  std::vector<ReasonId> reasons(const RecorderProfile&) const override {
    return {ReasonId::traceError("DOWNREC"), ReasonId::traceError("CUNROLL")};
  }

  void check(const FunctionView& fn, PredictionSink& sink) const override {
    if (fn.isMain() || !fn.calls.recursive(fn.index) || fn.calls.heat(fn.index) < flow::Heat::Likely) return;
    // Non-tail calls back into the recursion: to the function itself, or to
    // a function that calls back round a cycle (mutual recursion).
    int firstRecursiveCall = 0, selfCalls = 0;
    bool direct = false;
    std::vector<int> recursiveCalls;
    for (int pc = 1; pc <= fn.proto.size(); ++pc) {
      const auto& ins = fn.proto.at(pc);
      if (ins.op != Op::CALL && ins.op != Op::CALLM) continue;  // a tail call reuses the frame
      flow::Value callee = calleeAt(fn, pc);
      if (!callee.is(flow::Value::Kind::LuaFunction)) continue;
      if (fn.calls.component(callee.proto) != fn.calls.component(fn.index)) continue;
      if (!firstRecursiveCall) firstRecursiveCall = pc;
      recursiveCalls.push_back(pc);
      if (callee.proto == fn.index) {
        direct = true;
        ++selfCalls;
      }
    }
    if (!firstRecursiveCall) return;
    std::string name = functionName(fn, fn.index);
    std::string recursion = name + (direct ? " calls itself" : " calls back into itself through another function") +
                            " at line " + std::to_string(fn.proto.at(firstRecursiveCall).line) +
                            " (not a tail call) and " + whyHot(fn, firstRecursiveCall);
    for (int pc : returnsAfter(fn.proto, recursiveCalls)) {
      sink.report(fn, structuralFinding(pc, "DOWNREC", "return", Confidence::Likely,
                                        "returning from the recursion restarts recording here as a down-recursion "
                                        "trace (DOWNREC)",
                                        recursion + "; returns into its own frames are recorded as down-recursion"));
    }
    if (!direct) return;
    Finding f = structuralFinding(
        0, "CUNROLL", "closure", Confidence::Possible,  // pc 0: the header
        "a trace that inlines this recursion more than 3 levels deep aborts here (CUNROLL)",
        recursion + (selfCalls > 1 ? ", branching into " + std::to_string(selfCalls) + " calls" : "") +
            "; a trace not started at its header unrolls at most 3 levels");
    f.proto = fn.index;
    sink.report(fn, std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> makeRecursionRule() { return std::make_unique<RecursionRule>(); }

}  // namespace ljcheck::rules
