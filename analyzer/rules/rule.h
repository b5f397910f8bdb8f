// The interface every rule family implements, and what a rule sees of one
// prototype. A rule reads bytecode, loops and values and emits predictions;
// it knows nothing about files, options or output formats.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flow/call_graph.h"
#include "flow/loops.h"
#include "flow/metatypes.h"
#include "flow/tail_calls.h"
#include "flow/values.h"
#include "ljcheck/bytecode.h"
#include "ljcheck/prediction.h"
#include "ljcheck/profile.h"
#include "ljcheck/reason.h"

namespace ljcheck::rules {

struct FunctionNames;   // prediction_sink.h
struct SplittingCalls;  // trace_splits_before.h
struct ResolvedCallees;  // split_finding.h

struct FunctionView {
  const bytecode::Chunk& chunk;
  std::size_t index;  // into chunk.prototypes
  const bytecode::Prototype& proto;
  const flow::LoopMap& loops;
  const flow::ValueMap& values;
  const flow::CallGraph& calls;
  const RecorderProfile& profile;
  const ReasonCatalog& catalog;
  // ctypes with a `__new` metamethod: this file's and other files' exports.
  const flow::CtypeConstructors& constructors;
  // functionName() of each prototype, kept for the analysis; null: worked
  // out at each call.
  FunctionNames* names = nullptr;
  // Other files' module functions that tail-call an unrecorded library
  // function, by "module:member"; null: none.
  const flow::ImportedTailCalls* tailCalls = nullptr;
  // Methods of objects other files' functions return that those files
  // define in Lua ("pat:new():match"), so not string methods; null: none.
  const flow::MemberNames* luaMethods = nullptr;
  // The calls of each prototype a trace does not inline, kept for the
  // analysis once looked for; null: looked for at each question.
  SplittingCalls* splitting = nullptr;
  // Other files' module functions a trace records inline, no call or loop
  // of theirs splitting it, by "module:member" (rules/trace_splits_before.h
  // recordedInline); null: none.
  const flow::MemberNames* inlinedMembers = nullptr;
  // By prototype, the pcs of the calls the recorder surely refuses (FFI
  // calls: refusedCallsOf), sorted; null: none looked for.
  const std::vector<std::vector<int>>* refusedCalls = nullptr;
  // What each call calls (resolveCallee), kept for the analysis; null:
  // resolved at each question.
  ResolvedCallees* callees = nullptr;
  bool isMain() const { return index + 1 == chunk.prototypes.size(); }
  // The same analysis, seen from another prototype of the chunk.
  FunctionView of(std::size_t other) const {
    return {chunk,        other, chunk.prototypes[other], calls.loopMap(other), values,        calls, profile, catalog,
            constructors, names, tailCalls,               luaMethods,           splitting,     inlinedMembers,
            refusedCalls, callees};
  }
};

// What a rule says about one instruction; the sink turns it into a Prediction
// with class and severity from the catalog and the context.
struct Finding {
  int pc = 0;                    // 0: the function header, reported at its first line
  std::size_t proto = SIZE_MAX;  // where pc is; SIZE_MAX: the function being checked
  ReasonId reasonId;
  std::string construct;
  std::string callee;
  // For a split reported at a call of the function being checked (its tail
  // call's split lands there): the name that call is written with, which
  // finds it among the calls on its line (`#fmt("%s", int(i))` where int
  // tail-calls string.format); empty when the call is of `callee` itself.
  std::string calledAs;
  std::string message;
  // How sure the rule is about the construct itself; the sink lowers it one
  // step when the code is only possibly hot.
  Confidence confidence = Confidence::Certain;
  std::string reasoning;  // one sentence: what was resolved and why it matters
  // The trace always aborts here (NYIBC, FFI refusals, CJITOFF): a certain
  // one hides whatever comes after it in the same loop body.
  bool aborts = false;
  // The trace ends here and returns to the interpreter (a RETURN split in
  // the function's own body): nothing after it in the same loop body is
  // recorded either, so a certain one masks as an abort does.
  bool endsTrace = false;
  // Where the trace of the checked function stops, when that differs from
  // pc (CJITOFF is reported at the callee's header, the trace stops at the call).
  int tracePc = -1;
  // A structural prediction (inner loops, recursion, frames): severity info.
  bool structural = false;
  // A structural stop that aborts the calling code's root trace on every
  // pass it enters, with runs enough to blacklist that start: a warning,
  // not a note (LINNER at a loop whose own trace never loops).
  bool blacklistsCaller = false;
  // The rule itself showed how the code gets hot (a callback from C): the
  // confidence stands even where the call graph only says "possibly hot".
  bool hotByEvidence = false;
  // The abort is in a trace that starts inside the function (a side trace,
  // or the trace that resumes after a stitched call): it never blacklists
  // the loop that made the code hot, so the site is a warning at most.
  bool sideTrace = false;
  // The abort is in the traces of another function that starts its own
  // (a callback C code calls from the call at pc): no abort of this
  // function's traces hides it.
  bool calleeTraces = false;
  // The most the prediction may claim, however hot the code: where the
  // data decides whether hot passes reach the site (a tail call a branch of
  // its function can go around), or the callee is a string method of a
  // receiver whose type is a guess (by a pattern argument or the method's
  // name, Callee::mostClaimed; audit 62). `confidence` stays what the site
  // is when reached, which is what masking weighs: a RETURN that ends the
  // trace there still hides what follows it.
  Confidence most = Confidence::Certain;
  // For an abort in the traces of a function's own entry (a metamethod's,
  // a pcall'd callee's, called from a loop that runs interpreted): how
  // many calls on every pass make those traces, when the rule counts them.
  // A certain finding with enough of them to blacklist that entry in every
  // run (sureEntryCalls) is an error; 0: not counted.
  long entryCalls = 0;
  // At a call in a loop body: the trace that resumes after a stitch in the
  // callee aborts on every pass, and its first abort links the stitching
  // trace to itself, so each pass finishes in the interpreter from then on,
  // the loop's exit included: no side trace from that exit records the code
  // after the loop (CollectingSink::markAfterInterpretedLoops).
  bool passesEndInterpreted = false;
  // What to do about this site, where the reason's advice in the catalog
  // does not fit its cause (a RETURN split at error or through pcall);
  // empty: the catalog's.
  std::string advice;
};

// A structural prediction (a stop the recorder makes by design: a note) at
// pc, of the trace error `traceError` (lj_traceerr.h's name).
inline Finding structuralFinding(int pc, const char* traceError, std::string construct, Confidence confidence,
                                 std::string message, std::string reasoning) {
  Finding f;
  f.pc = pc;
  f.reasonId = ReasonId::traceError(traceError);
  f.construct = std::move(construct);
  f.structural = true;
  f.confidence = confidence;
  f.message = std::move(message);
  f.reasoning = std::move(reasoning);
  return f;
}

class PredictionSink {
 public:
  virtual ~PredictionSink() = default;
  virtual void report(const FunctionView& fn, Finding finding) = 0;
};

class Rule {
 public:
  virtual ~Rule() = default;
  virtual std::string_view name() const = 0;
  // Every reasonId this family can emit under the profile; a test checks
  // them against the catalog and the findings on every fixture against them.
  virtual std::vector<ReasonId> reasons(const RecorderProfile& profile) const = 0;
  virtual void check(const FunctionView& fn, PredictionSink& sink) const = 0;
};

// Every rule family, in a fixed order (all_rules.cpp).
const std::vector<std::unique_ptr<Rule>>& allRules();
// By prototype, the pcs of the calls every trace that records them aborts
// at, whatever the heat (the FFI calls the ffi-calls family finds certain):
// what a helper's trace surely aborts in besides closures (audit 75: a
// decoder's ffi.typeof of a string before a C call returning a struct).
// `view(i)` gives the analysis of prototype i.
std::vector<std::vector<int>> refusedCallsOf(std::size_t prototypes,
                                             const std::function<FunctionView(std::size_t)>& view);
// Whether every trace that records the FFI call at pc of `fn` aborts there
// (a certain abort the ffi-calls family finds), whatever its heat, and
// where a tail call would land it (ffi_calls.cpp).
bool refusedFfiCall(const FunctionView& fn, int pc);
// A tail call of the function `fn` views, on every path to it, that every
// trace aborts at (refusedFfiCall): what other files that call the function
// get, the abort landing at their call (TailCalledBuiltin::abortCode).
std::optional<flow::TailCalledBuiltin> refusedTailCall(const FunctionView& fn);

// Shared helpers for rules.
Context contextOf(const flow::CallGraph& calls, const bytecode::Chunk& chunk, std::size_t proto, int pc);
// Code that never runs hot (the main chunk outside loops, functions not
// known to be called from a loop) is never traced: rules say nothing there.
inline bool runsHot(const FunctionView& fn, int pc) { return fn.calls.runsHot(fn.index, pc); }
// The callee a CALL-like instruction at pc invokes, as far as values tell.
flow::Value calleeAt(const FunctionView& fn, int pc);
// Why the instruction at pc runs in a trace, as a clause for reasoning:
// "it runs in the loop at line 4", "make_adder is called from the loop at
// line 8", "handler escapes, so code elsewhere may call it hot".
std::string whyHot(const FunctionView& fn, int pc);
// Why the function itself may run hot, apart from any loop in it: its
// hottest caller, or that it escapes ("f is called from the loop at line 12,
// ..."; "f escapes, so code elsewhere may call it hot").
std::string whyFunctionHot(const FunctionView& fn);
// How the loops around an instruction make it hot, as a clause after "the
// loop at line N": ", which runs 3000 times", ", whose trip count the
// bytecode does not show".
std::string loopEvidence(const flow::CallGraph& calls, const flow::HeatEvidence& e);
// The first line of the innermost loop holding pc (0 outside loops).
int loopLine(const FunctionView& fn, int pc);

}  // namespace ljcheck::rules
