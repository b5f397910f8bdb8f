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
// - a function C code calls back (string.gsub's replacement, table.sort's
//   comparator) from a call that runs hot, that tail-calls a fast function
//   the recorder compiles (`return string.format("%02X", c:byte())`): at
//   that call into C, where the VM reports it (reportCallbackTailCall).
// - a function without a loop called through pcall from a loop whose every
//   pass aborts: the loop runs in the interpreter, the function's entry
//   gets hot and its own trace returns into the pcall frame, every time
//   (reportProtectedCalleeOfAbortingLoop).
// - a function that loops and then tail-calls setmetatable: the side traces
//   from the loop's exit return from it into the caller's frame without a
//   snapshot (reportSideEffectTailCallAfterLoop), at each hot call site.
// - a function without loops that stitches and then tail-calls setmetatable:
//   the trace that resumes after the stitch returns from it into the
//   caller's frame without a snapshot (reportStitchThenSideEffectTailCall).
// - an operator whose Lua metamethod ends in a tail call of a fast function,
//   in a loop whose every pass aborts (metamethod_returns.cpp).
#include <algorithm>

#include "flow/every_pass.h"
#include "flow/instruction_effects.h"
#include "flow/loop_exits.h"
#include "flow/loops.h"
#include "flow/refused_bytecodes.h"
#include "rules/frame_returns.h"
#include "rules/masking.h"
#include "rules/prediction_sink.h"
#include "rules/rule.h"
#include "rules/split_finding.h"
#include "rules/trace_splits_before.h"

