// NYIBC:VARG: a multi-value `...` (f(...), {...}, return ...) recorded in the
// vararg function's own frame at the base of a trace. The recorder compiles
// it only when the vararg frame was entered on the trace, or for the
// select('#', ...) / select(k, ...) idiom. Two traces start in that frame:
// the root trace of a loop in the vararg function (the `...` in its body),
// and the side trace from that loop's exit (a `...` after the loop, e.g.
// `return s, ...`), once the function is called often enough to make the
// exit hot.
#include "rules/rule.h"

namespace ljcheck::rules {
namespace {

using bytecode::Op;

class VarargRule final : public Rule {
 public:
  std::string_view name() const override { return "varargs"; }
  std::vector<ReasonId> reasons(const RecorderProfile&) const override { return {ReasonId::refusedBytecode("VARG")}; }

  void check(const FunctionView& fn, PredictionSink& sink) const override {
    if (!fn.proto.isVararg()) return;
    for (int pc = 1; pc <= fn.proto.size(); ++pc) {
      const auto& ins = fn.proto.at(pc);
      if (ins.op != Op::VARG || ins.b != 0) continue;  // fixed counts are recorded
      if (isSelectIdiom(fn, pc)) continue;
      Finding f;
      f.pc = pc;
      f.reasonId = ReasonId::refusedBytecode("VARG");
      f.construct = "vararg";
      f.aborts = true;
      if (fn.loops.inLoop(pc)) {
        f.message = "multi-value '...' in a loop of the vararg function: the loop's trace aborts (VARG)";
        f.reasoning = "the loop at line " + std::to_string(loopLine(fn, pc)) +
                      " starts its trace in the vararg frame, where the recorder refuses a multi-value '...'";
      } else {
        int loopExit = lastLoopBefore(fn, pc);
        if (loopExit == 0 || fn.calls.heat(fn.index) == flow::Heat::Cold) continue;
        f.confidence = Confidence::Likely;
        f.message = "multi-value '...' after a loop of the vararg function: the side trace from the loop's exit "
                    "aborts here (VARG)";
        f.reasoning = whyHot(fn, pc) + ", so the exit of its loop at line " + std::to_string(loopExit) +
                      " gets a side trace that starts in the vararg frame and refuses the multi-value '...'";
      }
      sink.report(fn, std::move(f));
    }
  }

 private:
  // select('#', ...) or select(k, ...): the next instruction is a CALLM of
  // select with one result and one fixed argument.
  static bool isSelectIdiom(const FunctionView& fn, int pc) {
    if (pc + 1 > fn.proto.size()) return false;
    const auto& call = fn.proto.at(pc + 1);
    if (call.op != Op::CALLM || call.b != 2 || call.c != 1) return false;
    flow::Value callee = calleeAt(fn, pc + 1);
    return callee.is(flow::Value::Kind::LibFunction) && callee.name == "select";
  }

  // The line of the last loop that ends before pc; 0 for none.
  static int lastLoopBefore(const FunctionView& fn, int pc) {
    int line = 0;
    for (const auto& loop : fn.loops.loops())
      if (loop.last < pc) line = loopLine(fn, loop.first);
    return line;
  }
};

}  // namespace

std::unique_ptr<Rule> makeVarargRule() { return std::make_unique<VarargRule>(); }

}  // namespace ljcheck::rules
