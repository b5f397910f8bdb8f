// Calls that end or split a root trace before a blocker (see trace_splits_before.h).
#include "rules/trace_splits_before.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "flow/loop_exits.h"
#include "flow/every_pass.h"
#include "flow/instruction_effects.h"
#include "flow/metatypes.h"
#include "flow/refused_bytecodes.h"
#include "rules/aborting_call_before.h"
#include "rules/prediction_sink.h"
#include "rules/split_finding.h"

namespace ljcheck::rules {
namespace {

constexpr int kDepth = 3;

int splittingCall(const FunctionView& fn, int from, int to, int depth, std::vector<int>* splits = nullptr,
                  bool inPcall = false);

bool isFieldRead(bytecode::Op op) {
  return op == bytecode::Op::TGETS || op == bytecode::Op::TGETV || op == bytecode::Op::TGETB;
}

// The operator at pc on an object the tracker knows (ObjectOperation);
// null for another instruction.
const flow::ObjectOperation* objectOperationAt(const FunctionView& fn, int pc) {
  for (const flow::ObjectOperation& op : fn.values.objectOperations(fn.index))
    if (op.pc == pc) return &op;
  return nullptr;
}

// An instruction that may call a Lua metamethod: a field read (__index) or
// an operator on a known object.
bool readsOrOperates(const FunctionView& fn, int pc) {
  return isFieldRead(fn.proto.at(pc).op) || objectOperationAt(fn, pc) != nullptr;
}

// Whether a trace that calls the function `proto` records all of it.
// `inPcall`: the call is made inside a function called through pcall.
bool inlinedFunction(const FunctionView& fn, std::size_t proto, int depth, bool inPcall) {
  return proto < fn.chunk.prototypes.size() && depth < kDepth && !fn.calls.runsLoop(proto) &&
         splittingCall(fn.of(proto), 1, fn.chunk.prototypes[proto].size() + 1, depth + 1, nullptr, inPcall) == 0;
}

// Whether a read from `table` calls no __index function, or only one a
// trace records inline.
bool readInlined(const FunctionView& fn, const flow::Value& table, int depth, bool inPcall) {
  const flow::Value index = fn.values.indexMetamethod(table);
  return !index.is(flow::Value::Kind::LuaFunction) || inlinedFunction(fn, index.proto, depth, inPcall);
}

// Whether an operator on a known object calls no Lua metamethod of its
// operands' classes, or only ones a trace records inline: the recorder
// records the call (lj_record.c rec_mm_arith), and a loop or a split in it
// stops the root trace there, as in an __index function (audit 89: a
// Mat3 `__mul` with loops before a closure; `-jv` shows the loop's trace
// linked to the metamethod's, and no abort at the closure).
bool operationInlined(const FunctionView& fn, const flow::ObjectOperation& op, int depth, bool inPcall) {
  const std::string_view name = flow::metamethodOf(fn.proto.at(op.pc).op);
  for (const flow::Value& operand : {op.left, op.right}) {
    const flow::Value mm = fn.values.metamethod(operand, name);
    if (mm.is(flow::Value::Kind::LuaFunction) && !inlinedFunction(fn, mm.proto, depth, inPcall)) return false;
  }
  return true;
}

// The call at pc is inlined into the trace that records it. A field read
// may call an __index function of a metatable (`__index = function(t, k)
// ... end`): the recorder records that call like any other (lj_record.c
// rec_mm_index), and a loop or a split in it stops the root trace there
// (audit 83: a header table whose __index scans a list; `-jv` shows the
// host loop's trace linked to that loop's, and no abort at the closure
// after the read, ever). The table is the one the read sees, or, for a
// parameter of a function only this file calls, each one its calls pass;
// one the tracker cannot name may have any of the file's metatables (audit
// 87: an object built in the call's arguments, `handle(setmetatable({…},
// mt))`, or taken from a pool).
bool inlined(const FunctionView& fn, int pc, int depth, bool inPcall) {
  const auto& ins = fn.proto.at(pc);
  if (const flow::ObjectOperation* op = objectOperationAt(fn, pc)) return operationInlined(fn, *op, depth, inPcall);
  if (isFieldRead(ins.op)) {
    const flow::Value table = fn.values.tableReadAt(fn.index, pc);
    if (table.known()) return readInlined(fn, table, depth, inPcall);
    // Not the function itself: an __index function reading its own table
    // (`t.w * t.h` for a lazy `area`) finds fields the table has.
    auto anyOfTheFiles = [&] {
      const std::vector<std::size_t>& all = fn.values.indexMetamethods();
      return std::all_of(all.begin(), all.end(),
                         [&](std::size_t proto) { return proto == fn.index || inlinedFunction(fn, proto, depth, inPcall); });
    };
    if (!parameterFromCallsHere(fn, ins.b, pc)) return anyOfTheFiles();
    const auto& sites = fn.calls.callers(fn.index);
    return std::all_of(sites.begin(), sites.end(), [&](const flow::CallSite& site) {
      const flow::Value passed = callerArgument(fn, site, ins.b);
      return passed.known() ? readInlined(fn, passed, depth, inPcall) : anyOfTheFiles();
    });
  }
  const Callee resolved = resolveCallee(fn, pc);
  const flow::Value& callee = resolved.value;
  if (callee.is(flow::Value::Kind::LibFunction)) {
    if (!recordedCall(fn, pc)) return false;
    // A builtin called through pcall is recorded only in the forms its
    // recorder takes, which the arguments decide and which are not checked
    // through pcall: `pcall(tostring, t)` over a table stops the trace
    // there (audit 58: `TRACE 1 ... return`, nothing after it recorded).
    if (resolved.protectedCall) return false;
    if (callee.name != "pcall" && callee.name != "xpcall") return true;
    // pcall(f, ...): f's body is recorded inline, and its `error`s count
    // wherever they are: the pcall is there because they run (audit 85:
    // a port check that raises on half the passes ends the loop's trace).
    const auto& call = fn.proto.at(pc);
    if (flow::fixedArgs(call) < 1) return false;
    const flow::Value f = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0));
    return f.is(flow::Value::Kind::LuaFunction) && f.proto < fn.chunk.prototypes.size() && depth < kDepth &&
           !fn.calls.runsLoop(f.proto) &&
           splittingCall(fn.of(f.proto), 1, fn.chunk.prototypes[f.proto].size() + 1, depth + 1, nullptr, true) == 0;
  }
  if (callee.is(flow::Value::Kind::LuaFunction) && callee.proto < fn.chunk.prototypes.size())
    return depth < kDepth && !fn.calls.runsLoop(callee.proto) &&
           splittingCall(fn.of(callee.proto), 1, fn.chunk.prototypes[callee.proto].size() + 1, depth + 1, nullptr,
                         inPcall || resolved.protectedCall) == 0;
  // A ctype's call allocates on trace (lj_crecord.c: recff_cdata_call,
  // crec_alloc), unless this file gives the ctype a `__new` metamethod,
  // which runs instead; a C function of ffi.C or of a library is called on
  // trace (crec_call). Where the recorder refuses either, that is an abort
  // of its own, not a split (audit 91: `sprite_t()` before a struct's
  // initializer "may split the trace").
  if (callee.is(flow::Value::Kind::CType) && !resolved.protectedCall)
    return flow::findConstructor(fn.constructors.own, callee.name) == nullptr;
  if (callee.is(flow::Value::Kind::FfiSymbol) && !resolved.protectedCall) return true;
  // Another module's function its file found recorded inline (audit 70:
  // Vec.new, a setmetatable of a constructor, "may split" the trace).
  if (callee.is(flow::Value::Kind::ModuleMember) && !resolved.protectedCall)
    return fn.inlinedMembers && fn.inlinedMembers->count(callee.name) > 0;
  return false;
}

