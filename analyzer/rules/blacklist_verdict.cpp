// Whether a hot blocker blacklists its trace start (see blacklist_verdict.h).
#include "rules/blacklist_verdict.h"

#include "flow/every_pass.h"
#include "flow/instruction_effects.h"
#include "flow/refused_bytecodes.h"
#include "rules/aborting_call_before.h"
#include "rules/interpreted_calls.h"
#include "rules/prediction_sink.h"
#include "rules/split_finding.h"
#include "rules/trace_splits_before.h"

namespace ljcheck::rules {
namespace {

// The call of a function that certainly aborts, or an instruction the
// recorder refuses, before every call of function `proto` from a loop of
// this file, or from a helper's entry (aborting_call_before.h): "the call
// of first at line 4 (in main)", "the closure at line 9 (in main)"; empty
// when a call of `proto` in a loop is not behind one, or none is behind
// one. `everyCall`: whether every call of `proto` in this file is such a
// call (none outside loops that is not either).
std::string loopAbortsBeforeEveryCall(const FunctionView& fn, std::size_t proto, bool* everyCall = nullptr,
                                      int depth = 0) {
  constexpr int kMaxHelpers = 3;  // helpers between the abort and the call, as the call graph looks
  std::string first, firstInHelper;
  bool outsideLoops = false;  // a call outside loops that is not behind one
  for (const flow::CallSite& site : fn.calls.callers(proto)) {
    const FunctionView caller = fn.of(site.proto);
    if (!caller.loops.innermost(site.pc)) {
      // A helper's call behind an abort from its entry, or a helper that
      // only such calls reach (nothing else calls it, it is no callback):
      // no trace through the helper gets to it either (audit 108:
      // `return plainHeap(lt)` after the default comparator's closure).
      std::string behind;
      if (const AbortingCall before = abortingCallFromEntry(caller, site.pc); before.pc > 0) {
        behind = before.what + " at line " + std::to_string(before.line) + " (in " + functionName(fn, site.proto) + ")";
      } else if (depth < kMaxHelpers && site.proto != proto && !fn.calls.externalCaller(site.proto) &&
                 fn.calls.callbacks(site.proto).empty()) {
        bool all = false;
        behind = loopAbortsBeforeEveryCall(fn, site.proto, &all, depth + 1);
        if (!all) behind.clear();
      }
      if (behind.empty()) outsideLoops = true;
      else if (firstInHelper.empty()) firstInHelper = behind;
      continue;
    }
    const AbortingCall before = abortingCallBefore(caller, site.pc, nullptr);
    if (before.pc == 0) return {};
    if (first.empty())
      first = before.what + " at line " + std::to_string(before.line) + " (in " + functionName(fn, site.proto) + ")";
  }
  if (first.empty() && !outsideLoops) first = firstInHelper;
  if (everyCall) *everyCall = !outsideLoops;
  return first;
}

// "the loops that make its calls abort first at <where>, ...": what
// loopAbortsBeforeEveryCall found, for the reasoning.
std::string abortsFirstAt(const std::string& where) {
  return "the loops that make its calls abort first at " + where +
         ", which aborts every trace through it, on every pass, so their traces never record these calls";
}

// Whether no trace ever records code of vararg function `proto` outside
// its loops: every call of it, in this file and from others, is in a loop
// whose trace aborts first in an aborting call ahead of it, and the VM
// never counts a vararg function's entry (its prototype starts with FUNCV,
// whose handler in vm_x64.dasc, unlike FUNCF's, has no hotcall), so no
// trace starts there either (audit 51: ltn12's `filter.chain(...)` behind
// `source.string`).
const char* const kVarargEntry =
    " takes varargs, whose entry the VM never counts, so no trace of its own starts there either: no trace "
    "records this site until the abort ahead of its calls is fixed";

bool unreachedBehindAborts(const FunctionView& fn, std::size_t proto, const std::string& abortsBefore, bool everyCall) {
  if (!fn.chunk.prototypes[proto].isVararg()) return false;
  const flow::ExternalCaller* external = fn.calls.externalCaller(proto);
  const bool externalBehind = external && external->calls > 0 && external->callsBehindAborts == external->calls;
  const bool localCalls = !fn.calls.callers(proto).empty();
  if (localCalls && (abortsBefore.empty() || !everyCall)) return false;
  if (external && external->calls > 0 && !externalBehind) return false;
  return localCalls || externalBehind;
}

// The line of the first instruction the recorder refuses in [first, upTo)
// of the region [first, last] (a loop body, or the whole function) that
// every pass through it runs; 0 for none.
int refusedOnEveryPass(const FunctionView& fn, int first, int last, int upTo) {
  const std::vector<flow::Branch>& branches = fn.calls.branches(fn.index);
  for (int pc = first; pc < upTo && pc <= last && pc <= fn.proto.size(); ++pc)
    if (flow::refuses(fn.profile, fn.proto.at(pc).op) && !flow::routesAround(branches, pc, first, last, false).compiles)
      return fn.proto.at(pc).line;
  return 0;
}

// The loop of the Lua function the call at pc calls that turns a known
// number of times, two or more, on each call: a trace of its own records
// it, and the side trace from that trace's exit returns into the caller
// and records what follows the call (audit 64: `map(data, function ...
// end)` over 8 elements, then 4 side-trace aborts at the loop body's
// UCLO). Null for another call, or a loop that may turn once (audit 82: an
// emitter's one listener; `-jv` shows only LLEAVE there).
const flow::LoopTrips* callerReturningLoop(const FunctionView& fn, int pc) {
  if (!flow::isCall(fn.proto.at(pc).op)) return nullptr;
  const flow::Value callee = resolveCallee(fn, pc).value;
  if (!callee.is(flow::Value::Kind::LuaFunction) || callee.proto >= fn.chunk.prototypes.size()) return nullptr;
  for (const flow::Loop& loop : fn.of(callee.proto).loops.loops()) {
    const flow::LoopTrips* trips = fn.calls.evidenceAt(callee.proto, loop.last).loop;
    if (trips && trips->first == loop.first && trips->known && trips->count >= 2 && trips->leavesAt == 0) return trips;
  }
  return nullptr;
}

// Whether the loop of `fn` whose `while`/`repeat` line is `loopLine` is a
// while or repeat loop (LOOP), not a `for`.
bool whileLoopAt(const FunctionView& fn, int loopLine) {
  for (const flow::Loop& loop : fn.loops.loops())
    if (fn.proto.at(loop.entry()).line == loopLine) return loop.kind == flow::Loop::Kind::While;
  return false;
}

// A loop nested in the loop body around pc (or the function body), before
// pc, that every pass enters and that turns a known number of times, at
// least once, whose every turn aborts at an instruction the recorder
// refuses: no root trace gets past it. Its line, turns and abort line; 0s
// for none.
struct InnerAbort {
  int loopLine = 0;
  long turns = 0;
  int abortLine = 0;
};
InnerAbort innerLoopAbortsFirst(const FunctionView& fn, int pc) {
  const flow::Loop* around = fn.loops.innermost(pc);
  const int first = around ? around->first : 1;
  for (const flow::Loop& loop : fn.loops.loops()) {
    if (&loop == around || loop.first <= first || loop.last >= pc || fn.loops.innermost(loop.first - 1) != around)
      continue;
    if (flow::jumpAround(fn.proto, loop.first, loop.last, pc) != 0) continue;
    const flow::LoopTrips* trips = fn.calls.evidenceAt(fn.index, loop.last).loop;
    if (!trips || trips->first != loop.first || !trips->known || trips->count < 1 || trips->leavesAt) continue;
    if (const int line = refusedOnEveryPass(fn, loop.first, loop.last, loop.last + 1); line > 0)
      return {fn.proto.at(loop.entry()).line, trips->count, line};
  }
  return {};
}

// What a blocker's verdict asks of the call at pc that may split the trace
// before it, in the region [first, last] of the function `fn` views.
struct CallBefore {
  // The line of an instruction the recorder refuses that every pass runs
  // before the call: no root trace gets to it, and only a trace that
  // resumes after it, if any does, records the blocker; 0 for none.
  int refusedBefore = 0;
  // Then: the loop of the function it calls, whose exit's side trace
  // surely resumes after the call (callerReturningLoop); null otherwise.
  const flow::LoopTrips* returningLoop = nullptr;
  std::string returningFunction;
  // It calls a function of this file whose traces end at a tail call after
  // its loop (endingTailCallAfterLoop): "its tail call of unpack at line
  // 5"; empty otherwise. `endsSurely`: that loop turns more times than a
  // caller's trace unrolls.
  std::string endsInCallee;
  bool endsSurely = false;
};
CallBefore callBefore(const FunctionView& fn, int pc, int first, int last) {
  CallBefore out;
  if (pc <= 0) return out;
  out.refusedBefore = refusedOnEveryPass(fn, first, last, pc);
  if (out.refusedBefore > 0 && (out.returningLoop = callerReturningLoop(fn, pc)))
    out.returningFunction = functionName(fn, resolveCallee(fn, pc).value.proto);
  if (!flow::isCall(fn.proto.at(pc).op)) return out;
  const flow::Value callee = resolveCallee(fn, pc).value;
  if (!callee.is(flow::Value::Kind::LuaFunction) || callee.proto >= fn.chunk.prototypes.size()) return out;
  const FunctionView body = fn.of(callee.proto);
  std::string name;
  if (const int tail = endingTailCallAfterLoop(body, name, out.endsSurely); tail > 0)
    out.endsInCallee = "its tail call of " + name + " at line " + std::to_string(body.proto.at(tail).line);
  return out;
}

// The line of an instruction the recorder refuses that every turn of the
// loop of `fn` whose `for`/`while` line is `loopLine` runs, no branch going
// around it; 0 for none. No trace gets past such a loop: its own aborts
// there, and so does any trace that runs through it (audit 59: a UCLO
// after `for j = 1, 3 do fs[j] = function() ... end end`, never recorded).
int abortsEveryTurn(const FunctionView& fn, int loopLine) {
  for (const flow::Loop& loop : fn.loops.loops())
    if (fn.proto.at(loop.entry()).line == loopLine) return refusedOnEveryPass(fn, loop.first, loop.last, loop.last + 1);
  return 0;
}

// A multi-value `...` in the one loop around it of a vararg function
// that other code calls, a loop of a known count of at most loopunroll
// turns: the loop's own traces start in the vararg frame and abort there,
// but those that record its last turn leave it (LLEAVE), and a trace of a
// caller that enters the frame then unrolls the loop (lj_record.c
// rec_loop_interp, innerloopleft; at most loopunroll turns) and records
// the `...` where the varargs are known. Whether the loop's own start is
// blacklisted first is timing (audit 64: `for rep = 1, 3` in a vararg
// function called 50,000 times never was, on either build; with 5 to 15
// turns in about three runs of four; audit 67: with 16, in about two runs
// of three; with 17, 20 and 30, always). The loop; null when this is not
// such a site.
const flow::LoopTrips* unrolledVarargLoop(const FunctionView& fn, const Finding& finding, std::size_t proto) {
  const auto& code = fn.chunk.prototypes[proto];
  if (finding.pc <= 0 || !code.isVararg() || code.at(finding.pc).op != bytecode::Op::VARG) return nullptr;
  if (proto + 1 >= fn.chunk.prototypes.size()) return nullptr;  // the main chunk: nothing calls it
  const flow::ExternalCaller* external = fn.calls.externalCaller(proto);
  if (fn.calls.callers(proto).empty() && !(external && external->calls > 0)) return nullptr;
  const flow::LoopTrips* loop = fn.calls.evidenceAt(proto, finding.pc).loop;
  // loopunroll counts back edges: a loop of loopunroll + 1 turns still unrolls (audit 67: 16 turns).
  if (!loop || !loop->known || loop->count > fn.profile.param("loopunroll", 15) + 1) return nullptr;
  int around = 0;
  for (const flow::Loop& l : fn.of(proto).loops.loops())
    if (l.first <= finding.pc && finding.pc <= l.last) ++around;
  if (around != 1) return nullptr;
  // Only a caller's trace that gets to the call unrolls the loop: one that
  // aborts before it on every pass never does (audit 67: a closure made
  // ahead of the call in the caller's loop; the VARG start is blacklisted
  // in every run).
  bool reached = external && external->calls > 0;
  for (const flow::CallSite& site : fn.calls.callers(proto)) {
    const FunctionView caller = fn.of(site.proto);
    const flow::Loop* body = caller.loops.innermost(site.pc);
    if (!refusedOnEveryPass(caller, body ? body->first : 1, body ? body->last : caller.proto.size(), site.pc))
      reached = true;
  }
  return reached ? loop : nullptr;
}

}  // namespace

BlacklistVerdict blacklistVerdict(const FunctionView& fn, const Finding& finding, std::size_t proto,
                                  std::size_t heatProto, int heatPc, const flow::LoopTrips* unknownAround) {
  BlacklistVerdict out;
  const auto& code = fn.chunk.prototypes[proto];
  const RecorderProfile::Blacklisting needed = fn.profile.loopBlacklisting();
  // Counted only over loops (and calls) that run it on every pass: where
  // a branch can go around it, a root trace that records the other path
  // compiles, and the abort then comes in side traces (measured: a
  // closure behind `if i % 2 == 0` in a loop of 60,000 turns aborts 4
  // times and never blacklists).
  flow::CallGraph::CountStop stop;
  long runs = fn.calls.steadyRunsAt(heatProto, heatPc, &stop);
  long allRuns = fn.calls.runsAt(heatProto, heatPc);
  std::string takes = std::to_string(needed.runs) + " runs take " + std::to_string(needed.aborts) +
                      " aborts, each doubling the wait before the next try";
  std::string besides = "; the bytecode shows " + std::to_string(allRuns) + " runs of the loop, but ";
  // A function's own entry is a trace start too. Every trace that records
  // a call of it aborts here, so its callers' loops run the calls in the
  // interpreter, and each one counts its entry down: all its call sites
  // add up (measured: a closure in a function called from four sites of a
  // loop of 30,000 turns blacklists the entry after 11 aborts, while the
  // loop itself is tried 10 times). Its blacklisting takes twice a loop's
  // runs (RecorderProfile::entryBlacklisting).
  const RecorderProfile::Blacklisting entryNeeded = fn.profile.entryBlacklisting();
  // Runs counted through calls from a loop whose trace aborts earlier on
  // every pass, in another function of this file: that loop is blacklisted
  // by the other abort, and this one aborts only the function's own entry.
  const bool outsideLoops = !fn.of(heatProto).loops.innermost(heatPc);
  bool everyCall = false;
  const std::string abortsBefore = needed.runs > 0 && runs >= needed.runs && outsideLoops
                                       ? loopAbortsBeforeEveryCall(fn, heatProto, &everyCall)
                                       : std::string();
  if (!abortsBefore.empty()) runs = 0;
  out.unreached = outsideLoops && unreachedBehindAborts(fn, heatProto, abortsBefore, everyCall);
  long entryCalls = 0, externalCalls = 0;
  auto countEntryCalls = [&] {
    if (entryNeeded.runs <= 0 || heatProto + 1 >= fn.chunk.prototypes.size() ||
        fn.chunk.prototypes[heatProto].isVararg() || !fn.calls.onEveryCall(heatProto, heatPc))
      return;  // a vararg function's entry is never hot-counted
    entryCalls = fn.calls.steadyCalls(heatProto);
    // Calls from other files count too: each runs in the interpreter once
    // the loop that makes it is blacklisted, or never traced (audit 50: two
    // loops of another file, 50,000 and 45,000 calls, blacklist the entry).
    if (const flow::ExternalCaller* external = fn.calls.externalCaller(heatProto)) externalCalls = external->entryCalls;
    entryCalls += externalCalls;
  };
  if (!(needed.runs > 0 && runs >= needed.runs)) countEntryCalls();
  // Whether those calls, counted now if they were not, blacklist the entry.
  auto entryCallsBlacklist = [&] {
    countEntryCalls();
    return entryNeeded.runs > 0 && entryCalls >= entryNeeded.runs;
  };
  // A call before the blocker that ends or splits the root trace (a stitch,
  // a RETURN, a callee's loop) leaves the abort to a trace that resumes
  // after it (trace_splits_before.h): on the way from the function's
  // entry, or from the start of the loop around it, here or at a call site
  // of this function in a loop.
  struct Split {
    std::string call;    // "the call at line 3 (in main)"; empty: none
    std::string stitch;  // "the call of string.match at line 3 (in main)", when it surely stitches on every path
    std::string likelyStitch;  // the same when it likely stitches (SplitBefore::likelyStitchLine)
    // "the call at line 3 (in main)", when a branch can go around every
    // call before it that may split the trace (SplitBefore::skippableLine)
    std::string skippable;
    bool fieldRead = false;  // `call` is a field read that may call an __index function (SplitBefore::fieldRead)
    bool operation = false;  // `call` is an operator whose metamethod splits (SplitBefore::operatorSymbol)
    bool unresolved = false;  // `call`'s callee is not known (SplitBefore::unresolved)
    // Where `call` is: its prototype and pc, and the region (loop body or
    // function body) it was found in, for what splitClause asks of it.
    std::size_t proto = 0;
    int pc = 0, first = 0, last = 0;
  };
  auto splitBeforeHere = [&](bool fromEntry) -> Split {
    auto described = [&](const SplitBefore& found, const std::string& in, const FunctionView& view, int first,
                         int last) {
      Split split;
      if (found.line > 0)
        split.call = (found.fieldRead                ? std::string("the field read at line ")
                      : !found.operatorSymbol.empty() ? "the `" + found.operatorSymbol + "` at line "
                                                      : std::string("the call at line ")) +
                     std::to_string(found.line) + in;
      split.fieldRead = found.fieldRead;
      split.operation = !found.operatorSymbol.empty();
      split.unresolved = found.unresolved;
      split.proto = view.index;
      split.pc = found.pc;
      split.first = first;
      split.last = last;
      if (found.skippableLine > 0) split.skippable = "the call at line " + std::to_string(found.skippableLine) + in;
      if (found.stitchLine > 0)
        split.stitch = "the call of " + found.stitchCallee + " at line " + std::to_string(found.stitchLine) + in;
      if (found.likelyStitchLine > 0)
        split.likelyStitch =
            "the call of " + found.likelyStitchCallee + " at line " + std::to_string(found.likelyStitchLine) + in;
      return split;
    };
    const FunctionView view = fn.of(heatProto);
    const flow::Loop* loop = fromEntry ? nullptr : view.loops.innermost(heatPc);
    const SplitBefore here = splitBefore(view, loop ? loop->first : 1, heatPc);
    if (here.line > 0 || here.skippableLine > 0)
      return described(here, "", view, loop ? loop->first : 1, loop ? loop->last : view.proto.size());
    if (fromEntry || loop) return {};
    // The first call site behind a split, when every call in a loop is: a
    // call the loop's root trace reaches with no split before it brings
    // the trace to this abort on every pass (audit 97: `bind(acct,
    // "deposit")` first in the loop, then `dep(5)` and a second bind; `-jv`
    // shows the loop blacklisted at bind's closure).
    std::optional<Split> first, skippable, inHelper;
    bool helperReaches = false;  // some helper's call of it has no split before it
    for (const auto& site : fn.calls.callers(heatProto)) {
      const FunctionView caller = fn.of(site.proto);
      const flow::Loop* around = caller.loops.innermost(site.pc);
      // A caller without a loop around the call (a helper the loop calls):
      // a sure stitch on its way there is what the resumed trace reaches
      // this abort after (audit 55: `s:gsub(...)` then `mk()` in h; `-jv`
      // shows the stitched trace's one abort, then mk's own entry's). A
      // call that may split it, on the way in every such helper, leaves the
      // abort to a trace that resumes after that call, as in a loop body
      // (audit 106: `lom.parse(doc)`, which stitches at C methods, before
      // `list_children(obj)`'s closure; the loop was never blacklisted). A
      // call of this same function aborts here first, and splits nothing.
      if (!around) {
        SplitBefore found = splitBefore(caller, 1, site.pc);
        if (found.stitchLine > 0) {
          if (!first) first = described(found, " in " + functionName(fn, site.proto), caller, 1, caller.proto.size());
        } else if (found.line > 0 && calleeAt(caller, found.pc).proto != heatProto) {
          if (!inHelper) inHelper = described(found, " in " + functionName(fn, site.proto), caller, 1, caller.proto.size());
        } else {
          helperReaches = true;
        }
        continue;
      }
      SplitBefore found = splitBefore(caller, around->first, site.pc);
      // Behind a branch only, the passes that skip it reach this abort in
      // the root trace, the others split first: the data decides (audit
      // 103: `if i % 3 ~= 0 then refill(i) end`, refill's loop, before
      // tag(...)'s closure; the loop's trace linked to refill's, never
      // blacklisted). No split at all on the way: the root trace gets here.
      if (found.line == 0 && found.skippableLine == 0) return {};
      if (found.line == 0) {
        if (!skippable)
          skippable = described(found, " in " + functionName(fn, site.proto), caller, around->first, around->last);
        continue;
      }
      if (!first) first = described(found, " in " + functionName(fn, site.proto), caller, around->first, around->last);
    }
    if (first) return *first;
    if (skippable) return *skippable;
    return inHelper && !helperReaches ? *inHelper : Split{};
  };
  // Whether every call of the function comes from other files' helpers
  // (none from a loop directly), each behind a call that may split the
  // trace in the helper's body (ModuleCall::splitBefore), outside loops here.
  auto splitBeforeEveryExternalCall = [&]() {
    if (!outsideLoops || !fn.calls.callers(heatProto).empty() || !fn.calls.callbacks(heatProto).empty()) return false;
    const flow::ExternalCaller* external = fn.calls.externalCaller(heatProto);
    return external && external->calls > 0 && !external->someCallUnsplit;
  };
  // Whether the body of the innermost loop around the site (or its
  // function, outside loops) calls a builtin the recorder does not compile
  // there, which splits the trace (splitAt: a stitch or a RETURN).
  auto splitInBody = [&]() {
    const FunctionView view = fn.of(heatProto);
    const flow::Loop* loop = view.loops.innermost(heatPc);
    const int first = loop ? loop->first : 1, last = loop ? loop->last : view.proto.size();
    for (int q = first; q <= last; ++q)
      if (flow::isCall(view.proto.at(q).op) && splitAt(view, q)) return true;
    return false;
  };
  auto splitClause = [&out, &fn](const Split& split) {
    const CallBefore before = callBefore(fn.of(split.proto), split.pc, split.first, split.last);
    // An __index function's traces stop when they return into the VM's
    // metamethod frame: none resumes after the read (audit 83: `-jv` shows
    // no abort at the closure after `h.host`, on either build).
    if (split.fieldRead || split.operation) {
      out.dependsOnData = true;
      return "; " + split.call + " comes before it and " +
             (split.fieldRead ? "may call an __index function" : "calls its operand's metamethod, a function") +
             " that runs a loop or splits the trace: a root trace stops there, and a trace that starts in that "
             "function stops when it returns into the VM's metamethod frame, so no trace may get to this abort, so "
             "a warning, and likely";
    }
    // Behind an abort on every pass before the call, no root trace gets
    // there: only a trace that starts after that abort and resumes after
    // the call records this one, if one does (audit 82: a listener closure,
    // then `em:emit(...)`, whose one-turn loop gives a function trace that
    // ends in a return link; `-jv` never shows the UCLO after it). A
    // callee's loop that surely turns twice gets a trace whose exit's side
    // trace does resume here.
    if (before.returningLoop) {
      return "; " + split.call + " comes before it, and every pass aborts at line " +
             std::to_string(before.refusedBefore) + " before that call, so no root trace gets to it; but the loop at "
             "line " + std::to_string(before.returningLoop->line) + " of " + before.returningFunction + " turns " +
             std::to_string(before.returningLoop->count) + " times on each call, enough for a trace of its own, and "
             "the side trace from its exit returns into this function and aborts here: not in the root trace, so "
             "the loop's or the function's own start is not what gets blacklisted, so a warning";
    }
    if (before.refusedBefore > 0) {
      out.dependsOnData = true;
      return "; " + split.call + " comes before it and may end or split the trace (a stitch, a RETURN, a loop of "
             "its own), but every pass aborts at line " + std::to_string(before.refusedBefore) + " before that "
             "call, so no root trace gets to it: only a trace that resumes after the call (a stitched trace, a "
             "side trace of the callee's loop returning here) records this abort, if one does, so a warning, and "
             "likely";
    }
    // A callee whose traces end at its tail call after its loop: nothing
    // resumes after the call (audit 87: `checksum` loops, then `return
    // tonumber(x, 16)`, or `return unpack(t)`; `-jv` never shows the closure
    // after its call abort, on either build).
    if (!before.endsInCallee.empty()) {
      out.dependsOnData = true;
      if (before.endsSurely)
        return "; " + split.call + " comes before it, and the callee's traces end at " + before.endsInCallee +
               ", which the side trace from its loop's exit reaches with no frame below it to stitch back into "
               "(RETURN): no trace resumes after the call, so no trace may get to this abort, so a warning, and "
               "likely";
      return "; " + split.call + " comes before it, and the callee ends with " + before.endsInCallee + " after a "
             "loop whose turns the bytecode does not show or a caller's trace unrolls: if the side trace from "
             "that loop's exit reaches the tail call, it ends there (RETURN) and no trace resumes after the call; "
             "if a caller's trace gets through the loop, it stitches there, and the trace that resumes after the "
             "call aborts here and links the stitching trace to itself. Which, the run decides, so a warning, and "
             "likely";
    }
    // A callee the file does not know may record inline as well (audit
    // 83: `req:header(...)` on a parameter, a one-line method of another
    // file; both builds blacklist the loop and the function's entry).
    if (split.unresolved)
      return "; " + split.call + " comes before it, and what it calls is not resolved here (a parameter, a "
             "field of a table or of another file's value): if it ends or splits the trace (a stitch, a RETURN, a "
             "loop of its own), the abort comes in a trace that resumes after it and the loop's or the function's "
             "own start is not what gets blacklisted; if it records inline (a short method, say), the root trace "
             "aborts here and its start is blacklisted. Which, only the run shows, so a warning";
    return "; " + split.call + " comes before it and may end or split the trace (a stitch, a RETURN, a loop of its "
           "own); then the abort comes in a trace that resumes after it, not in the root trace, and the loop's "
           "or the function's own start is not what gets blacklisted, so a warning (whether that call splits "
           "the trace the bytecode does not show)";
  };
  // A stitch on every pass before it: the root trace ends at that call,
  // and the stitched trace that resumes after it aborts here the first
  // time it is recorded, which links the stitching trace to itself. The
  // loop needs only to get hot: hotloop turns, the turn that records its
  // trace and the one that runs it (`luajit -jv`: the one abort shows from
  // 60 turns on).
  const long hotloop = fn.profile.param("hotloop", 56);
  // Every call of it in a loop whose trace aborts first ahead of the call,
  // on every pass, and fewer calls than get its own entry hot (2 * hotloop)
  // as far as the bytecode shows: only that entry's trace would record this
  // site, if its calls turn out to be enough (audit 100: `enum(list{...})`
  // in a 60-turn loop, list's closure aborting first; `-jv` never showed
  // enum's closure, on either build).
  std::string belowEntryHeat;
  if (outsideLoops && abortsBefore.empty() && hotloop > 0 && !(needed.runs > 0 && runs >= needed.runs)) {
    bool every = false;
    const bool localCalls = !fn.calls.callers(heatProto).empty();
    const std::string where = localCalls ? loopAbortsBeforeEveryCall(fn, heatProto, &every) : std::string();
    const flow::ExternalCaller* external = fn.calls.callsFromOtherFiles(heatProto);
    const bool otherFiles = external && external->calls > 0;
    const bool externalBehind = !otherFiles || external->callsBehindAborts == external->calls;
    const long calls = fn.calls.steadyCalls(heatProto) + (external ? external->entryCalls : 0);
    const bool vararg = fn.chunk.prototypes[heatProto].isVararg();
    if ((localCalls || otherFiles) && (!localCalls || (!where.empty() && every)) && externalBehind &&
        (vararg || calls < 2 * hotloop)) {
      belowEntryHeat = "; but " +
                       (localCalls ? abortsFirstAt(where)
                                   : std::string("the loops of other files that call it abort first at a call ahead "
                                                 "of theirs that aborts every trace through it, on every pass, so "
                                                 "their traces never record these calls")) +
                       ", and " + functionName(fn, heatProto);
      if (vararg) {
        belowEntryHeat += std::string(kVarargEntry) + ", so a warning, and likely";
      } else {
        belowEntryHeat += "'s own entry trace is the only one that may record this site, and that entry gets hot "
                          "after " + std::to_string(2 * hotloop) + " calls, of which the bytecode shows at least " +
                          std::to_string(calls) + ", so a warning, and likely";
      }
    }
  }
  Split split;
  if (!belowEntryHeat.empty()) {
    out.dependsOnData = true;
    out.clause = belowEntryHeat;
  } else if (hotloop > 0 && runs >= hotloop + 4 && !(split = splitBeforeHere(false)).stitch.empty()) {
    out.blacklists = true;
    out.clause = "; " + split.stitch + " stitches the trace on every pass before it, and the trace that resumes "
                   "after that call aborts here: LuaJIT then links the stitching trace to itself (a blacklisted "
                   "link, lj_trace.c trace_abort) and never records after the call from it again (a side trace "
                   "that stitches at the same call aborts here once in turn), so from the first "
                   "abort on what follows the call runs interpreted on every pass (" + std::to_string(runs) +
                   " runs)";
    // Counted through a route around it that aborts elsewhere: the
    // resumed trace aborts on whichever path its pass takes (audit 55: the
    // UCLO of `return r` when the closure's branch is never taken).
    if (stop.abortingRoute) {
      out.dependsOnData = true;
      out.clause += "; but the path around it from line " + std::to_string(stop.abortingRoute) +
                    " runs into another abort, and which of the two the resumed trace reaches depends on the data, "
                    "so likely";
    }
  } else if (hotloop > 0 && runs >= hotloop + 4 && !(split = splitBeforeHere(false)).likelyStitch.empty()) {
    // A stitch the receiver's type leaves in doubt (audit 83: a closure
    // after `ctx.content_type:match("^[^;]+")`, 1,000 runs: both builds
    // link the stitching trace to itself at the first abort).
    out.dependsOnData = true;
    out.clause = "; " + split.likelyStitch + " comes before it on every pass and likely stitches the trace (its "
                 "receiver is taken for a string): then the trace that resumes after that "
                 "call aborts here at its first try, LuaJIT links the stitching trace to itself (lj_trace.c "
                 "trace_abort) and what follows the call runs interpreted from then on; if the receiver is no "
                 "string, the call records as a Lua method and the root trace reaches this abort instead. Which, "
                 "the bytecode does not show, so a warning, and likely";
  } else if (entryNeeded.runs > 0 && entryCalls >= entryNeeded.runs && !(split = splitBeforeHere(true)).call.empty()) {
    out.clause = splitClause(split);
  } else if (needed.runs > 0 && runs >= needed.runs && splitBeforeEveryExternalCall() &&
             !entryCallsBlacklist()) {
    // Its runs come from other files' calls, each behind a call that may
    // split the trace there (audit 107: `mw.count_slashes(path)`, a loop of
    // another module, before `mw.wrap(route)` in a helper; `-jv` shows the
    // loop's trace linked to count_slashes', no start blacklisted).
    out.dependsOnData = true;
    out.clause = "; every call of it from other files is made by a function that first makes a call that may end or "
                 "split the trace (a function that loops or stitches, a callee passed in), so the calling loop's "
                 "root trace may never get here: the abort then comes in a trace that resumes after that call, "
                 "and the loop's start is not what gets blacklisted, so a warning; its own entry's " +
                 std::to_string(entryCalls) + " calls on every pass are fewer than the " +
                 std::to_string(entryNeeded.runs) + " that blacklist it";
  } else if (needed.runs > 0 && runs >= needed.runs && !(split = splitBeforeHere(false)).call.empty() &&
             !(entryCallsBlacklist() && splitBeforeHere(true).call.empty())) {
    out.clause = splitClause(split);
    // The function's own entry then counts the calls: too few as far as
    // the bytecode shows, but calls behind branches may add up (audit 106:
    // list_children's second call, behind an `if`, made 100,000).
    if (entryCalls > 0 && entryCalls < entryNeeded.runs && splitBeforeHere(true).call.empty())
      out.clause += "; " + functionName(fn, heatProto) + "'s own entry, whose traces get here with no split, has " +
                    std::to_string(entryCalls) + " calls on every pass as far as the bytecode shows (calls behind "
                    "branches not counted), fewer than the " + std::to_string(entryNeeded.runs) +
                    " that blacklist it";
  } else if (entryNeeded.runs > 0 && entryCalls >= entryNeeded.runs) {
    // Also when the loop's trace may split before it (the split above):
    // the calls its resumed or interpreted passes make count down the
    // function's own entry, whose traces get here with no split (audit
    // 106: soap's list_children, called twice per document by decode,
    // 100,000 calls behind `lom.parse`'s stitches; its entry blacklisted).
    out.blacklists = true;
    const bool nearCount = entryCalls < sureEntryCalls(fn.profile);
    if (nearCount) out.dependsOnData = true;
    out.clause = std::string("; its calls ") + (externalCalls > 0 ? "in this file and from other files" : "in this file") +
                 ", all call sites added up, run at least " + std::to_string(entryCalls) +
                   " times on every pass, each in the interpreter since every trace that records a call aborts "
                   "here, and at " + std::to_string(entryNeeded.runs) + " calls or more the trace start at " +
                   functionName(fn, heatProto) + "'s entry is blacklisted (" + std::to_string(entryNeeded.runs) +
                   " calls take " + std::to_string(entryNeeded.aborts) +
                   " aborts, each doubling the wait before the next try)";
    if (nearCount)
      out.clause += "; but " + std::to_string(entryCalls) + " is within a fifth of that count, and LuaJIT hashes its "
                    "hot counters by address into 64 slots: a calling loop's counter that shares the entry's slot "
                    "holds the count back in some runs (about 1 in 20 just above it), so likely";
  } else if (!abortsBefore.empty() && out.unreached) {
    out.clause = "; but " + abortsFirstAt(abortsBefore) + ", and " + functionName(fn, heatProto) + kVarargEntry +
                 ", so a warning, and likely";
  } else if (!abortsBefore.empty()) {
    out.clause = "; but " + abortsFirstAt(abortsBefore) + ", and only " +
                   functionName(fn, heatProto) + "'s own entry trace aborts here: its " + std::to_string(entryCalls) +
                   " calls on every pass are fewer than the " + std::to_string(entryNeeded.runs) +
                   " that blacklist it, so a warning";
  } else if (needed.runs > 0 && runs >= needed.runs && stop.abortingRoute && finding.pc > 0 &&
             code.at(finding.pc).op == bytecode::Op::UCLO) {
    // An upvalue close that only the passes a branch sends here run, the
    // others aborting elsewhere: the start is blacklisted either way, but
    // which abort does it depends on the data, and what makes the
    // function close upvalues at all is a closure it creates, the site to
    // fix (audit: a type check's early return, never taken, was an error).
    int closure = 0;  // the function's first FNEW: a UCLO closes locals its closures captured
    for (int q = 1; q <= code.size() && !closure; ++q)
      if (code.at(q).op == bytecode::Op::FNEW) closure = code.at(q).line;
    out.clause = "; the path around it from line " + std::to_string(stop.abortingRoute) +
                   " runs into another abort the recorder refuses, so every pass aborts and the trace start is "
                   "blacklisted either way (" + std::to_string(runs) + " runs), but whether the passes close "
                   "upvalues here depends on the data, and the function closes them only because it creates " +
                   (closure ? "the closure at line " + std::to_string(closure) : std::string("closures")) +
                   ": that is the site to fix, so a warning";
    out.dependsOnData = true;
  } else if (needed.runs > 0 && runs >= needed.runs && stop.abortingRoute && splitInBody()) {
    // The way around it runs into another abort, but a call on the way
    // may split the trace first (audit 58: `#tostring(acc)` in the other
    // arm stitches, the root trace compiles, and this closure aborts only
    // side traces): not every pass aborts in the root trace.
    out.clause = "; the path around it from line " + std::to_string(stop.abortingRoute) +
                 " runs into another abort, but a call in the loop body may split the trace before it, so the "
                 "root trace may compile and this abort come in side traces only, so a warning, and likely";
    out.dependsOnData = true;
  } else if (needed.runs > 0 && runs >= needed.runs && stop.abortingRoute) {
    // Any other site the passes that take a branch around it skip, into
    // another abort: every pass aborts, so the start is blacklisted either
    // way, but by whichever abort the passes its traces record run into,
    // which the data decides (audit 54: a closure in `if i % 100 == 0 then
    // ... end`, whose block's UCLO every pass runs: `-jv` shows 11 aborts
    // at the UCLO, none at the closure; with `i % 2 == 0`, 6 at the closure
    // and 5 at the UCLO; audit 55: closures in both arms, 7 and 4).
    out.blacklists = true;
    out.dependsOnData = true;
    out.clause = "; the path around it from line " + std::to_string(stop.abortingRoute) +
                 " runs into another abort the recorder refuses, so every pass aborts and the trace start is "
                 "blacklisted either way (" + std::to_string(runs) + " runs), by whichever abort the passes its "
                 "traces record run into, which the data decides: an error, and likely the one the VM names";
  } else if (needed.runs > 0 && runs >= needed.runs && !split.skippable.empty()) {
    // A call before it that may split the trace, behind a branch: a root
    // trace that records a pass skipping it aborts here, one that records
    // a pass making it splits there first. With the call mostly skipped
    // the start is blacklisted (audit 56: `if debug_on then print(...) end`
    // before a closure, 11 aborts); mostly made, the stitch is what the
    // passes meet (audit 57: one abort, then the self-linked stitch). The
    // data decides, which a CI gate should not fail on.
    out.clause = "; " + split.skippable + " may split the trace, and a branch can go around it: if most passes "
                 "skip it, the root trace aborts here and at " + std::to_string(runs) + " runs the start is "
                 "blacklisted (" + takes + "); if most make it, the trace splits there first. Which, the data "
                 "decides, so a warning, and likely";
    out.dependsOnData = true;
  } else if (const flow::LoopTrips* unrolled =
                 needed.runs > 0 && runs >= needed.runs ? unrolledVarargLoop(fn, finding, proto) : nullptr) {
    out.clause = "; but that loop turns " + std::to_string(unrolled->count) + " times, few enough for a trace of " +
                 functionName(fn, proto) + "'s caller to unroll it (at most " +
                 std::to_string(fn.profile.param("loopunroll", 15) + 1) + " turns) once the loop's own traces keep "
                 "leaving it (LLEAVE), and that trace enters the vararg frame and records the '...': whether the "
                 "loop's start is blacklisted first (" + std::to_string(runs) + " runs) depends on timing, so a "
                 "warning, and likely";
    out.dependsOnData = true;
  } else if (const InnerAbort inner = needed.runs > 0 && runs >= needed.runs ? innerLoopAbortsFirst(fn.of(heatProto), heatPc)
                                                                            : InnerAbort{};
             inner.abortLine > 0) {
    // Audit 88: `for hand = 1, 2 do local h = function() … end end` before
    // the outer body's UCLO: the root trace unrolls the inner loop and
    // aborts at its closure on every pass; `-jv` never shows the UCLO.
    out.dependsOnData = true;
    out.clause = "; but the loop at line " + std::to_string(inner.loopLine) + " comes before it on every pass and "
                 "turns " + std::to_string(inner.turns) + " times, and every turn of it aborts at line " +
                 std::to_string(inner.abortLine) + ": no root trace gets past it to this abort, and only a side "
                 "trace could, so a warning, and likely";
  } else if (needed.runs > 0 && runs >= needed.runs) {
    out.blacklists = true;
    const InterpretedCalls calls = interpretedCalls(fn.of(heatProto), heatPc);
    out.clause = "; at " + std::to_string(runs) + " runs or more, the trace start is blacklisted (" + takes + ")" +
                 calls.clause;
    out.entryLine = calls.entryLine;
    out.entryFunction = calls.function;
  } else if (needed.runs > 0 && allRuns >= needed.runs && stop.kind == flow::CallGraph::CountStop::Kind::Branch) {
    out.clause = besides + (stop.byReturn ? stop.route() : "the branch at line " + std::to_string(stop.line)) +
                 " can go around this abort: a trace that records the other path compiles, and the abort then "
                   "comes in side traces, " + sideTraceFate(fn.profile) + ", so a warning";
    out.dependsOnData = true;
  } else if (const int abortLine = stop.kind == flow::CallGraph::CountStop::Kind::InnerLoop
                                        ? abortsEveryTurn(fn.of(heatProto), stop.line)
                                        : 0;
             abortLine > 0) {
    out.clause = "; the loop at line " + std::to_string(stop.line) + " comes first in each turn, and every turn of "
                 "it aborts at line " + std::to_string(abortLine) + " first: no trace gets past it to this abort" +
                 (stop.innerTurnsUnknown ? " while it turns" : "") + ", so a warning, and likely";
    out.dependsOnData = true;
  } else if (needed.runs > 0 && allRuns >= needed.runs &&
             stop.kind == flow::CallGraph::CountStop::Kind::InnerLoop && stop.innerSkippedAt > 0) {
    const FunctionView view = fn.of(heatProto);
    const flow::Loop* body = view.loops.innermost(heatPc);
    // Behind an abort on every pass, no root trace gets here around the
    // inner loop either: only the side traces from its exit do (audit 82:
    // a timer wheel's closure before `if nt >= 32 then for ... end end`;
    // `-jv` shows 4 aborts of the inner loop's side trace at the UCLO).
    if (const int before = body ? refusedOnEveryPass(view, body->first, body->last, heatPc) : 0; before > 0)
      out.clause = besides + "the loop at line " + std::to_string(stop.line) + " comes first on the passes that "
                   "enter it, where a root trace stops, and every pass aborts at line " + std::to_string(before) +
                   " before this one: only the side traces from that inner loop's exit record this abort, " +
                   sideTraceFate(fn.profile) + ", so a warning, and likely";
    else
      out.clause = besides + "the loop at line " + std::to_string(stop.line) +
                   " comes first on the passes that enter it, where a root trace stops, and the branch at line " +
                   std::to_string(stop.innerSkippedAt) + " can go around it: a root trace that records a pass around "
                   "it aborts here, and at " + std::to_string(allRuns) + " runs the start is blacklisted (" + takes +
                   "). Which passes the traces record, the data decides, so a warning, and likely";
    out.dependsOnData = true;
  } else if (needed.runs > 0 && allRuns >= needed.runs &&
             stop.kind == flow::CallGraph::CountStop::Kind::InnerLoop && stop.innerTurnsUnknown) {
    out.clause = besides + "the loop at line " + std::to_string(stop.line) +
                   " comes first in each turn, and how many times it turns the bytecode does not show (a trip count "
                   "it does not know, or a way out of it early): often enough for a trace of its own, a root trace "
                   "stops at it and only side traces record this abort, " +
                   sideTraceFate(fn.profile) + "; once or twice (an empty or short list), the root trace runs "
                   "through it, aborts here, and at " + std::to_string(allRuns) + " runs the start is blacklisted (" +
                   takes + "). Which, the data decides, so a warning, and likely";
    out.dependsOnData = true;
  } else if (needed.runs > 0 && allRuns >= needed.runs &&
             stop.kind == flow::CallGraph::CountStop::Kind::InnerLoop && stop.innerTurns > 0 &&
             stop.innerTurns <= fn.profile.param("loopunroll", 15) + 1 && whileLoopAt(fn.of(heatProto), stop.line)) {
    // A while or repeat loop is not unrolled into the root trace: the root
    // trace aborts there on every pass (audit 87: `while j < 4 do … end`
    // before a closure; `-jv`, both builds: 11 "inner loop in root trace",
    // the outer start blacklisted by those, and 4 side-trace aborts at the
    // closure; a numeric `for` of 4 turns is unrolled and compiles).
    out.clause = besides + "the loop at line " + std::to_string(stop.line) + " comes first in each turn, a while or "
                 "repeat loop of " + std::to_string(stop.innerTurns) + " turns, which a root trace does not unroll: "
                 "it aborts there on every pass (LINNER, and that blacklists its start), so only side traces record "
                 "this abort, " + sideTraceFate(fn.profile) + ", so a warning";
  } else if (needed.runs > 0 && allRuns >= needed.runs &&
             stop.kind == flow::CallGraph::CountStop::Kind::InnerLoop && stop.innerTurns > 0 &&
             stop.innerTurns <= fn.profile.param("loopunroll", 15) + 1) {
    out.clause = besides + "the loop at line " + std::to_string(stop.line) + " comes first in each turn, and it turns " +
                 std::to_string(stop.innerTurns) + " times, few enough for a root trace to unroll it (at most " +
                 std::to_string(fn.profile.param("loopunroll", 15) + 1) +
                 " turns) once its own traces keep leaving it (LLEAVE): side traces record this abort, and such a "
                 "root trace does too, and whether its start is blacklisted (" + std::to_string(allRuns) +
                 " runs) depends on timing, so a warning";
  } else if (needed.runs > 0 && allRuns >= needed.runs &&
             stop.kind == flow::CallGraph::CountStop::Kind::InnerLoop) {
    out.clause = besides + "the loop at line " + std::to_string(stop.line) +
                   " comes first in each turn: a root trace stops at that inner loop, so only side traces "
                   "record this abort, " + sideTraceFate(fn.profile) + ", so a warning";
  } else if (needed.runs > 0 && allRuns >= needed.runs &&
             stop.kind == flow::CallGraph::CountStop::Kind::LeavesEarly) {
    out.clause = besides + "the branch at line " + std::to_string(stop.line) +
                   " can leave a loop around it early, so a warning";
  } else if (needed.runs > 0 && allRuns >= needed.runs && stop.kind == flow::CallGraph::CountStop::Kind::Yields) {
    out.clause = besides + "a loop around it yields at line " + std::to_string(stop.line) +
                 ", and whoever resumes the coroutine decides how many of its turns run (it may never be resumed "
                 "again), so a warning";
  } else if (needed.runs > 0 && allRuns >= needed.runs &&
             stop.kind == flow::CallGraph::CountStop::Kind::UnknownTurns) {
    out.clause = besides + "the loop at line " + std::to_string(stop.line) +
                   " turns a number of times the bytecode does not show, maybe none on some passes, so a warning";
  } else if (needed.runs > 0 && allRuns >= needed.runs && !fn.calls.entryShortfall(heatProto).empty()) {
    out.clause = "; the bytecode shows " + std::to_string(allRuns) + " runs, but not on every pass: " +
                   fn.calls.entryShortfall(heatProto) + ", so a warning";
    // Behind a branch the calls may never be made (audit 60: `if debug_on
    // then lib.slow(i) end`, no abort at all).
    if (fn.calls.entryShortfallByBranch(heatProto)) {
      out.clause += ", and whether the passes a trace records make the call depends on the data, so likely";
      out.dependsOnData = true;
    }
  } else if (needed.runs > 0 && allRuns >= needed.runs) {
    out.clause = "; the bytecode shows " + std::to_string(allRuns) +
                   " runs, but not on every pass of the loops that make the calls (a branch can go around a call, "
                   "an inner loop where a root trace stops comes first, or a loop turns a number of times the "
                   "bytecode does not show), so a warning";
  } else if (needed.runs > 0 && unknownAround) {
    out.clause = (allRuns > 1 ? "; the bytecode shows " + std::to_string(allRuns) + " runs of the code around"
                              : std::string("; the bytecode does not show how often its function runs, nor")) +
                 " the loop at line " + std::to_string(unknownAround->line) +
                 ", which turns a number of times the bytecode does not show, maybe none, so a warning";
  } else if (needed.runs > 0 && allRuns <= 1) {
    out.clause = "; the bytecode does not show how often it runs, and blacklisting the trace start needs "
                   "many runs (" + takes + "), so a warning";
  } else if (entryNeeded.fewestRuns > 0 && entryCalls >= entryNeeded.fewestRuns) {
    // Between the counts the random bits of the penalties decide (audit
    // 84: 3 x 29,000 calls, of 73,788 to 88,973, blacklisted the entry in
    // 6 runs of 6; 3 x 27,000 in 5 of 6; 3 x 24,000 in none).
    out.clause = std::string("; its calls ") + (externalCalls > 0 ? "in this file and from other files" : "in this file") +
                 ", all call sites added up, run at least " + std::to_string(entryCalls) + " times on every pass, "
                 "each in the interpreter since every trace that records a call aborts here, and blacklisting the "
                 "trace start at " + functionName(fn, heatProto) + "'s entry takes " +
                 std::to_string(entryNeeded.fewestRuns) + " to " + std::to_string(entryNeeded.runs) +
                 " calls, as the random bits LuaJIT adds to each doubled penalty fall: whether it is blacklisted "
                 "depends on the run, so a warning";
  } else if (needed.fewestRuns > 0 && allRuns >= needed.fewestRuns) {
    // Audit 84: a loop of 44,000 turns blacklisted in 7 runs of 7 on both
    // builds, 42,000 in 2 of 3.
    out.clause = "; the bytecode shows at least " + std::to_string(allRuns) + " runs, and blacklisting the trace "
                 "start takes " + std::to_string(needed.fewestRuns) + " to " + std::to_string(needed.runs) +
                 " runs, as the random bits LuaJIT adds to each doubled penalty fall: whether it is blacklisted "
                 "depends on the run, so a warning";
  } else if (needed.runs > 0) {
    out.clause = "; the bytecode shows at least " + std::to_string(allRuns) + " runs, fewer than blacklisting the "
                 "trace start needs whatever the random bits of its penalties (" +
                 std::to_string(needed.fewestRuns) + " runs at the fewest, 11 aborts), so a warning";
  }
  if (out.unreached && abortsBefore.empty()) {
    out.blacklists = false;
    out.clause += "; and " + functionName(fn, heatProto) + kVarargEntry + ", so likely";
  }
  // Whether it is seen at all: when every pass aborts before it, from the
  // start of its loop body (or function) and after every call before it
  // that may split the trace but the last, only a trace that resumes after
  // that last call records it, and only a sure stitch is sure to resume
  // one (audit 109: `with_retry(3, function() ... end)`, whose loop returns
  // on its first turn, after the closure; with `s:match(...)` before the
  // closure too: `-jv` never shows the upvalue close after the call).
  if (!out.blacklists && !out.dependsOnData && finding.confidence == Confidence::Certain) {
    const FunctionView view = fn.of(heatProto);
    const flow::Loop* loop = view.loops.innermost(heatPc);
    const int first = loop ? loop->first : 1, last = loop ? loop->last : view.proto.size();
    const SplitBefore found = splitBefore(view, first, heatPc);
    if (found.line > 0 && found.stitchLine == 0 && !found.pcs.empty() &&
        !callerReturningLoop(view, found.pcs.back())) {  // that loop's exit surely resumes one
      const int lastCall = found.pcs.back();
      int refused = refusedOnEveryPass(view, first, last, lastCall);
      for (std::size_t k = 0; refused > 0 && k + 1 < found.pcs.size(); ++k)
        refused = refusedOnEveryPass(view, found.pcs[k] + 1, last, lastCall);
      if (refused > 0) {
        out.dependsOnData = true;
        out.clause += "; every pass aborts at line " + std::to_string(refused) + " before the call at line " +
                      std::to_string(view.proto.at(lastCall).line) + ", which may split the trace: only a "
                      "trace that resumes after that call (a side trace of the callee's loop returning here, say) "
                      "records this abort, if one does, so likely";
      }
    }
  }
  return out;
}

std::string unreachedClause(const FunctionView& fn, std::size_t heatProto, int heatPc) {
  if (!fn.chunk.prototypes[heatProto].isVararg() || fn.of(heatProto).loops.innermost(heatPc)) return {};
  bool everyCall = false;
  const std::string abortsBefore = loopAbortsBeforeEveryCall(fn, heatProto, &everyCall);
  if (!unreachedBehindAborts(fn, heatProto, abortsBefore, everyCall)) return {};
  return "; but " + (abortsBefore.empty() ? std::string() : abortsFirstAt(abortsBefore) + ", and ") +
         functionName(fn, heatProto) + kVarargEntry + ", so likely";
}

}  // namespace ljcheck::rules
