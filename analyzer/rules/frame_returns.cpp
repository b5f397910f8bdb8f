// NYIRETL (risk): the recorder cannot return to a frame below the trace's
// base through a pcall frame, nor return (or tail-call) out of a vararg
// function whose frame is below the base (lj_record.c: lj_record_ret,
// lj_record_tailcall). A hot loop in such a function starts traces in its
// frame; once its exit is hot, the side trace from the exit runs into the
// function's return and aborts there:
// - a function called through pcall/xpcall from code that runs hot (a
//   loop, or a function called from one), with a loop of its own (or a
//   call to one): at its returns after that loop;
// - a vararg function with a loop that ends in a tail call (return f(x)):
//   at that tail call. A plain return from it ends the trace instead.
// The loop must run often enough for its exit to get hot: a prediction of
// structure, not a certainty.
#include "flow/instruction_effects.h"
#include "rules/prediction_sink.h"
#include "rules/rule.h"

namespace ljcheck::rules {
namespace {

using bytecode::Op;

bool isReturn(Op op) { return op == Op::RET || op == Op::RET0 || op == Op::RET1 || op == Op::RETM; }

// The first pc after which the function has been in a loop: the end of its
// first loop, or a call to a function of this file that has one.
int afterFirstLoop(const FunctionView& fn) {
  int after = 0;
  for (const auto& loop : fn.loops.loops())
    if (!after || loop.last < after) after = loop.last;
  for (int pc = 1; pc <= fn.proto.size() && (!after || pc < after); ++pc) {
    const auto& ins = fn.proto.at(pc);
    if (ins.op != Op::CALL && ins.op != Op::CALLM) continue;
    flow::Value callee = calleeAt(fn, pc);
    if (!callee.is(flow::Value::Kind::LuaFunction) || callee.proto == fn.index) continue;
    if (fn.calls.hasLoop(callee.proto)) return pc;
  }
  return after;
}

class FrameReturnRule final : public Rule {
 public:
  std::string_view name() const override { return "frame-returns"; }
  std::vector<ReasonId> reasons(const RecorderProfile&) const override { return {ReasonId::traceError("NYIRETL")}; }

  void check(const FunctionView& fn, PredictionSink& sink) const override {
    if (fn.isMain()) return;
    std::string protectedAt = protectedHotCall(fn);
    bool vararg = fn.proto.isVararg() && fn.calls.heat(fn.index) >= flow::Heat::Likely;
    if (protectedAt.empty() && !vararg) return;
    int after = afterFirstLoop(fn);
    if (!after) return;
    std::string name = functionName(fn, fn.index);
    for (int pc = after + 1; pc <= fn.proto.size(); ++pc) {
      Op op = fn.proto.at(pc).op;
      if (fn.loops.inLoop(pc)) continue;
      std::string why;
      if (!protectedAt.empty() && isReturn(op)) {
        why = name + " is called through pcall at line " + protectedAt +
              " and loops first, so the side trace from its loop's exit returns through the pcall frame";
      } else if (vararg && flow::isTailCall(op)) {
        why = name + " is a vararg function that loops and then tail-calls here, so the side trace from its "
              "loop's exit leaves the vararg frame below its base";
      } else {
        continue;
      }
      Finding f;
      f.pc = pc;
      f.reasonId = ReasonId::traceError("NYIRETL");
      f.construct = "return";
      f.structural = true;
      f.confidence = Confidence::Likely;
      f.message = "the side trace from the loop's exit cannot return to the lower frame here (NYIRETL)";
      f.reasoning = why;
      sink.report(fn, std::move(f));
    }
  }

 private:
  // The line of a pcall/xpcall of this function that runs hot (in a loop,
  // or in a function that is or may be called hot); empty for none. The
  // side trace needs only the loop's exit to get hot (hotexit, 10 exits),
  // far fewer runs than a function needs to start a trace of its own.
  static std::string protectedHotCall(const FunctionView& fn) {
    for (const auto& site : fn.calls.callers(fn.index))
      if (site.protectedCall && fn.calls.runsHot(site.proto, site.pc))
        return std::to_string(fn.chunk.prototypes[site.proto].at(site.pc).line);
    return {};
  }
};

}  // namespace

std::unique_ptr<Rule> makeFrameReturnRule() { return std::make_unique<FrameReturnRule>(); }

}  // namespace ljcheck::rules