namespace ljcheck::rules {

int abortOnEveryPass(const FunctionView& fn, const flow::CallSite& site, long turns) {
  const flow::LoopMap& loops = fn.calls.loopMap(site.proto);
  const flow::Loop* loop = loops.innermost(site.pc);
  if (!loop) return abortBeforeInHelper(fn, site, turns);
  const auto& proto = fn.chunk.prototypes[site.proto];
  std::vector<bool> reached;
  const std::vector<flow::Branch>& branches = fn.calls.branches(site.proto);
  for (int pc = loop->first; pc <= loop->last; ++pc) {
    if (!flow::refuses(fn.profile, proto.at(pc).op) || loops.innermost(pc) != loop) continue;
    if (reached.empty()) reached = flow::reachablePcs(proto);
    if (!reached[static_cast<std::size_t>(pc)] || !fn.values.reached(site.proto, pc)) continue;
    // One a branch can go around is not the one every pass reaches (audit
    // 89: a closure behind `if p.x < 0`, the upvalue close after it).
    const flow::Routes around = flow::routesAround(branches, pc, loop->first, loop->last, false);
    if (around.compiles || around.aborts) continue;
    if (fn.calls.steadyRunsAt(site.proto, pc) >= turns && splitBefore(fn.of(site.proto), loop->first, pc).line == 0)
      return pc;
  }
  return 0;
}

// Outside loops: an instruction the recorder refuses that every call of
// the function runs before the call at `site`, with no split before it,
// where the function runs at least `turns` times on every pass of its
// callers' loops: every trace through it, its callers' and its own entry's,
// aborts there, so the call always runs in the interpreter (audit 106:
// orbit's and coxpcall's `xpcall(function() return h(req) end, tb)`, the
// closure itself the abort).
int abortBeforeInHelper(const FunctionView& fn, const flow::CallSite& site, long turns) {
  const auto& proto = fn.chunk.prototypes[site.proto];
  const std::vector<flow::Branch>& branches = fn.calls.branches(site.proto);
  std::vector<bool> reached;
  for (int pc = 1; pc < site.pc; ++pc) {
    if (!flow::refuses(fn.profile, proto.at(pc).op)) continue;
    if (reached.empty()) reached = flow::reachablePcs(proto);
    if (!reached[static_cast<std::size_t>(pc)] || !fn.values.reached(site.proto, pc)) continue;
    const flow::Routes around = flow::routesAround(branches, pc, 1, proto.size(), true);
    if (around.compiles || around.aborts) return 0;  // the first one decides: a pass may go around it
    if (fn.calls.steadyRunsAt(site.proto, pc) >= turns && splitBefore(fn.of(site.proto), 1, pc).line == 0) return pc;
    return 0;
  }
  return 0;
}

namespace {

using bytecode::Op;

// The advice for a tail call of a fast function that leaves no frame:
// "in f, assign the result to a local and return the local (local o =
// setmetatable(...) return o): <why>".
std::string returnALocal(const std::string& function, const std::string& callee, const char* local,
                         const char* why) {
  return "in " + function + ", assign the result to a local and return the local (local " + local + " = " + callee +
         "(...) return " + local + "): " + why;
}

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

// The tail call a function ends with after its last loop, when every call
// from that loop's exit to it is one the recorder compiles and the tail
// call itself is to such a fast function: the shape whose return comes from
// a fast function. `lastLoop` null for a function without loops; none for a
// loop behind a branch (how often its exit runs depends on the data).
struct TailCallAfterLoops {
  const flow::Loop* lastLoop = nullptr;
  int pc = 0;  // 0: none
  const FastFunctionDef* callee = nullptr;
};
TailCallAfterLoops compiledTailCallAfterLoops(const FunctionView& fn) {
  TailCallAfterLoops out;
  for (const auto& loop : fn.loops.loops())
    if (!out.lastLoop || loop.last > out.lastLoop->last) out.lastLoop = &loop;
  if (out.lastLoop && flow::jumpAround(fn.proto, out.lastLoop->first, out.lastLoop->last, fn.proto.size())) return {};
  for (int pc = out.lastLoop ? out.lastLoop->last + 1 : 1; pc <= fn.proto.size(); ++pc) {
    const bytecode::Op op = fn.proto.at(pc).op;
    if (!flow::isCallOrIterator(op)) continue;
    const FastFunctionDef* ff = recordedCall(fn, pc);
    if (!ff) return {};
    if (!flow::isTailCall(op)) continue;
    if (!flow::reachablePcs(fn.proto)[static_cast<std::size_t>(pc)]) return {};
    out.pc = pc;
    out.callee = ff;
    return out;
  }
  return {};
}

// A function that C code calls back from a call that runs hot is entered
// from C every time, so its entry gets hot (2 * hotloop calls) and starts a
// trace of its own, which reaches the C frame below when the function
// returns. A Lua return there ends the trace (a return link), and so does a
// tail call to an unrecorded function (RETURN, call_splits.cpp); but after
// a tail call to a fast function the recorder compiles, the return comes
// from that fast function, which lj_record_ret does not stop at: "NYI:
// return to lower frame", every time. The VM reports it below the C frame,
// at the Lua line that called the C function (Debian's luajit names that
// frame, OpenResty's luajit2 the fast function, and the collector then the
// innermost Lua frame: the same line). Verified with `luajit -jv` on both:
// the callback's start aborts until blacklisted. A vararg function (FUNCV)
// is never hot-counted. In a function with loops, the side traces from the
// last loop's exit record the tail call instead, and abort there the same
// way (basexx's to_bit: `luajit -jv` shows 4 aborts of `(1/4)` at the gsub
// call, then the exit is left to the interpreter). Any other call before
// the tail call (after the last loop) may stitch, abort or run a trace of
// its own, and the trace that reaches the tail call then starts elsewhere:
// such a function is left out.
void reportCallbackTailCall(const FunctionView& fn, PredictionSink& sink) {
  if (fn.isMain() || fn.proto.isVararg() || fn.calls.callbacks(fn.index).empty()) return;
  const TailCallAfterLoops found = compiledTailCallAfterLoops(fn);
  if (!found.pc) return;
  const flow::Loop* lastLoop = found.lastLoop;
  const int tailCall = found.pc;
  const FastFunctionDef* ff = found.callee;
  // What records the tail call: the callback's own entry trace, or the side
  // traces from its last loop's exit.
  const std::string traces =
      lastLoop ? "the side traces from the exit of its loop at line " + std::to_string(loopLine(fn, lastLoop->first)) +
                     " record that tail call, each aborting there, until the exit is left to the interpreter"
               : "its entry gets hot (" + std::to_string(2 * fn.calls.hotloop()) +
                     " calls) and starts traces of its own, each aborting there";
  const std::string self = functionName(fn, fn.index);
  for (const auto& site : fn.calls.callbacks(fn.index)) {
    flow::HeatEvidence e = fn.calls.evidenceAt(site.proto, site.pc);
    if (e.heat < flow::Heat::Likely) continue;
    const auto& caller = fn.chunk.prototypes[site.proto];
    const flow::Value library = fn.values.at(site.proto, site.pc, flow::calleeSlot(caller.at(site.pc)));
    // Where the call runs hot: its loop, or the function around it (called from one).
    const std::string hot = e.loop ? ", in the loop at line " + std::to_string(e.loop->line) + loopEvidence(fn.calls, e)
                                   : ", in " + functionName(fn, site.proto) + ", which runs hot";
    // A tail call into C (`return string.gsub(s, p, f)`) leaves no frame of
    // its caller: the frame below the C function's is the caller's caller,
    // and the VM reports the abort at each call of the function that makes
    // it (audit 51: socket.url's protect_segment, reported at url.lua:319,
    // not at the gsub); through a chain of such helpers too (`outer(s)`
    // that returns `protect(s)`: audit 52), each with the function written
    // at the call (tailCallLandings).
    std::vector<TailCallLanding> reportedAt{{site, site.proto}};
    if (flow::isTailCall(caller.at(site.pc).op)) {
      reportedAt = tailCallLandings(fn, site.proto);
      reportedAt.erase(std::remove_if(reportedAt.begin(), reportedAt.end(),
                                      [](const TailCallLanding& l) { return l.site.protectedCall; }),
                       reportedAt.end());
    }
    for (const auto& [at, called] : reportedAt) {
      Finding f;
      f.proto = at.proto;  // where the VM reports it: the call into C, or the call of the function that tail-calls it
      f.pc = at.pc;
      if (at.proto != site.proto) f.calledAs = functionName(fn, called);
      f.sideTrace = true;     // never the caller's loop that blacklists
      f.calleeTraces = true;  // the callback's own traces abort, whatever the caller's do
      f.reasonId = ReasonId::traceError("NYIRETL");
      f.construct = "call";
      f.callee = std::string(library.name);
      f.confidence = Confidence::Likely;
      f.message = at.proto == site.proto
                      ? "the traces of " + self + ", which " + f.callee + " calls back from here, cannot return into " +
                            f.callee + " (NYIRETL): its tail call to " + ff->name + " returns straight to this C frame"
                      : "the traces of " + self + ", which " + f.callee + " calls back in " +
                            functionName(fn, site.proto) + ", cannot return into " + f.callee + " (NYIRETL): its tail "
                            "call to " + ff->name + " returns straight to that C frame, which " +
                            functionName(fn, site.proto) + " tail-called" +
                            (called == site.proto ? std::string() : " (through " + functionName(fn, called) + ")") +
                            ", so the abort shows at this call";
      f.reasoning = self + " tail-calls " + ff->name + " at line " + std::to_string(fn.proto.at(tailCall).line) +
                    ", a fast function the recorder compiles, so the return comes from " + ff->name +
                    ", which the recorder cannot return from into C code; " + f.callee + " calls " + self +
                    " back from C at line " + std::to_string(caller.at(site.pc).line) + hot + ", so " + traces +
                    (at.proto == site.proto
                         ? "; the VM reports the abort at this call"
                         : "; " + functionName(fn, site.proto) + " tail-calls " + f.callee +
                               (called == site.proto ? ", so no frame of it is left"
                                                     : ", and " + functionName(fn, called) +
                                                           " tail-calls it in turn, so no frame of either is left") +
                               " below the C frame, and the VM reports the abort at this call of " +
                               functionName(fn, called));
      f.advice = returnALocal(self, ff->name, "s", "a return from Lua code ends the trace cleanly");
      sink.report(fn, std::move(f));
    }
  }
}

// A pcall from a loop that runs in the interpreter ticks the callee's own
// hot counter at each call (the loop's compiled code would have inlined
// it): after 2 * hotloop calls the callee starts a trace at its entry, and
// at its return the frame below is pcall's, which lj_record_ret refuses at
// the trace's base (framedepth 0): "NYI: return to lower frame", each time
// the counter fires again, until the entry is blacklisted. Verified with
// `luajit -jv` on Debian's luajit and OpenResty's luajit2: one abort after
// 130 turns of a loop holding a closure, four after 1,000, eleven and a
// blacklisted entry after 100,000. The callee must get to its return in
// that trace: no loop of its own (its traces would start there), no vararg
// frame (never hot-counted), no tail call, no refused instruction, and no
// call but those the recorder compiles. Certain with one reachable return
// (the path it takes is the trace's); likely with several.
void reportProtectedCalleeOfAbortingLoop(const FunctionView& fn, PredictionSink& sink) {
  if (fn.isMain() || fn.proto.isVararg() || !fn.loops.loops().empty()) return;
  const std::vector<bool> reached = flow::reachablePcs(fn.proto);
  const std::vector<bool>& refused = flow::refusedBytecodes(fn.profile);
  std::vector<int> returns;
  for (int pc = 1; pc <= fn.proto.size(); ++pc) {
    if (!reached[static_cast<std::size_t>(pc)]) continue;
    const Op op = fn.proto.at(pc).op;
    if (flow::refuses(refused, op) || flow::isTailCall(op)) return;
    if (flow::isCallOrIterator(op) && !recordedCall(fn, pc)) return;
    if (flow::isReturn(op)) returns.push_back(pc);
  }
  if (returns.empty()) return;
  // Enough turns that the interpreted calls surely reach the callee's
  // threshold between the loop's tries (measured: 130 suffice).
  const long turns = 4 * fn.calls.hotloop();
  // The pcalls whose frame its returns land in: its own, and those of a
  // function that tail-calls it and is called only through pcall (the
  // wrapper `function() return h(req) end` handed to xpcall, audit 106).
  struct Protected {
    flow::CallSite site;
    std::size_t through = SIZE_MAX;  // the wrapper, when through one
    int tailCallLine = 0;
  };
  std::vector<Protected> protectedSites;
  bool onlyProtected = fn.calls.callbacks(fn.index).empty() && !fn.calls.externalCaller(fn.index);
  for (const auto& site : fn.calls.callers(fn.index)) {
    if (site.protectedCall) {
      protectedSites.push_back({site});
      continue;
    }
    const auto& call = fn.chunk.prototypes[site.proto].at(site.pc);
    bool wrapped = flow::isTailCall(call.op) && site.proto != fn.index && !fn.calls.callers(site.proto).empty() &&
                   fn.calls.callbacks(site.proto).empty() && !fn.calls.externalCaller(site.proto);
    for (const auto& outer : fn.calls.callers(site.proto)) wrapped = wrapped && outer.protectedCall;
    onlyProtected = onlyProtected && wrapped;
    if (!wrapped) continue;
    for (const auto& outer : fn.calls.callers(site.proto)) protectedSites.push_back({outer, site.proto, call.line});
  }
  for (const auto& [site, through, tailCallLine] : protectedSites) {
    const int abortPc = abortOnEveryPass(fn, site, turns);
    if (!abortPc) continue;
    const auto& caller = fn.chunk.prototypes[site.proto];
    const std::string self = functionName(fn, fn.index);
    const flow::HeatEvidence e = fn.calls.evidenceAt(site.proto, site.pc);
    const flow::Loop* around = fn.calls.loopMap(site.proto).innermost(site.pc);
    const int loopLine = e.loop ? e.loop->line : around ? caller.at(around->first).line : 0;
    const long calls = fn.calls.runsAt(site.proto, site.pc);
    // Behind a branch the passes that make the call may be too few to get
    // the entry hot (audit 61: `if i % 1000 == 0 then pcall(flush) end`,
    // 100 calls, no NYIRETL; from 125 on one or two).
    // A way around the call that aborts too counts for the loop's runs,
    // not for the calls.
    flow::CallGraph::CountStop stop;
    const long steady = fn.calls.steadyRunsAt(site.proto, site.pc, &stop);
    std::string shortfall;
    if (stop.abortingRoute > 0)
      shortfall = ", not on every pass: the path from line " + std::to_string(stop.abortingRoute) +
                  " goes around the call";
    else if (steady < turns && stop.kind != flow::CallGraph::CountStop::Kind::None)
      shortfall = ", not on every pass: " + flow::CallGraph::describeStop(stop, caller.at(site.pc).line, "");
    if (!shortfall.empty()) shortfall += ", so whether they get its entry hot the data decides";
    for (int pc : returns) {
      Finding f;
      f.pc = pc;
      f.calleeTraces = true;  // the callee's own traces, whatever its caller's do
      f.reasonId = ReasonId::traceError("NYIRETL");
      f.construct = "return";
      // A call not through pcall may have compiled a trace at the entry
      // first, which returns cleanly to a Lua frame and which the pcall's
      // calls then run: certain only when every call is a pcall.
      f.confidence =
          returns.size() == 1 && onlyProtected && shortfall.empty() ? Confidence::Certain : Confidence::Likely;
      if (shortfall.empty()) f.entryCalls = steady;
      f.message = "the traces that start at " + self + "'s entry cannot return into the pcall frame below (NYIRETL)";
      const std::string how =
          through == SIZE_MAX ? " is called through pcall at line " + std::to_string(caller.at(site.pc).line)
                              : " is tail-called at line " + std::to_string(tailCallLine) + " by " +
                                    functionName(fn, through) + ", which is called through pcall at line " +
                                    std::to_string(caller.at(site.pc).line) + ", so its returns land in the pcall frame,";
      const std::string where = around ? " in the loop at line " + std::to_string(loopLine) + ", whose every pass reaches the "
                                       : " in " + functionName(fn, site.proto) + ", whose every call reaches the ";
      f.reasoning =
          self + how + where + std::string(bytecode::opName(caller.at(abortPc).op)) + " at line " +
          std::to_string(caller.at(abortPc).line) + (around ? "" : " first") + ", which the recorder refuses: " +
          (around ? "the loop runs" : "the pcall runs") + " in the interpreter, so " + self +
          "'s entry gets hot (" + std::to_string(2 * fn.calls.hotloop()) + " calls; the bytecode shows " +
          std::to_string(calls) + shortfall + ") and starts traces of its own, which reach the pcall frame at this return" +
          (returns.size() == 1 ? "" : ", one of " + std::to_string(returns.size()) + " a trace may take");
      f.advice = around ? "move the closure (or what else aborts) out of the loop at line " + std::to_string(loopLine) +
                              ": once the loop compiles, the pcall is recorded with " + self + " inlined"
                        : "move the closure (or what else aborts) at line " + std::to_string(caller.at(abortPc).line) +
                              " out of " + functionName(fn, site.proto) + ": once the calling loop compiles, the pcall "
                              "is recorded with " + self + " inlined";
      sink.report(fn, std::move(f));
    }
    return;  // one calling loop is enough
  }
}

// The fast functions whose recorders store (setmetatable, rawset,
// table.insert, table.clear: lj_record_idx and friends) or start catching
// on-trace errors (string.find, lj_ffrecord.c recff_string_find; every
// string buffer method, recff_sbufx_check): each sets J->needsnap, so a
// return straight after it needs a snapshot it has none for (audit 95:
// `return buf:tostring()` after a loop of puts, 4 aborts per exit on both
// builds).
bool setsSnapshotNeed(std::string_view name) {
  return name == "setmetatable" || name == "rawset" || name == "table.insert" || name == "table.clear" ||
         name == "string.find" || name.rfind("buffer.method.", 0) == 0;
}

// A call site a return from a function lands in, and the tail call it went
// through to get there (line 0: none).
struct ReturnSite {
  flow::CallSite site;
  int throughLine = 0;
  std::string throughName;  // the function whose tail call it went through
};

// The call sites whose frame a return from function `proto` lands in: its
// callers' calls, and through a caller's tail call (`return filter(self,
// pred)`, whose frame the callee's takes over) that caller's own callers'
// (audit 100: Penlight's List:filter tail-calling tablex.filter; `-jv`
// reports the NYIRETL at the line that called List:filter, never at the
// tail call). Calls through pcall return into its frame instead: left out.
std::vector<ReturnSite> framesReturnedTo(const FunctionView& fn, std::size_t proto) {
  std::vector<ReturnSite> out;
  std::vector<std::size_t> seen{proto};
  std::vector<std::pair<std::size_t, ReturnSite>> work;  // a function, and the tail call that led to it
  work.emplace_back(proto, ReturnSite{});
  while (!work.empty() && seen.size() < 16) {
    auto [callee, via] = work.back();
    work.pop_back();
    for (const auto& site : fn.calls.callers(callee)) {
      if (site.protectedCall) continue;
      const auto& ins = fn.chunk.prototypes[site.proto].at(site.pc);
      if (!flow::isTailCall(ins.op)) {
        out.push_back({site, via.throughLine, via.throughName});
        continue;
      }
      if (std::find(seen.begin(), seen.end(), site.proto) != seen.end()) continue;
      seen.push_back(site.proto);
      work.emplace_back(site.proto, ReturnSite{site, via.throughLine ? via.throughLine : ins.line,
                                               via.throughLine ? via.throughName : functionName(fn, site.proto)});
    }
  }
  return out;
}

// "this call, at line 29" or "the call at line 29, through List:filter's tail
// call at line 19": the frame a return lands in, for the reasoning.
std::string frameReturnedTo(const FunctionView& fn, const ReturnSite& r) {
  const int line = fn.chunk.prototypes[r.site.proto].at(r.site.pc).line;
  if (r.throughLine == 0) return "this call, at line " + std::to_string(line);
  return "this call, at line " + std::to_string(line) + ", through " + r.throughName + "'s tail call at line " +
         std::to_string(r.throughLine);
}

// The NYIRETL of side traces that return from `self` into the call at
// `site`: reported there, where the VM reports it (the caller's frame),
// likely, and no blacklisting of the caller's loop (side traces only).
Finding sideTraceReturn(const flow::CallSite& site, const std::string& self) {
  Finding f;
  f.proto = site.proto;
  f.pc = site.pc;
  f.sideTrace = true;
  f.calleeTraces = true;
  f.reasonId = ReasonId::traceError("NYIRETL");
  f.construct = "call";
  f.callee = self;
  f.confidence = Confidence::Likely;
  return f;
}

// A function whose loop's exit runs on every call (no branch goes around
// the loop) and that then tail-calls setmetatable, with only calls the
// recorder compiles in between (lua-inifile's parse: a loop, then `return
// setmetatable(t, mt)`): the side traces from that exit record the tail
// call in the function's own frame, and the return from a fast function
// with side effects into the caller's frame has no snapshot to guard it
// (lj_record.c lj_record_ret: "Tailcalled to ff with side-effects"). NYIRETL,
// 4 times per exit, then the exit is left to the interpreter; `luajit -jv`
// reports it at the caller's line, where the prediction goes, at each call
// site that runs hot. A function called through pcall returns into its
// pcall frame instead (the protected case of the rule below).
void reportSideEffectTailCallAfterLoop(const FunctionView& fn, PredictionSink& sink) {
  const TailCallAfterLoops found = compiledTailCallAfterLoops(fn);
  if (!found.pc || !found.lastLoop || fn.proto.at(found.pc).op != Op::CALLT || !setsSnapshotNeed(found.callee->name))
    return;
  const flow::Loop* lastLoop = found.lastLoop;
  // A loop of a few turns is unrolled into the caller's trace, which returns
  // from the function as from any inlined call (measured: 1, 2 and 3 turns
  // show LLEAVE only, 5 and 8 turns NYIRETL).
  constexpr long kUnrolledHere = 3;
  if (const flow::LoopTrips* trips = fn.calls.evidenceAt(fn.index, lastLoop->last).loop;
      trips && trips->known && trips->count <= kUnrolledHere)
    return;
  const int tailCall = found.pc;
  const std::string tailCallee = found.callee->name;
  const std::string self = functionName(fn, fn.index);
  // Entered often enough (hotexit) from a loop, the exit of its own hot
  // loop gets hot, however cold the calls are (HeatEvidence::afterLoop).
  const bool exitHot = fn.calls.evidenceAt(fn.index, tailCall).afterLoop != nullptr;
  for (const ReturnSite& returned : framesReturnedTo(fn, fn.index)) {
    const flow::CallSite& site = returned.site;
    if (!fn.calls.runsHot(site.proto, site.pc) && !(exitHot && fn.calls.inLoop(site.proto, site.pc))) continue;
    Finding f = sideTraceReturn(site, self);
    f.message = "the side traces of " + self + "'s loop cannot return into this call (NYIRETL): " + self +
                " tail-calls " + tailCallee + ", a fast function with side effects, at line " +
                std::to_string(fn.proto.at(tailCall).line);
    f.reasoning = self + " loops at line " + std::to_string(loopLine(fn, lastLoop->first)) +
                  " on every call, and the side traces from that loop's exit record its tail call to " + tailCallee +
                  " at line " + std::to_string(fn.proto.at(tailCall).line) +
                  " in its own frame: the return from a fast function with side effects into the frame below "
                  "(" + frameReturnedTo(fn, returned) +
                  ") has no snapshot to guard it (lj_record.c lj_record_ret), 4 times per exit, and then the exit "
                  "is left to the interpreter";
    f.advice = returnALocal(self, tailCallee, "o", "the return then gets its snapshot");
    sink.report(fn, std::move(f));
  }
}

// The same when the loop is a callee's: a function without loops that
// calls, with no branch around the call, a function of this file whose
// loop's exit side trace surely returns into it (callRunsLoop's `sure`),
// and then, with only calls the recorder compiles in between, tail-calls a
// fast function with side effects (audit 105: resty.websocket's
// server:new, a base64 helper's loop, then `return setmetatable(...)`;
// `-jv`: 4 aborts at the calling line, on both builds). Any other call
// that the recorder does not compile may stitch or abort: left out.
void reportSideEffectTailCallAfterLoopingCall(const FunctionView& fn, PredictionSink& sink) {
  if (fn.isMain() || !fn.loops.loops().empty()) return;
  int looping = 0, tailCall = 0;
  const FastFunctionDef* ff = nullptr;
  std::size_t looper = 0;
  for (int pc = 1; pc <= fn.proto.size() && !tailCall; ++pc) {
    const Op op = fn.proto.at(pc).op;
    if (!flow::isCallOrIterator(op)) continue;
    if (flow::isTailCall(op)) {
      ff = recordedCall(fn, pc);
      if (!looping || op != Op::CALLT || !ff || !setsSnapshotNeed(ff->name)) return;
      tailCall = pc;
      continue;
    }
    if (recordedCall(fn, pc)) continue;
    const flow::Value callee = calleeAt(fn, pc);
    bool sure = false;
    if (!callee.is(flow::Value::Kind::LuaFunction) || callee.proto >= fn.chunk.prototypes.size() ||
        !callRunsLoop(fn.chunk, fn.index, fn.values, fn.calls, pc, &sure) || !sure)
      return;
    looping = pc;
    looper = callee.proto;
  }
  if (!tailCall || !flow::reachablePcs(fn.proto)[static_cast<std::size_t>(tailCall)] ||
      flow::jumpAround(fn.proto, looping, looping, tailCall))
    return;
  // A loop of a few turns is unrolled into the trace that calls it.
  constexpr long kUnrolledHere = 3;
  for (const flow::Loop& loop : fn.calls.loopMap(looper).loops())
    if (const flow::LoopTrips* trips = fn.calls.evidenceAt(looper, loop.last).loop;
        trips && trips->known && trips->count <= kUnrolledHere)
      return;
  const std::string self = functionName(fn, fn.index), helper = functionName(fn, looper);
  for (const ReturnSite& returned : framesReturnedTo(fn, fn.index)) {
    const flow::CallSite& site = returned.site;
    if (!fn.calls.runsHot(site.proto, site.pc)) continue;
    Finding f = sideTraceReturn(site, self);
    f.message = "the side traces of " + helper + "'s loop cannot return into this call (NYIRETL): " + self +
                " calls " + helper + " and then tail-calls " + ff->name + ", a fast function with side effects, at line " +
                std::to_string(fn.proto.at(tailCall).line);
    f.reasoning = self + " calls " + helper + " at line " + std::to_string(fn.proto.at(looping).line) +
                  " on every call, and the side traces from the exit of " + helper +
                  "'s loop return into " + self + " and record its tail call to " + ff->name + " at line " +
                  std::to_string(fn.proto.at(tailCall).line) +
                  ": the return from a fast function with side effects into the frame below (" +
                  frameReturnedTo(fn, returned) +
                  ") has no snapshot to guard it (lj_record.c lj_record_ret), 4 times per exit, and then the exit "
                  "is left to the interpreter";
    f.advice = returnALocal(self, ff->name, "o", "the return then gets its snapshot");
    sink.report(fn, std::move(f));
  }
}

// A function without loops that calls a builtin the recorder stitches
// around and then tail-calls a fast function with side effects (a
// constructor's `local a = s:match(...)` then `return setmetatable({...},
// mt)`): the trace that resumes after the stitch starts in the function's
// own frame, and the return from that tail call into the caller's frame has
// no snapshot to guard it (lj_record.c lj_record_ret: "Tailcalled to ff
// with side-effects"). Its first abort links the stitching trace to itself,
// so what follows the builtin's call runs interpreted from then on: one
// abort, reported at the caller's line (audit 99: a semver parser; `luajit
// -jv` on both builds, Debian's naming the caller's line, OpenResty's the
// fast function), at each call site of this file that runs hot. A caller
// through pcall returns into its frame instead (the rule below).
void reportStitchThenSideEffectTailCall(const FunctionView& fn, PredictionSink& sink) {
  if (fn.proto.isVararg() || !fn.loops.loops().empty()) return;
  int tailCall = 0;  // the first CALLT: the cheap questions first, most functions have none
  for (int pc = 1; pc <= fn.proto.size() && !tailCall; ++pc)
    if (fn.proto.at(pc).op == Op::CALLT) tailCall = pc;
  if (!tailCall) return;
  const FastFunctionDef* callee = recordedCall(fn, tailCall);
  if (!callee || !setsSnapshotNeed(callee->name)) return;
  std::vector<ReturnSite> hotSites;
  for (const ReturnSite& returned : framesReturnedTo(fn, fn.index))
    if (fn.calls.runsHot(returned.site.proto, returned.site.pc)) hotSites.push_back(returned);
  if (hotSites.empty()) return;
  const std::vector<bool> reached = flow::reachablePcs(fn.proto);
  if (!reached[static_cast<std::size_t>(tailCall)]) return;
  int returns = 0;
  for (int pc = 1; pc <= fn.proto.size(); ++pc) {
    const Op op = fn.proto.at(pc).op;
    if (reached[static_cast<std::size_t>(pc)] && (flow::isReturn(op) || flow::isTailCall(op))) ++returns;
  }
  const SplitBefore split = splitBefore(fn, 1, tailCall);
  const int stitchLine = split.stitchLine > 0 ? split.stitchLine : split.likelyStitchLine;
  if (stitchLine == 0 || split.endsTrace) return;
  const std::string& stitched = split.stitchLine > 0 ? split.stitchCallee : split.likelyStitchCallee;
  const std::string self = functionName(fn, fn.index);
  const std::string tailLine = std::to_string(fn.proto.at(tailCall).line);
  for (const ReturnSite& returned : hotSites) {
    const flow::CallSite& site = returned.site;
    Finding f;
    f.proto = site.proto;  // where the VM reports it: the caller's frame it returns to
    f.pc = site.pc;
    f.sideTrace = true;  // the stitched trace: the caller's loop keeps its own trace
    f.calleeTraces = true;
    f.passesEndInterpreted = true;
    f.reasonId = ReasonId::traceError("NYIRETL");
    f.construct = "call";
    f.callee = self;
    f.confidence = split.stitchLine > 0 && returns == 1 ? Confidence::Certain : Confidence::Likely;
    f.message = "the trace that resumes after " + self + "'s call of " + stitched + " cannot return into this call "
                "(NYIRETL): " + self + " tail-calls " + callee->name + ", a fast function with side effects, at "
                "line " + tailLine;
    f.reasoning = self + "'s call of " + stitched + " at line " + std::to_string(stitchLine) +
                  " stitches the trace, and the trace that resumes after it starts in " + self +
                  "'s frame and records its tail call to " + callee->name + " at line " + tailLine +
                  ": the return from a fast function with side effects into the frame below (" +
                  frameReturnedTo(fn, returned) +
                  ") has no snapshot to guard it (lj_record.c lj_record_ret); that first abort links the stitching "
                  "trace to itself, so the rest of " + self + " runs interpreted on every call from then on" +
                  (returns == 1 ? std::string() : ", when that trace takes this return");
    f.advice = returnALocal(self, callee->name, "o", "the return then gets its snapshot");
    sink.report(fn, std::move(f));
  }
}

// A function called through pcall from code that runs hot, which calls a
// builtin the recorder stitches around and then returns: the trace that
// resumes after the stitch starts in the function's own frame, and at its
// return the frame below is pcall's, which lj_record_ret refuses at the
// trace's base (framedepth 0): "NYI: return to lower frame". Its first
// abort links the stitching trace to itself, so what follows the builtin's
// call runs interpreted from then on (audit 81: a row parser under pcall,
// `line:match(...)` then `return tonumber(id), ...`; both builds, one
// abort, never retried). The stitch must be the last call that splits the
// trace before the return, on every path to it, with nothing the recorder
// refuses between them (splitBefore, abortsAfter).
void reportStitchInProtectedCallee(const FunctionView& fn, PredictionSink& sink) {
  if (fn.proto.isVararg()) return;  // a stitched trace in a vararg frame stops at its return instead
  const flow::CallSite* protectedSite = nullptr;
  bool onlyProtected = fn.calls.callbacks(fn.index).empty();
  for (const auto& site : fn.calls.callers(fn.index)) {
    onlyProtected = onlyProtected && site.protectedCall;
    if (site.protectedCall && !protectedSite && fn.calls.runsHot(site.proto, site.pc)) protectedSite = &site;
  }
  if (!protectedSite || fn.calls.externalCaller(fn.index)) return;
  const std::vector<bool> reached = flow::reachablePcs(fn.proto);
  std::vector<int> returns;
  for (int pc = 1; pc <= fn.proto.size(); ++pc)
    if (reached[static_cast<std::size_t>(pc)] && flow::isReturn(fn.proto.at(pc).op)) returns.push_back(pc);
  const auto& caller = fn.chunk.prototypes[protectedSite->proto];
  const std::string self = functionName(fn, fn.index);
  for (int pc : returns) {
    if (fn.loops.inLoop(pc)) continue;
    const SplitBefore split = splitBefore(fn, 1, pc);
    const int stitchLine = split.stitchLine > 0 ? split.stitchLine : split.likelyStitchLine;
    if (stitchLine == 0) continue;
    const std::string& stitched = split.stitchLine > 0 ? split.stitchCallee : split.likelyStitchCallee;
    Finding f;
    f.pc = pc;
    f.reasonId = ReasonId::traceError("NYIRETL");
    f.construct = "return";
    f.aborts = true;  // every trace that resumes after the stitch aborts here
    f.confidence = split.stitchLine > 0 && onlyProtected && returns.size() == 1 ? Confidence::Certain
                                                                                : Confidence::Likely;
    f.message = "the trace that resumes after the call of " + stitched + " at line " + std::to_string(stitchLine) +
                " cannot return into the pcall frame below " + self + " (NYIRETL)";
    f.reasoning = self + " is called through pcall at line " + std::to_string(caller.at(protectedSite->pc).line) +
                  ", and its call of " + stitched + " at line " + std::to_string(stitchLine) +
                  " stitches the trace: the trace that resumes after it starts in " + self +
                  "'s frame, and at this return the frame below is pcall's, which the recorder cannot return into "
                  "at the trace's base (lj_record.c lj_record_ret)" +
                  (returns.size() == 1 ? std::string() : ", at whichever of its returns that trace takes");
    f.advice = "call " + stitched + " outside the function called through pcall, or give " + self +
               " an error return instead of pcall";
    sink.report(fn, std::move(f));
  }
}

class FrameReturnRule final : public Rule {
 public:
  std::string_view name() const override { return "frame-returns"; }
  std::vector<ReasonId> reasons(const RecorderProfile&) const override { return {ReasonId::traceError("NYIRETL")}; }