// fn.splitting's answers for fn's own prototype, sized on first use;
// null without fn.splitting, or for a callee looked into (`depth` > 0:
// whether it inlines a call depends on how deep it is).
SplittingCalls::Calls* kept(const FunctionView& fn, int depth) {
  if (!fn.splitting || depth != 0) return nullptr;
  SplittingCalls::Calls& calls = fn.splitting->byProto.at(fn.index);
  if (calls.inlined.empty()) {
    calls.inlined.assign(static_cast<std::size_t>(fn.proto.size()) + 1, -1);
    calls.leavesTrace.assign(static_cast<std::size_t>(fn.proto.size()) + 1, -1);
  }
  return &calls;
}

// inlined(fn, pc, depth), kept in fn.splitting at depth 0 (never in a
// pcall's body, which is looked into at depth 1 or more).
bool inlinedAt(const FunctionView& fn, int pc, int depth, bool inPcall) {
  SplittingCalls::Calls* calls = kept(fn, depth);
  if (!calls) return inlined(fn, pc, depth, inPcall);
  signed char& known = calls->inlined.at(static_cast<std::size_t>(pc));
  if (known < 0) known = inlined(fn, pc, depth, inPcall) ? 1 : 0;
  return known != 0;
}

// The line of the first call in [from, to) that is not inlined, 0 when
// none; with `splits`, the pcs of all of them. A call no path reaches (a
// test of a value of known truth skips it) splits nothing. A tail call
// leaves the body, so nothing after it runs: it counts only over a whole
// body, where it splits the trace of whatever called the function
// (audit 56: `local function now() return os.time() end`).
int splittingCall(const FunctionView& fn, int from, int to, int depth, std::vector<int>* splits, bool inPcall) {
  int first = 0;
  const bool hasIndexCalls = !fn.values.indexMetamethods().empty();
  const bool hasOperations = !fn.values.objectOperations(fn.index).empty();
  const bool wholeBody = from <= 1 && to > fn.proto.size();
  for (int pc = std::max(from, 1); pc < to && pc <= fn.proto.size(); ++pc) {
    const bytecode::Op op = fn.proto.at(pc).op;
    const bool operation = hasOperations && !flow::metamethodOf(op).empty() && objectOperationAt(fn, pc);
    if (!operation &&
        (isFieldRead(op) ? !hasIndexCalls : !flow::isCall(op) || (flow::isTailCall(op) && !wholeBody)))
      continue;
    // Inside a callee looked into, an `error` a branch goes around is on
    // the failing path only (audit 89: a metamethod that checks its
    // argument first; `-jv` shows the closure after the operator abort and
    // blacklist the loop on both builds); not under a pcall.
    if (!fn.values.reached(fn.index, pc) || inlinedAt(fn, pc, depth, inPcall) ||
        (depth > 0 && !inPcall && raisesOnOnePath(fn, pc)))
      continue;
    if (first == 0) first = fn.proto.at(pc).line;
    if (!splits) return first;
    splits->push_back(pc);
  }
  return first;
}

