// NYIBC:FNEW and NYIBC:UCLO: the recorder refuses to create closures and to
// close upvalues, in every 2.1 build (the profile's nyiBytecodes). A closure
// created in a loop body aborts the loop's trace; so does the end of a loop
// block that holds a captured local, whether or not the closure is created.
#include "flow/instruction_effects.h"
#include "flow/refused_bytecodes.h"
#include "rules/rule.h"

namespace ljcheck::rules {
namespace {

using bytecode::Op;


// The UCLO at pc is one LuaJIT's parser puts before a return: parse_return
// emits it right before the RET or tail call; for a return parsed before the
// function's first closure, fs_fixup_ret replaces the return with a UCLO
// that jumps to a copy of it appended after the function's final return (a
// `break`'s UCLO jumps past its loop, whose last instruction is no return).
bool beforeAReturn(const bytecode::Prototype& proto, int pc) {
  if (pc < proto.size() && flow::leavesFunction(proto.at(pc + 1).op)) return true;
  const int target = proto.at(pc).jumpTarget(pc);
  return target > pc + 1 && target <= proto.size() && flow::leavesFunction(proto.at(target).op) &&
         flow::leavesFunction(proto.at(target - 1).op);
}

class ClosureRule final : public Rule {
 public:
  std::string_view name() const override { return "closures"; }
  std::vector<ReasonId> reasons(const RecorderProfile& profile) const override {
    std::vector<ReasonId> ids;
    for (Op op : {Op::FNEW, Op::UCLO})
      if (flow::refuses(profile, op)) ids.push_back(ReasonId::refusedBytecode(bytecode::opName(op)));
    return ids;
  }

  void check(const FunctionView& fn, PredictionSink& sink) const override {
    // The reasonIds, made once: a file of many closures has thousands.
    static const ReasonId fnewId = ReasonId::refusedBytecode(bytecode::opName(Op::FNEW));
    static const ReasonId ucloId = ReasonId::refusedBytecode(bytecode::opName(Op::UCLO));
    for (int pc = 1; pc <= fn.proto.size(); ++pc) {
      Op op = fn.proto.at(pc).op;
      if (op != Op::FNEW && op != Op::UCLO) continue;
      if (!flow::refuses(fn.profile, op)) continue;
      if (!runsHot(fn, pc)) continue;
      std::string_view bc = bytecode::opName(op);
      Context ctx = fn.loops.inLoop(pc) ? Context::Loop : Context::Function;
      Finding f;
      f.pc = pc;
      f.reasonId = op == Op::FNEW ? fnewId : ucloId;
      f.aborts = true;
      f.reasoning = whyHot(fn, pc);
      f.reasoning.reserve(f.reasoning.size() + 112);  // the clauses below, grown once
      f.reasoning += ", and the recorder refuses ";
      f.reasoning += bc;
      f.reasoning += " in every LuaJIT 2.1 build";
      // lj_parse.c emits UCLO in two places: at the end of a block whose
      // local a closure captures, and (parse_return) before every return of
      // a function that creates closures, captured local or not.
      const bool beforeReturn = op == Op::UCLO && beforeAReturn(fn.proto, pc);
      if (op == Op::UCLO)
        f.reasoning += beforeReturn ? " (LuaJIT's parser closes upvalues before every return of a function that "
                                      "creates closures)"
                                    : " (a local of this block is captured by a closure)";
      if (op == Op::FNEW) {
        f.construct = "closure";
        f.message = ctx == Context::Loop
                        ? "closure created in a loop body: the recorder cannot compile FNEW"
                        : "closure created here: a trace through this function aborts (FNEW)";
      } else {
        f.construct = "upvalue close";
        const bool loop = ctx == Context::Loop;
        if (beforeReturn)
          f.message = loop ? "upvalues are closed before this return in a loop body (UCLO)"
                           : "upvalues are closed here before the function returns (UCLO)";
        else
          f.message = loop ? "a local captured by a closure is closed in this loop body (UCLO)"
                           : "a local captured by a closure is closed here (UCLO)";
      }
      sink.report(fn, std::move(f));
    }
  }

};

}  // namespace

std::unique_ptr<Rule> makeClosureRule() { return std::make_unique<ClosureRule>(); }

}  // namespace ljcheck::rules