  void check(const FunctionView& fn, PredictionSink& sink) const override {
    reportMetamethodTailCall(fn, sink);
    if (fn.isMain()) return;
    reportCallbackTailCall(fn, sink);
    reportProtectedCalleeOfAbortingLoop(fn, sink);
    reportSideEffectTailCallAfterLoop(fn, sink);
    reportSideEffectTailCallAfterLoopingCall(fn, sink);
    reportStitchThenSideEffectTailCall(fn, sink);
    reportStitchInProtectedCallee(fn, sink);
    std::string protectedAt = protectedHotCall(fn, fn.index);
    bool vararg = fn.proto.isVararg() && fn.calls.heat(fn.index) >= flow::Heat::Likely;
    if (protectedAt.empty() && !vararg) return;
    int after = afterFirstLoop(fn);
    if (!after) return;
    std::string name = functionName(fn, fn.index);
    // "loops", or "calls params at line 17, which loops": the first loop
    // may be a callee's (afterFirstLoop; audit 102: "methodCall is a
    // vararg function that loops" of a function without a loop).
    std::string loops = "loops", whose = "its";
    if (const Op first = fn.proto.at(after).op; first == Op::CALL || first == Op::CALLM) {
      const flow::Value callee = calleeAt(fn, after);
      if (callee.is(flow::Value::Kind::LuaFunction)) {
        loops = "calls " + functionName(fn, callee.proto) + " at line " + std::to_string(fn.proto.at(after).line) +
                ", which loops";
        whose = "that";
      }
    }
    if (!protectedAt.empty()) reportReturnsInsideLoops(fn, name, protectedAt, sink);
    for (int pc = after + 1; pc <= fn.proto.size(); ++pc) {
      Op op = fn.proto.at(pc).op;
      if (fn.loops.inLoop(pc)) continue;
      std::string why;
      if (!protectedAt.empty() && flow::isReturn(op)) {
        why = name + " is called through pcall at line " + protectedAt + " and " + loops +
              " first, so the side trace from " + whose + " loop's exit returns through the pcall frame";
      } else if (vararg && flow::isTailCall(op)) {
        why = name + " is a vararg function that " + loops + (whose == "its" ? "" : ",") +
              " and then tail-calls here, so the side trace from " + whose +
              " loop's exit leaves the vararg frame below its base";
      } else {
        continue;
      }
      sink.report(fn, loopExitReturn(pc, "the side trace from the loop's exit cannot return to the lower frame here "
                                         "(NYIRETL)",
                                     std::move(why)));
    }
  }