SplitBefore splitBeforeAt(const FunctionView& fn, int from, int to, int depth);

// Whether the trace stitched at pc of `fn`, which resumes in fn's frame
// right after that call, may abort before it returns into the caller: an
// instruction the recorder refuses comes after it (a closure, an upvalue
// close), a multi-value `...` of a vararg function, which that trace finds
// off trace (varargs.cpp), or a call of a function of this file that
// aborts every trace through it (audit 54: `return #s + other(x)`, other
// making a closure). Then nothing after the call in the caller is recorded
// either (audit 53: `local s = string.gsub(...); return #s, ...` in a
// vararg helper, called from a loop with a closure after it). Where the
// first such instruction is ("line 3", "line 1 in other"), empty when none.
// Only what runs on every path from the stitch counts: a closure maker
// called behind a branch the passes skip is no sure abort (audit 55).
std::string abortsAfter(const FunctionView& fn, int pc) {
  const std::vector<bool>& refused = flow::refusedBytecodes(fn.profile);
  flow::RouteSweep routes(fn.calls.branches(fn.index), pc, std::numeric_limits<int>::max(), true);
  for (int q = pc + 1; q <= fn.proto.size(); ++q) {
    const auto& ins = fn.proto.at(q);
    if (routes.around(q)) continue;
    const auto op = static_cast<std::size_t>(ins.op);
    if ((op < refused.size() && refused[op]) ||
        (ins.op == bytecode::Op::VARG && ins.b == 0 && fn.proto.isVararg() && !isSelectIdiom(fn, q)))
      return "line " + std::to_string(ins.line);
    if (!flow::isCall(ins.op)) continue;
    const flow::Value callee = resolveCallee(fn, q).value;
    if (callee.is(flow::Value::Kind::LuaFunction) && callee.proto < fn.chunk.prototypes.size())
      if (const int line = certainAbortLine(fn, callee.proto); line > 0)
        return "line " + std::to_string(line) + " in " + functionName(fn, callee.proto);
  }
  return {};
}

