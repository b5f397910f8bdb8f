// NYIBC:VARG: a multi-value `...` (f(...), {...}, return ...) recorded in the
// vararg function's own frame at the base of a trace. The recorder compiles
// it only when the vararg frame was entered on the trace, or for the
// select('#', ...) / select(k, ...) idiom. Two traces start in that frame:
// the root trace of a loop in the vararg function (the `...` in its body),
// and the side trace from that loop's exit (a `...` after the loop, e.g.
// `return s, ...`), once the function is called often enough to make the
// exit hot. A call before the `...` starts traces there too, when the
// function has no loop: a stitched call (an unrecorded builtin or C
// function) makes the recorder start the next trace right after it, in the
// vararg frame (lj_trace.c lj_trace_stitch: J->parent = 0, framedepth 0),
// and a Lua callee's side traces return into the vararg frame as a lower
// frame (lj_record.c lj_record_ret). Either trace finds the varargs off
// trace (rec_varg, framedepth 0) and refuses a multi-value `...`.
#include "flow/instruction_effects.h"
#include "rules/prediction_sink.h"
#include "rules/rule.h"
#include "rules/split_finding.h"

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
        if (fn.calls.heat(fn.index) == flow::Heat::Cold) continue;
        int loopExit = lastLoopBefore(fn, pc);
        if (loopExit != 0) {
          f.confidence = Confidence::Likely;
          f.message = "multi-value '...' after a loop of the vararg function: the side trace from the loop's exit "
                      "aborts here (VARG)";
          f.reasoning = whyHot(fn, pc) + ", so the exit of its loop at line " + std::to_string(loopExit) +
                        " gets a side trace that starts in the vararg frame and refuses the multi-value '...'";
        } else if (!afterCall(fn, pc, f)) {
          continue;
        }
      }
      sink.report(fn, std::move(f));
    }
  }

 private:
  // A multi-value `...` after a call of the vararg function (in a function
  // without loops): the trace that resumes after a stitched call, or a side
  // trace of the callee that returns here, starts in the vararg frame. The
  // finding names the last such call before pc; false when there is none.
  static bool afterCall(const FunctionView& fn, int pc, Finding& f) {
    for (int q = pc - 1; q >= 1; --q) {
      const auto& ins = fn.proto.at(q);
      if (!flow::isCall(ins.op) || flow::isTailCall(ins.op)) continue;
      Callee callee = resolveCallee(fn, q);
      const flow::Value& v = callee.value;
      bool builtin = v.is(flow::Value::Kind::CFunction) || v.is(flow::Value::Kind::LibFunction);
      if (v.is(flow::Value::Kind::LibFunction)) {
        // Compiled inline: no new trace starts here; but a form of it the
        // recorder refuses stitches (audit 102: xmlrpc's methodCall checks
        // its name with a pattern search, then forwards `...`: the trace
        // stitched after string.find aborts at the VARG on every call).
        const FastFunctionDef* ff = fn.profile.fastFunction(v.name);
        if (!ff || (ff->recorded() && !stitchesAt(fn, q))) continue;
      }
      // Only a stitch starts a trace right after the call. error and the
      // other builtins that never stitch end the trace (error does not even
      // return), as does a call through pcall or one whose results feed a
      // variable-count operation; os.exit ends the process.
      if (builtin && (fn.profile.neverStitch.count(std::string(v.name)) || callee.protectedCall ||
                      nextFeedsVariableCount(fn.proto, q) || v.name == "os.exit"))
        continue;
      // A call on a path that returns before the `...` (audit 72: a warning
      // in `if not m then notify.warn(...) return end`) leaves no trace there.
      if (!flow::reachablePcs(fn.proto, q)[static_cast<std::size_t>(pc)]) continue;
      std::string line = std::to_string(ins.line);
      std::string tail = "; " + whyHot(fn, pc);
      if (builtin) {
        f.message = "multi-value '...' after a stitched call in the vararg function: the trace that resumes after "
                    "it aborts here (VARG)";
        f.reasoning = "the call to " + std::string(v.name) + " at line " + line +
                      " is not compiled, so the trace is stitched there and the next one starts in the vararg "
                      "frame, where the recorder refuses a multi-value '...'" + tail;
      } else {
        std::string who = v.is(flow::Value::Kind::LuaFunction) ? functionName(fn, v.proto) : "the callee";
        f.message = "multi-value '...' after a call in the vararg function: a side trace of the callee that "
                    "returns here aborts (VARG)";
        // Only a trace that started below this frame refuses it: one of the
        // callee's own (its entry hot from interpreted calls) and its side
        // traces. A loop's trace that records this function records the
        // call and the `...` with it (audit 77: a side trace of a loop's
        // trace through the callee recorded the '...').
        f.reasoning = "when " + who + " (called at line " + line +
                      ") runs traces of its own, a side trace from an exit in it returns into the vararg frame and "
                      "records on from there, where the recorder refuses a multi-value '...' (a trace of a loop "
                      "that records this function's call records the '...' too)" + tail;
      }
      f.confidence = Confidence::Likely;
      f.sideTrace = true;
      // Every trace that starts in the frame refuses the `...`, however the
      // function got hot: the shape, not the heat, is the evidence (on the
      // third-party corpus every such site the recorder visited aborted).
      f.hotByEvidence = true;
      return true;
    }
    return false;
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
