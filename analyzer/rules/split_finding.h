// What the two trace-split rule families share: resolving the callee of a
// call (through pcall), and the STITCH-or-RETURN decision for one call site.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rules/rule.h"

namespace ljcheck::rules {

struct Callee {
  flow::Value value;
  bool protectedCall = false;  // the function is called by pcall/xpcall
  // A string method on a receiver of unknown type, taken for a string by
  // its pattern literal (s:match("^%d+")): likely, not certain.
  bool inferredReceiver = false;
  // ... by a find whose argument is a string with pattern special
  // characters: a better guess, other objects' find methods rarely take
  // Lua patterns, but a guess (audit 62: `self.buf:find("%s+")` on a
  // buffer object with its own find): as sure as a string where the code
  // is possibly hot, likely at most where it is hot for sure
  // (Finding::most).
  bool patternReceiver = false;
  // ... by the method's name alone, which only strings' methods have here
  // (o:gsub(...), flow::onlyStringsHave): the same.
  bool receiverByName = false;
  bool receiverGuessed() const { return patternReceiver || receiverByName; }
  // ... though this file gives its own objects a method of that name (a
  // router's `match`, a scene graph's `find`: audit 84), which the receiver
  // may as well be: possible at most.
  bool ownMethodOfName = false;
  // What a split at this call may claim (Finding::most): likely at most on
  // a guessed receiver, possible where the file has a method of the name.
  Confidence mostClaimed() const {
    return ownMethodOfName ? Confidence::Possible : receiverGuessed() ? Confidence::Likely : Confidence::Certain;
  }
  // A receiver known to be a string from the calls of the function whose
  // parameter it is (no guess): the clause that says so; empty otherwise.
  std::string receiverEvidence;
  // What the method gets, for the reasoning: "a pattern literal", or the
  // evidence that a variable holds a pattern (pattern_arguments.h).
  std::string patternWhy;
  // That evidence alone (empty for a literal): a reasoning that already
  // gives it names it once.
  std::string patternEvidence;
  // The register the callee was read from (the first argument's for a
  // call through pcall): where boundCalleeWhy looks for a bound parameter.
  int slot = -1;
};

// Whether a Lua pattern (or the constant pieces of one) has characters
// that make string.find match a pattern rather than search plain text.
bool hasPatternSpecials(std::string_view pattern);
// What the call at pc calls, as the rules see it; kept in fn.callees when
// the analysis keeps one (the rules ask it of the same call many times).
Callee resolveCallee(const FunctionView& fn, int pc);

// resolveCallee's answers for one analysis, by prototype and pc.
struct ResolvedCallees {
  explicit ResolvedCallees(std::size_t prototypes) : byProto(prototypes) {}
  std::vector<std::vector<std::optional<Callee>>> byProto;  // by pc, sized at the first question
};

// How sure an error path of function `proto` is to run hot: raising leaves
// the loop (and usually the program), so only a pcall that runs hot to
// catch it makes it likely (audit 96: one pcall in the main chunk that
// tested a bounds check once made the check's error, hot through another
// caller, a warning `-jv` never showed); else possible.
Confidence errorConfidence(const FunctionView& fn, std::size_t proto);

// The register of the k-th argument (0-based) of the call at pc
// (flow::argumentSlot in the function being checked).
int argumentSlot(const FunctionView& fn, int pc, int k);

// The name the call at `site` of the function being checked is written
// with, as Finding::calledAs wants it: pcall's for a protected call.
std::string calledAs(const FunctionView& fn, const flow::CallSite& site);
// The name of the method the call at pc calls, `obj:name(...)` (a TGETS of
// the receiver into the callee slot, a MOV of it into the first argument
// slot); null for another call.
const std::string* methodCalledAt(const FunctionView& fn, int pc);

// Where what the tail call of a function of this file ends in lands: each
// call site of `proto`, and through a call site that tail-calls it in turn
// (`outer(s)` that returns `protect(s)`), that function's call sites, and
// so on; a tail call leaves no frame below it (audit 52). Each with the
// function written at that call. A protected call (pcall) is a landing.
struct TailCallLanding {
  flow::CallSite site;
  std::size_t called = 0;
};
std::vector<TailCallLanding> tailCallLandings(const FunctionView& fn, std::size_t proto);

// What the call at `site` passes in the function's parameter `parameter`;
// unknown when the call passes it in its variable part (f(a, g())) or not
// at all.
flow::Value callerArgument(const FunctionView& fn, const flow::CallSite& site, int parameter);

// Register `slot` holds parameter `slot` of the function `fn` views as the
// function got it when read at `pc`, and every call of it is in this file
// (fn.calls.callers): what those calls pass is all it can hold.
bool parameterFromCallsHere(const FunctionView& fn, int slot, int pc);

// When `slot` at pc holds a parameter that every call of the function
// passes the same value in (flow::ValueMap::boundParameter): a clause that
// says so, for the reasoning; empty otherwise.
std::string boundParameterWhy(const FunctionView& fn, int pc, int slot);
// The same for the callee of the call at pc, found by resolveCallee; asked
// only when a finding is reported (it reads the whole function).
std::string boundCalleeWhy(const FunctionView& fn, int pc, const Callee& callee);

// The next instruction takes a variable number of values (CALLM, CALLMT,
// RETM, TSETM): a trace cannot be stitched there.
bool nextFeedsVariableCount(const bytecode::Prototype& proto, int pc);
std::string whyEnds(bool neverStitches, bool protectedCall);

// The loop of `fn` that every path to the tail call at pc runs through: the
// callers' traces stop at it (they link to its trace, or abort there), and
// the trace that gets to the tail call is the side trace from its exit,
// which starts in fn's frame and has no frame below it to stitch back into:
// the tail call ends it (RETURN; audit 85: `for i = 1, 4 do ... end return
// unpack(out, 1, 4)`, `-jv` on both builds: `(1/1) ... return`, never a
// stitch). Null for none (a loop behind a branch, or one after the call).
const flow::LoopTrips* loopBeforeTailCall(const FunctionView& fn, int pc);
// The split's message reason for such a tail call, and the clause that
// explains it (likely unless the loop surely turns twice or more).
extern const char* const kAfterLoopEnds;
void explainLoopBeforeTailCall(const FunctionView& fn, const flow::LoopTrips& loop, Finding& f);

// RETURN:C at operators on objects of C modules (c_metamethods.cpp).
void checkCMetamethods(const FunctionView& fn, PredictionSink& sink);

// How sure it is that the recorder refuses the form of the call at pc to a
// fast function that has a recorder (recorded_variants.cpp: tonumber with
// base 16, string.find with a pattern), which then splits the trace as an
// unrecorded call does; none when it records the call.
std::optional<Confidence> refusedVariantCall(const FunctionView& fn, int pc);

// The fast function of this profile the call at pc makes, when the
// recorder compiles the call (no refused form); null otherwise.
const FastFunctionDef* recordedCall(const FunctionView& fn, int pc);

// The VARG at pc feeds `select('#', ...)` or `select(k, ...)`: the next
// instruction is a CALLM of select with one result and one fixed argument,
// which the recorder takes off trace too (rec_varg).
bool isSelectIdiom(const FunctionView& fn, int pc);

// What the recorder does at the call at pc when it does not compile the
// callee: a fast function without a recorder, a refused form of one, or a
// C function, called directly (not through pcall). It stitches the trace
// around the call, or ends it there (RETURN) when the results feed a
// variable count or the builtin is one never stitched around (error).
struct CallSplit {
  Confidence confidence = Confidence::Certain;  // that the callee is not compiled
  std::string callee;                            // its name, or "a C function"
  bool endsTrace = false;                        // RETURN rather than a stitch
};
std::optional<CallSplit> splitAt(const FunctionView& fn, int pc);
// The confidence of a stitch at pc (splitAt, not ending the trace); the
// callee's name in `callee` when given.
std::optional<Confidence> stitchesAt(const FunctionView& fn, int pc, std::string* callee = nullptr);

// Whether a call before pc surely ends the trace (a RETURN: results that
// feed a variable count) on every path to pc: no trace records pc then, and
// a tail call there never splits a caller's trace (audit 101's
// `return assert(io.open(name)):lines()`: `-jv` shows the RETURN at io.open,
// never a stitch at lines).
bool traceEndsBefore(const FunctionView& fn, int pc);

// A call that stitches the trace and that every path to the tail call at pc
// runs through (rules/masking.h), when there is one. The trace that reaches
// the tail call then started inside this function, right after that stitch,
// with no frame below it: the tail call cannot stitch there (recff_nyi needs
// framedepth > 0) and ends the trace (RETURN) where this function was called
// (dkjson's `fsub`: `if strfind(s, p) then return gsub(s, p, r) end`).
struct StitchBefore {
  int line = 0;  // 0: none
  std::string callee;
  Confidence confidence = Confidence::Certain;  // that the call stitches
  // A refused bytecode (FNEW, UCLO) that every path from the stitch to the
  // tail call runs through: its line. The trace after the stitch aborts
  // there, and no trace reaches the tail call. 0: none.
  int abortLine = 0;
};
StitchBefore stitchBeforeTailCall(const FunctionView& fn, int pc);
// For the reasoning: "every path in fsub to its tail call runs through the
// call of string.find at line 3, which stitches: ..." (`where`: " of lib.lua"
// for another file's function, else empty).
std::string stitchBeforeWhy(const std::string& function, const std::string& callee, int line,
                            const std::string& where);
// For the message: why such a tail call ends the trace.
extern const char* const kAfterStitchEnds;

// After a stitch on every path to its tail call (StitchBefore), a function
// called from two or more sites of one loop: its entry gets hot (2 * hotloop
// calls) before the loop does and starts a trace of its own, which ends at
// that stitch; the loop's trace links to it at its first call. The stitched
// continuation, which ends at the tail call, is recorded once, in the call
// after the one that made the entry hot: `lands` indexes that call among
// `sites` (in pc order), and the other sites of the loop get no RETURN.
// None for a vararg function (FUNCV is never hot-counted) or fewer sites.
struct OwnTraceAfterStitch {
  std::vector<flow::CallSite> sites;
  std::size_t lands = 0;
  long hotCalls = 0;
  int loopLine = 0;
  // Whether `site` is one of `sites` other than sites[lands]: its call
  // runs inside the function's own trace, and no RETURN is reported there.
  bool landsElsewhere(const flow::CallSite& site) const;
  // At sites[lands]: adds why the RETURN lands at this call to `f`'s
  // reasoning, and caps its confidence at likely with three sites or more
  // (which call makes the entry hot moves when hot counters share a slot).
  // Two sites: the first either way (a trace of the loop that gets hot
  // first stitches inside its first call too). Nothing at another call.
  void explain(Finding& f, const flow::CallSite& site, const std::string& function) const;
};
std::optional<OwnTraceAfterStitch> ownTraceAfterStitch(const FunctionView& fn);

// A function that tail-calls a builtin the recorder does not compile (an
// unrecorded one, or a refused form of a recorded one) and is called from
// two or more sites of one loop gets hot at its own entry (2 * hotloop
// calls) no later than the loop does (hotloop turns), so it starts a root
// trace of its own. That trace has no frame below the tail call
// (lj_record_tailcall keeps framedepth at 0) and recff_nyi stitches only
// when framedepth > 0: it ends with "return", reported at the call that made
// the entry hot. A vararg function (FUNCV) is never hot-counted. `why`: why
// the recorder does not compile the call, for the reasoning.
std::optional<Finding> ownTraceReturn(const FunctionView& fn, const std::string& subject, const std::string& name,
                                      const std::string& why);

// An argument of the call at pc is a closure created in this function
// before the call, in the loop body around it (or outside loops, as the
// call): its FNEW aborts every trace through there first,
// so no trace reaches the call (lua-uri's `return s:gsub(p, function ...)`;
// knot-resolver's `ffi.cast('trace_log_f', function(cbreq, msg) ... end)`).
bool closureArgumentAbortsFirst(const FunctionView& fn, int pc);

// The unrecorded library function this function tail-calls (the first, when
// several), for other files' calls of it (flow/tail_calls.h; call_splits.cpp).
std::optional<flow::TailCalledBuiltin> unrecordedTailCall(const FunctionView& fn);

Finding splitFinding(int pc, std::size_t proto, const std::string& subject, const std::string& callee,
                     bool ends, const std::string& why);

}  // namespace ljcheck::rules