// The tail call at pc of a builtin without a recorder that stitches (not
// error and its kind, with a fixed argument count: CALLMT cannot start a
// stitched trace), written as a library function, not a method of a value
// taken for a string: `return os.time()`. `name` gets its name.
bool tailCallStitches(const FunctionView& fn, int pc, std::string& name) {
  if (fn.proto.at(pc).op != bytecode::Op::CALLT) return false;
  const Callee callee = resolveCallee(fn, pc);
  if (callee.protectedCall || callee.inferredReceiver || !callee.value.is(flow::Value::Kind::LibFunction)) return false;
  const FastFunctionDef* ff = fn.profile.fastFunction(callee.value.name);
  if (!ff || ff->recorded() || fn.profile.neverStitch.count(std::string(callee.value.name))) return false;
  name = std::string(callee.value.name);
  return true;
}

}  // namespace

bool raisesOnOnePath(const FunctionView& fn, int pc) {
  const flow::Value callee = resolveCallee(fn, pc).value;
  if (!callee.is(flow::Value::Kind::LibFunction) || callee.name != "error") return false;
  return flow::routesAround(fn.calls.branches(fn.index), pc, 1, fn.proto.size(), true).compiles != nullptr;
}

int endingTailCallAfterLoop(const FunctionView& body, std::string& name, bool& sure) {
  const long unrolled = body.profile.param("loopunroll", 15) + 1;
  for (int q = 1; q <= body.proto.size(); ++q) {
    if (body.proto.at(q).op != bytecode::Op::CALLT) continue;
    const flow::LoopTrips* loop = loopBeforeTailCall(body, q);
    if (!loop) continue;
    // A loop of a few turns a caller's trace unrolls, and one that may not
    // turn it runs through: that trace stitches at the tail call instead.
    sure = loop->known && !loop->leavesAt && loop->count > unrolled;
    if (tailCallStitches(body, q, name)) return q;
    if (refusedVariantCall(body, q)) {  // `return tonumber(x, 16)`
      name = std::string(resolveCallee(body, q).value.name);
      return q;
    }
  }
  return 0;
}

