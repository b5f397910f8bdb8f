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
  std::vector<ReasonId> reasons(const RecorderProfile& profile) const override {
    std::vector<ReasonId> ids;
    for (Op op : {Op::FNEW, Op::UCLO})
      if (std::string bc(bytecode::opName(op)); profile.nyiBytecodes.count(bc)) ids.push_back(ReasonId::refusedBytecode(bc));
    return ids;
  }

  void check(const FunctionView& fn, PredictionSink& sink) const override {
    for (int pc = 1; pc <= fn.proto.size(); ++pc) {
      Op op = fn.proto.at(pc).op;
      if (op != Op::FNEW && op != Op::UCLO) continue;
      std::string bc(bytecode::opName(op));
      if (!fn.profile.nyiBytecodes.count(bc)) continue;
      if (!runsHot(fn, pc)) continue;
      Context ctx = fn.loops.inLoop(pc) ? Context::Loop : Context::Function;
      Finding f;
      f.pc = pc;
      f.reasonId = ReasonId::refusedBytecode(bc);
      f.aborts = true;
      f.reasoning = whyHot(fn, pc) + ", and the recorder refuses " + bc + " in every LuaJIT 2.1 build" +
                    (op == Op::UCLO ? " (a local of this block is captured by a closure)" : "");
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

};

}  // namespace

std::unique_ptr<Rule> makeClosureRule() { return std::make_unique<ClosureRule>(); }

}  // namespace ljcheck::rules
