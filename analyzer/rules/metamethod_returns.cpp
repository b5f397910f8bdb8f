// NYIRETL at an operator whose Lua metamethod returns through a tail call
// of a fast function, in a loop that runs in the interpreter (audits 82
// r27, 84 r1, 88 r23: `Vec.__add` returning `Vec.new(...)`, which returns
// `setmetatable({...}, Vec)`).
//
// The interpreter calls an operator's metamethod through a continuation
// frame (lj_meta_arith). From a loop that runs interpreted every call ticks
// the metamethod's own hot counter, so its entry starts traces of its own.
// When the metamethod returns with RET the trace just returns to the
// interpreter (lj_record_ret: "Return to lower frame via interpreter"); but
// after a tail call of a fast function the recorder compiles, the return
// comes from that fast function into the continuation frame below the
// trace's start, which lj_record_ret refuses ("NYI: return to lower
// frame"). The VM reports it at the operator's line (Debian's luajit names
// that line, OpenResty's luajit2 the fast function; the collector places
// both at the operator). Verified with `luajit -jv` on both builds: 8-9
// aborts of the metamethod's start, and of the constructor's it
// tail-calls, until both are blacklisted. The same metamethod inlined in a
// compiled loop returns cleanly (the trace holds both frames), and one
// that returns a local (`local r = Vec.new(...) return r`) ends its trace.
#include <string>

#include "flow/every_pass.h"
#include "flow/instruction_effects.h"
#include "flow/refused_bytecodes.h"
#include "flow/values.h"
#include "rules/frame_returns.h"
#include "rules/prediction_sink.h"
#include "rules/split_finding.h"
#include "rules/trace_splits_before.h"

