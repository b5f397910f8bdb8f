// NYIBC:VARG: a multi-value `...` (f(...), {...}, return ...) in a loop of the
// vararg function itself. The recorder compiles it only when the vararg frame
// is on the trace, or for the select('#', ...) / select(k, ...) idiom; a hot
// loop inside the vararg function starts its trace in that frame.
#include "rules/rule.h"

namespace ljcheck::rules {
namespace {

using bytecode::Op;

class VarargRule final : public Rule {
 public:
  std::string_view name() const override { return "varargs"; }

  void check(const FunctionView& fn, PredictionSink& sink) const override {
    if (!fn.proto.isVararg()) return;
    for (int pc = 1; pc <= fn.proto.size(); ++pc) {
      const auto& ins = fn.proto.at(pc);
      if (ins.op != Op::VARG || ins.b != 0) continue;  // fixed counts are recorded
      if (!fn.loops.inLoop(pc)) continue;
      if (isSelectIdiom(fn, pc)) continue;
      Finding f;
      f.pc = pc;
      f.reasonId = "NYIBC:VARG";
      f.construct = "vararg";
      f.message = "multi-value '...' in a loop of the vararg function: the loop's trace aborts (VARG)";
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
    return callee.kind == flow::Value::Kind::LibFunction && callee.name == "select";
  }
};

}  // namespace

std::unique_ptr<Rule> makeVarargRule() { return std::make_unique<VarargRule>(); }

}  // namespace ljcheck::rules