 private:
  // A return a loop's exit side trace records and cannot leave at its base
  // (structural, likely).
  static Finding loopExitReturn(int pc, std::string message, std::string reasoning) {
    return structuralFinding(pc, "NYIRETL", "return", Confidence::Likely, std::move(message), std::move(reasoning));
  }

  // The line of a pcall/xpcall of this function that runs hot (in a loop,
  // or in a function that is or may be called hot), or at least hotexit
  // times; empty for none. The side trace needs only the loop's exit to get
  // hot (hotexit, 10 exits), far fewer runs than a function needs to start
  // a trace of its own (audit 98: 30 pcalls of a function whose loop runs
  // 200 turns; `-jv`: 4 NYIRETL aborts, then the exit left to the interpreter).
  // So through a tail call of a function called that way (`return
  // parse_list(s, i)` in the pcall'd parse_value, audit 99): the tail call
  // leaves no frame between, "20, through parse_value's tail call at line
  // 15,". Only when every call of the function is such a tail call, and
  // every call of the function making it is through pcall (or again such a
  // tail call): a call from a Lua frame returns there (audit 99's JSON
  // decoder, whose parsers are also called from each other's loops: their
  // returns inside loops aborted only at the top level, on one build).
  static std::string protectedHotCall(const FunctionView& fn, std::size_t proto, int depth = 0) {
    for (const auto& site : fn.calls.callers(proto))
      if (site.protectedCall &&
          (fn.calls.runsHot(site.proto, site.pc) || fn.calls.runsAt(site.proto, site.pc) >= fn.calls.hotexit()))
        return std::to_string(fn.chunk.prototypes[site.proto].at(site.pc).line);
    constexpr int kTailCalls = 3;
    if (depth >= kTailCalls || fn.calls.callers(proto).empty() || fn.calls.externalCaller(proto)) return {};
    for (const auto& site : fn.calls.callers(proto))
      if (site.protectedCall || site.proto == proto || !flow::isTailCall(fn.chunk.prototypes[site.proto].at(site.pc).op))
        return {};
    for (const auto& site : fn.calls.callers(proto)) {
      const auto& call = fn.chunk.prototypes[site.proto].at(site.pc);
      if (!onlyProtectedOrTailCalls(fn, site.proto)) continue;
      if (std::string at = protectedHotCall(fn, site.proto, depth + 1); !at.empty())
        return at + ", through " + functionName(fn, site.proto) + "'s tail call at line " + std::to_string(call.line) +
               ",";
    }
    return {};
  }