namespace ljcheck::rules {
namespace {

using bytecode::Op;

// The fast function every return of `fn` ends in when a trace runs it
// from its entry: every return a tail call, of a fast function the
// recorder compiles or of a function of this file that ends so in turn;
// no loops, no vararg frame (never hot-counted), no instruction the
// recorder refuses, no other call but of such fast functions and of
// `error` behind a branch (an argument check). `through`
// gets the functions of this file on the way. Null otherwise.
const FastFunctionDef* tailCalledFastFunction(const FunctionView& fn, std::vector<std::size_t>& through,
                                              int depth = 0) {
  constexpr int kMaxChain = 4;
  if (fn.isMain() || fn.proto.isVararg() || !fn.loops.loops().empty() || depth > kMaxChain) return nullptr;
  const FastFunctionDef* last = nullptr;
  for (int pc = 1; pc <= fn.proto.size(); ++pc) {
    const Op op = fn.proto.at(pc).op;
    if (flow::refuses(fn.profile, op)) return nullptr;
    switch (op) {
      case Op::RET: case Op::RET0: case Op::RET1: case Op::RETM:
      case Op::ITERC: case Op::ITERN: case Op::VARG:
        return nullptr;
      case Op::CALL: case Op::CALLM: case Op::CALLT: case Op::CALLMT: {
        const bool tail = op == Op::CALLT || op == Op::CALLMT;
        if (!tail && raisesOnOnePath(fn, pc)) break;  // an argument check: the hot path goes around it
        if (const FastFunctionDef* ff = recordedCall(fn, pc)) {
          if (ff->name == "pcall" || ff->name == "xpcall") return nullptr;
          if (tail) last = ff;
          break;
        }
        const flow::Value callee = resolveCallee(fn, pc).value;
        if (!tail || !callee.is(flow::Value::Kind::LuaFunction) || callee.proto >= fn.chunk.prototypes.size() ||
            callee.proto == fn.index)
          return nullptr;
        // The first tail call's chain is the one named; the others are
        // only checked.
        const std::size_t known = through.size();
        through.push_back(callee.proto);
        const FastFunctionDef* ff = tailCalledFastFunction(fn.of(callee.proto), through, depth + 1);
        if (!ff) return nullptr;
        if (last) through.resize(known);
        last = ff;
        break;
      }
      default: break;
    }
  }
  return last;
}

}  // namespace

void reportMetamethodTailCall(const FunctionView& fn, PredictionSink& sink) {
  const auto& operations = fn.values.objectOperations(fn.index);
  if (operations.empty()) return;
  // Enough turns that the interpreted calls surely get the metamethod's
  // entry hot between the loop's tries, as for a pcall's callee
  // (frame_returns.cpp, reportProtectedCalleeOfAbortingLoop).
  const long turns = 4 * fn.calls.hotloop();
  for (const flow::ObjectOperation& op : operations) {
    const auto& ins = fn.proto.at(op.pc);
    const std::string_view name = flow::metamethodOf(ins.op);
    if (name.empty()) continue;
    // LuaJIT looks the metamethod up on the left operand first; a number
    // has none.
    const bool onLeft = flow::ObjectOperation::isObject(op.left);
    const bool numberOnLeft = op.left.is(flow::Value::Kind::Number);
    const flow::Value object = onLeft ? op.left : op.right;
    const flow::Value metamethod = fn.values.metamethod(object, name);
    if (!metamethod.is(flow::Value::Kind::LuaFunction) || metamethod.proto >= fn.chunk.prototypes.size()) continue;
    std::vector<std::size_t> through;
    const FastFunctionDef* ff = tailCalledFastFunction(fn.of(metamethod.proto), through);
    if (!ff) continue;
    // On every pass of its loop: the passes a branch lets around it do not
    // call the metamethod, and how many do the data decides (audit 89).
    const flow::Loop* loop = fn.loops.innermost(op.pc);
    if (!loop) continue;
    const flow::Routes around = flow::routesAround(fn.calls.branches(fn.index), op.pc, loop->first, loop->last, false);
    if (around.compiles || around.aborts) continue;
    const long runs = fn.calls.steadyRunsAt(fn.index, op.pc);
    if (runs < turns) continue;
    const flow::CallSite site{fn.index, op.pc, false, 0, ins.line};
    const int abortPc = abortOnEveryPass(fn, site, turns);
    if (!abortPc) continue;
    const std::string self = functionName(fn, metamethod.proto);
    const int loopLine = fn.proto.at(loop->entry()).line;
    std::string chain = "its tail call of ";
    for (std::size_t proto : through) chain += functionName(fn, proto) + ", which tail-calls ";
    chain += ff->name;
    Finding f;
    f.pc = op.pc;
    f.calleeTraces = true;  // the metamethod's own traces, whatever the loop's do
    f.hotByEvidence = true;
    f.entryCalls = runs;  // on every pass (no branch goes around the operator)
    f.reasonId = ReasonId::traceError("NYIRETL");
    f.construct = "metamethod";
    f.callee = self;
    // Which metamethod runs is the left operand's first: certain only when
    // that is the object whose class the tracker knows, or a number.
    f.confidence = onLeft || numberOnLeft ? Confidence::Certain : Confidence::Likely;
    f.message = "`" + std::string(flow::operatorOf(ins.op)) + "` calls " + self +
                " from the interpreter, whose traces cannot return into the metamethod frame through " + ff->name +
                " (NYIRETL)";
    f.reasoning =
        std::string(onLeft         ? "the left operand"
                    : numberOnLeft ? "the left operand is a number, and the right one"
                                   : "the right operand (the left one is unknown to the tracker)") +
        " is an object whose metatable holds " + self + " as " + std::string(name) + "; the loop at line " +
        std::to_string(loopLine) + " reaches the " +
        std::string(bytecode::opName(fn.proto.at(abortPc).op)) + " at line " +
        std::to_string(fn.proto.at(abortPc).line) +
        " on every pass, which the recorder refuses, so it runs in the interpreter and calls " + self +
        " through a metamethod frame " + std::to_string(runs) + " times: its entry gets hot (" +
        std::to_string(2 * fn.calls.hotloop()) + " calls) and starts traces of its own, which end in " + chain + ", whose return into that frame " +
        "below the trace's start the recorder refuses (lj_record_ret)";
    f.advice = "move the closure (or what else aborts) out of the loop at line " + std::to_string(loopLine) + " (once the loop compiles, " + self +
               " is inlined and returns cleanly), or return a local from " + self + " instead of a tail call";
    sink.report(fn, std::move(f));
  }
}

}  // namespace ljcheck::rules
