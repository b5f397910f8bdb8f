// NYIBC:FNEW and NYIBC:UCLO: the recorder refuses to create closures and to
// close upvalues, in every 2.1 build (the profile's nyiBytecodes). A closure
// created in a loop body aborts the loop's trace; so does the end of a loop
// block that holds a captured local, whether or not the closure is created.
#include "rules/rule.h"

namespace ljcheck::rules {
namespace {

using bytecode::Op;

class ClosureRule final : public Rule {
 public:
  std::string_view name() const override { return "closures"; }

  void check(const FunctionView& fn, PredictionSink& sink) const override {
    for (int pc = 1; pc <= fn.proto.size(); ++pc) {
      Op op = fn.proto.at(pc).op;
      if (op != Op::FNEW && op != Op::UCLO) continue;
      std::string bc(bytecode::opName(op));
      if (!fn.profile.nyiBytecodes.count(bc)) continue;
      if (!runsHot(fn, pc)) continue;
      Context ctx = fn.loops.inLoop(pc) ? Context::Loop : Context::Function;
      if (maskedByEarlierAbort(fn, pc)) continue;
      Finding f;
      f.pc = pc;
      f.reasonId = "NYIBC:" + bc;
      if (op == Op::FNEW) {
        f.construct = "closure";
        f.message = ctx == Context::Loop
                        ? "closure created in a loop body: the recorder cannot compile FNEW"
                        : "closure created here: a trace through this function aborts (FNEW)";
      } else {
        f.construct = "upvalue close";
        f.message = ctx == Context::Loop
                        ? "a local captured by a closure is closed in this loop body (UCLO)"
                        : "upvalues are closed here before the function returns (UCLO)";
      }
      sink.report(fn, std::move(f));
    }
  }

 private:
  // The recorder stops at the first abort on a path: an FNEW earlier in the
  // same loop body (or function body) that runs every time hides a later
  // UCLO/FNEW.
  static bool maskedByEarlierAbort(const FunctionView& fn, int pc) {
    const flow::Loop* loop = fn.loops.innermost(pc);
    flow::Loop body{flow::Loop::Kind::While, 1, fn.proto.size()};
    const flow::Loop& scope = loop ? *loop : body;
    for (int p = scope.first; p < pc; ++p) {
      if (fn.proto.at(p).op != Op::FNEW) continue;
      if (fn.loops.innermost(p) != loop) continue;
      if (flow::runsOnEveryIteration(fn.proto, scope, p)) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Rule> makeClosureRule() { return std::make_unique<ClosureRule>(); }

}  // namespace ljcheck::rules