  // Every call of the function is through pcall or a tail call, none from
  // other files.
  static bool onlyProtectedOrTailCalls(const FunctionView& fn, std::size_t proto) {
    if (fn.calls.externalCaller(proto)) return false;
    for (const auto& site : fn.calls.callers(proto))
      if (!site.protectedCall && !flow::isTailCall(fn.chunk.prototypes[site.proto].at(site.pc).op)) return false;
    return true;
  }

  // A return inside a loop of a function called through pcall (`while true
  // do ... if done then return g end ... end`): the loop's trace leaves
  // there by a side exit, whose side trace records the return and cannot
  // return through the pcall frame (audit 98: `-jv` on both builds, 4
  // aborts `(1/4) ... NYI: return to lower frame`). Not when every pass of
  // the loop aborts first: no trace of it compiles.
  static void reportReturnsInsideLoops(const FunctionView& fn, const std::string& name, const std::string& protectedAt,
                                       PredictionSink& sink) {
    const std::vector<flow::Branch>& branches = fn.calls.branches(fn.index);
    const std::vector<int> refused = flow::refusedPcs(fn.proto, flow::refusedBytecodes(fn.profile));
    for (int pc = 1; pc <= fn.proto.size(); ++pc) {
      if (!flow::isReturn(fn.proto.at(pc).op)) continue;
      const flow::Loop* loop = fn.loops.innermost(pc);
      if (!loop || flow::blockedOnEveryPass(branches, refused, loop->first, loop->last)) continue;
      sink.report(fn, loopExitReturn(pc, "the side trace from the loop's exit to this return cannot return to the lower "
                                         "frame (NYIRETL)",
                                     name + " is called through pcall at line " + protectedAt +
                                         " and returns from inside its loop at line " +
                                         std::to_string(loopLine(fn, loop->first)) +
                                         ", so the side trace that leaves the loop here returns through the pcall "
                                         "frame"));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> makeFrameReturnRule() { return std::make_unique<FrameReturnRule>(); }

}  // namespace ljcheck::rules