namespace {

// "the call of h at line 8 (its call of string.gsub at line 2)": a call of
// a Lua function whose call at `stitchPc` stitches the trace.
std::string stitchingCall(const FunctionView& fn, int pc, const FunctionView& body, int stitchPc,
                          const std::string& stitchCallee) {
  return "the call of " + functionName(fn, body.index) + " at line " + std::to_string(fn.proto.at(pc).line) +
         " (its call of " + stitchCallee + " at line " + std::to_string(body.proto.at(stitchPc).line) + ")";
}

// The first call in `body` that surely stitches, on any path; 0 for none.
int anyStitch(const FunctionView& body, std::string* callee) {
  for (int q = 1; q <= body.proto.size(); ++q)
    if (flow::isCall(body.proto.at(q).op) && stitchesAt(body, q, callee) == Confidence::Certain) return q;
  return 0;
}

// Whether the call at pc, which the trace does not inline, surely stitches
// it: a builtin it stitches around (stitchesAt), or a Lua function of this
// file, without loops, whose every call ends in such a stitch (the trace
// stitched inside it returns into this frame, as stitched traces may:
// lj_record_ret), or that tail-calls such a builtin. `what` names it for
// the reasoning. When such a callee's stitched trace may not get back here
// (it aborts first, abortsAfter; or it starts in a vararg frame, or above
// a pcall frame), false, with `abortsFirst` saying so in the words of
// SplitBefore::resumedMayAbort.
bool surelyStitches(const FunctionView& fn, int pc, int depth, std::string& what, std::string& abortsFirst) {
  if (readsOrOperates(fn, pc)) return false;  // a metamethod's trace stops in it (leavesTraceAt)
  if (stitchesAt(fn, pc, &what) == Confidence::Certain) return true;
  const Callee callee = resolveCallee(fn, pc);
  if (!callee.value.is(flow::Value::Kind::LuaFunction) || callee.value.proto >= fn.chunk.prototypes.size() ||
      depth >= kDepth || fn.calls.runsLoop(callee.value.proto))
    return false;
  const FunctionView body = fn.of(callee.value.proto);
  std::string stitched;
  // A trace stitched inside a function called through pcall resumes above
  // the pcall frame and cannot return into it (audit 55: `NYI: return to
  // lower frame`); one that starts in a vararg frame stops at its return
  // with a return link, since lj_record_ret returns to a lower frame that
  // is not a Lua frame via the interpreter (audit 54: `TRACE 2 (1/stitch)
  // ... return`). Either way, on any path that stitches.
  if (callee.protectedCall || body.proto.isVararg()) {
    const int q = anyStitch(body, &stitched);
    if (q == 0) return false;
    const std::string call = stitchingCall(fn, pc, body, q, stitched);
    if (const std::string where = abortsAfter(body, q); !where.empty())
      abortsFirst =
          "the trace that resumes after " + call + " starts in its frame and may abort at " + where + " first";
    else
      abortsFirst = "the trace that resumes after " + call +
                    (callee.protectedCall
                         ? " starts in its frame above the pcall frame and aborts when it returns into it (NYIRETL)"
                         : " starts in its vararg frame and stops at its return, as a trace does that starts in one "
                           "(lj_record.c, lj_record_ret)");
    return false;
  }
  // Tail calls: one of a builtin the recorder compiles returns to this
  // frame as a return would (audit 56: `return clean(s):lower()`); one of
  // a builtin that stitches, on every path and after no other call that
  // splits, leaves no frame of the helper, so the stitched trace resumes
  // here right after the call (`return os.time()`). Any other may start
  // a trace of its own.
  int tailStitch = 0;
  for (int q = 1; q <= body.proto.size(); ++q) {
    if (!flow::isTailCall(body.proto.at(q).op) || recordedCall(body, q)) continue;
    if (tailStitch != 0 || !tailCallStitches(body, q, stitched)) return false;
    tailStitch = q;
  }
  if (tailStitch != 0) {
    const flow::Routes around =
        flow::routesAround(body.calls.branches(body.index), tailStitch, 1, std::numeric_limits<int>::max(), true);
    if (splittingCall(body, 1, tailStitch, depth + 1) != 0 || around.compiles || around.aborts) return false;
    // Nor when every path to it runs a bytecode the recorder refuses: the
    // trace aborts there and never gets to the stitch (audit 97: the
    // closure that `return coroutine.wrap(function() ... end)` makes).
    if (flow::blockedOnEveryPass(body.calls.branches(body.index),
                                 flow::refusedPcs(body.proto, flow::refusedBytecodes(fn.profile)), 1, tailStitch - 1))
      return false;
    what = functionName(fn, callee.value.proto) + " (its tail call of " + stitched + " at line " +
           std::to_string(body.proto.at(tailStitch).line) + ")";
    return true;
  }
  const SplitBefore inside = splitBeforeAt(body, 1, body.proto.size() + 1, depth + 1);
  if (inside.stitchLine == 0) {
    // A helper of the helper may stitch and not get back (audit 55).
    if (!inside.resumedMayAbort.empty())
      abortsFirst = "in " + functionName(fn, body.index) + " (called at line " + std::to_string(fn.proto.at(pc).line) +
                    "), " + inside.resumedMayAbort;
    return false;
  }
  const std::string call = stitchingCall(fn, pc, body, inside.stitchPc, inside.stitchCallee);
  if (const std::string where = abortsAfter(body, inside.stitchPc); !where.empty()) {
    abortsFirst = "the trace that resumes after " + call + " starts in its frame and may abort at " + where + " first";
    return false;
  }
  what = functionName(fn, callee.value.proto) + " (its call of " + inside.stitchCallee + " at line " +
         std::to_string(inside.stitchLine) + ")";
  return true;
}

// " of string.sub", " of parse", " of the method sub": which call at pc,
// for a reasoning that names its line (a line may hold several calls:
// audit 70, "the call at line 7" read as the site itself); empty when the
// callee has no name.
std::string calleeWords(const FunctionView& fn, int pc) {
  const flow::Value callee = resolveCallee(fn, pc).value;
  if (callee.is(flow::Value::Kind::LuaFunction)) return " of " + functionName(fn, callee.proto);
  if (callee.kind == flow::Value::Kind::Method && !callee.name.empty())
    return " of the method " + std::string(callee.name);
  if (!callee.name.empty() && callee.kind != flow::Value::Kind::Unknown) return " of " + std::string(callee.name);
  if (const std::string* method = methodCalledAt(fn, pc)) return " of the method " + *method;
  return {};
}

// The call at pc ends the trace or leaves what follows it to the
// interpreter: a RETURN (results feeding a variable count, error), a
// protected call (a trace resumed inside it cannot return into the pcall
// frame), or a callee the file does not resolve whose results feed a
// variable count.
bool leavesTraceAt(const FunctionView& fn, int pc) {
  // A trace that starts in an __index function returns into the VM's
  // metamethod frame, below its base and no Lua frame: it stops there
  // (lj_record.c lj_record_ret, a return link) or aborts (NYIRETL after a
  // stitch in it, audit 83), and no trace resumes after the read. So does
  // an operator's metamethod.
  if (readsOrOperates(fn, pc)) return true;
  if (std::optional<CallSplit> split = splitAt(fn, pc); split && split->endsTrace) return true;
  const Callee callee = resolveCallee(fn, pc);
  if (callee.protectedCall) return true;
  return !callee.value.known() && nextFeedsVariableCount(fn.proto, pc);
}

// leavesTraceAt, kept in fn.splitting at depth 0.
bool leavesTraceKept(const FunctionView& fn, int pc, int depth) {
  SplittingCalls::Calls* calls = kept(fn, depth);
  if (!calls) return leavesTraceAt(fn, pc);
  signed char& known = calls->leavesTrace.at(static_cast<std::size_t>(pc));
  if (known < 0) known = leavesTraceAt(fn, pc) ? 1 : 0;
  return known != 0;
}

SplitBefore splitBeforeAt(const FunctionView& fn, int from, int to, int depth) {
  SplitBefore out;
  std::vector<int> splits;
  out.line = splittingCall(fn, from, to, depth, &splits);
  if (splits.empty()) return out;
  out.pc = splits.front();
  out.pcs = splits;
  out.fieldRead = isFieldRead(fn.proto.at(out.pc).op);
  if (objectOperationAt(fn, out.pc)) out.operatorSymbol = std::string(flow::operatorOf(fn.proto.at(out.pc).op));
  out.unresolved = !out.fieldRead && out.operatorSymbol.empty() && !resolveCallee(fn, out.pc).value.known();
  out.endsTrace = leavesTraceKept(fn, out.pc, depth);
  // A pass that goes around every one of them reaches `to` in the root
  // trace (audit 56: `if debug_on then print(...) end` before a closure).
  const std::vector<flow::Branch>& branches = fn.calls.branches(fn.index);
  flow::RouteSweep routes(branches, from, to, false);
  const bool skippable = std::all_of(splits.begin(), splits.end(), [&](int pc) { return routes.around(pc); });
  if (skippable) {
    out.skippableLine = out.line;
    out.line = 0;
    out.pc = 0;
    out.fieldRead = false;
    out.operatorSymbol.clear();
    out.unresolved = false;
    out.endsTrace = false;
    return out;
  }
  for (int pc : splits)
    if (!routes.around(pc) && leavesTraceKept(fn, pc, depth)) {
      out.endingPc = pc;
      break;
    }
  // The last such call surely stitches and runs on every path from `from`
  // to `to` (no branch goes around it: every_pass.h), and none before it
  // leaves what follows to the interpreter, so some trace gets to it.
  const int last = splits.back();
  for (int pc : splits)
    if (pc != last && leavesTraceKept(fn, pc, depth)) return out;
  // A call before it of what the tracker cannot name (a table called
  // through its __call, a function passed in or stored elsewhere) may
  // abort every trace that records it, and then none gets to the stitch
  // (audit 104: `List()` of a pl.class-style class, whose constructor
  // closes upvalues, before `require 'string'`: `-jv` shows no stitch).
  auto namesNoFunction = [](const flow::Value& v) {
    using K = flow::Value::Kind;
    return !v.known() || v.is(K::Table) || v.is(K::Instance) || v.is(K::Receiver) || v.is(K::Global);
  };
  for (int pc : splits)
    if (pc != last && !isFieldRead(fn.proto.at(pc).op) && !objectOperationAt(fn, pc) &&
        namesNoFunction(resolveCallee(fn, pc).value)) {
      out.resumedMayAbort = "the call at line " + std::to_string(fn.proto.at(pc).line) +
                            " goes to what the bytecode does not name (a table called through __call, a function "
                            "passed in or stored elsewhere), which may abort every trace that records it before "
                            "the call" + calleeWords(fn, last) + " at line " + std::to_string(fn.proto.at(last).line) +
                            " stitches";
      return out;
    }
  std::string what;
  if (!surelyStitches(fn, last, depth, what, out.resumedMayAbort)) {
    std::string likely;
    if (out.resumedMayAbort.empty() && stitchesAt(fn, last, &likely) == Confidence::Likely &&
        resolveCallee(fn, last).receiverGuessed()) {
      const flow::Routes around = flow::routesAround(branches, last, from, to, from <= 1);
      if (!around.compiles && !around.aborts) {
        out.likelyStitchLine = fn.proto.at(last).line;
        out.likelyStitchCallee = likely;
      }
      return out;
    }
    // The last one may end the trace there and return to the interpreter
    // (a RETURN, a call through pcall): then no trace resumes after it,
    // and what follows may never be recorded (audit 58: `pcall(tostring,
    // t)`, `TRACE 1 ... return`, no abort at the closure after it).
    if (out.resumedMayAbort.empty() && isFieldRead(fn.proto.at(last).op))
      out.resumedMayAbort = "the field read at line " + std::to_string(fn.proto.at(last).line) +
                            " may call an __index function that runs a loop or splits the trace, and a trace that "
                            "starts in it stops when it returns into the VM's metamethod frame: then no trace "
                            "resumes after the read";
    else if (out.resumedMayAbort.empty() && objectOperationAt(fn, last))
      out.resumedMayAbort = "the `" + std::string(flow::operatorOf(fn.proto.at(last).op)) + "` at line " +
                            std::to_string(fn.proto.at(last).line) +
                            " calls a metamethod that runs a loop or splits the trace, and a trace that starts in "
                            "it stops when it returns into the VM's metamethod frame: then no trace resumes after "
                            "the operator";
    else if (out.resumedMayAbort.empty() && leavesTraceAt(fn, last))
      out.resumedMayAbort = "the call" + calleeWords(fn, last) + " at line " + std::to_string(fn.proto.at(last).line) +
                            " may end the trace there (a RETURN, or a call through pcall), and then no trace "
                            "resumes after it";
    return out;
  }
  const flow::Routes around = flow::routesAround(branches, last, from, to, from <= 1);
  if (around.compiles || around.aborts) return out;
  // An instruction the recorder refuses before it on every path (the
  // closure made as its own argument, `s:gsub(p, function(c) ... end)`)
  // aborts the trace first: none ever gets to stitch there (audit 101).
  const std::vector<bool>& refused = flow::refusedBytecodes(fn.profile);
  flow::RouteSweep before(branches, from, to, from <= 1);
  for (int q = from; q < last; ++q) {
    const auto op = static_cast<std::size_t>(fn.proto.at(q).op);
    if (op < refused.size() && refused[op] && !before.around(q)) return out;
  }
  out.stitchLine = fn.proto.at(last).line;
  out.stitchPc = last;
  out.stitchCallee = what;
  return out;
}

}  // namespace

SplitBefore splitBefore(const FunctionView& fn, int from, int to) { return splitBeforeAt(fn, from, to, 0); }

bool mayBeSplitBefore(const FunctionView& fn, int from, int to) { return splittingCall(fn, from, to, 0) != 0; }

bool recordedInline(const FunctionView& fn) {
  return !fn.calls.runsLoop(fn.index) && splittingCall(fn, 1, fn.proto.size() + 1, 0) == 0;
}

}  // namespace ljcheck::rules
