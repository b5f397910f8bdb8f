// Whether a root trace that starts before a blocker gets to it: a call on
// the way that the recorder does not inline ends the root trace there (a
// stitch, a RETURN, a link to the trace of a loop the callee runs), and the
// blocker then aborts only a trace that resumes after it. After a RETURN or
// a callee's loop that is a side trace, which never blacklists a start.
// After a stitch it is the stitched trace, and its first abort links the
// stitching trace to itself (lj_trace.c, trace_abort: "Self-link is
// blacklisted"): the VM never records after that call again, so what
// follows it runs interpreted from then on (`luajit -jv`: `stitch
// string.match`, then one abort of `(1/stitch)`, never retried).
#pragma once

#include <string>
#include <vector>

#include "rules/rule.h"

namespace ljcheck::rules {

struct SplitBefore {
  // The line of the first call in the range that may end or split a root
  // trace; 0 when every call there is inlined: a fast function the profile
  // records in the form used, or a Lua function of this file that runs no
  // loop and makes only such calls (looked into three levels deep). A callee
  // the file does not resolve counts as one that may.
  int line = 0;
  int pc = 0;  // that call's pc
  // It is a field read that may call an __index function of a metatable
  // (a loop or a split in it stops the root trace), not a call.
  bool fieldRead = false;
  // It is an operator on an object whose class's metamethod for it runs a
  // loop or splits the trace, not a call: the operator as written ("*").
  std::string operatorSymbol;
  // It is a call whose callee the file does not resolve (a method of a
  // parameter, say): it may as well record inline.
  bool unresolved = false;
  // It leaves what follows it to the interpreter (a RETURN, a call through
  // pcall): no root trace gets past it on the passes it ends.
  bool endsTrace = false;
  // The first of those calls, this one or a later one, that leaves what
  // follows it to the interpreter and that every path runs (no branch goes
  // around it): no root trace gets past it on any pass (audit 108:
  // `lib.new()`, then `l:add(os.date(...))`, whose RETURN ends the loop's
  // trace before `l:each()`); 0 for none.
  int endingPc = 0;
  // Every call in the range that may end or split a root trace, in order:
  // after each, a stitched trace may resume (their pcs; empty for none).
  std::vector<int> pcs;
  // When a branch can go around every such call (`if debug then print(x)
  // end`), `line` is 0 and this is the first one's line: the passes that
  // skip them reach the end of the range in the root trace.
  int skippableLine = 0;
  // When the last such call surely stitches (stitchesAt, or a Lua function
  // whose every call ends in such a stitch), runs on every path to the end
  // of the range, and no call before it ends the trace (a RETURN, a pcall):
  // its line and what it calls; 0 otherwise.
  int stitchLine = 0;
  int stitchPc = 0;
  std::string stitchCallee;
  // The same for a last call that likely stitches (a string method on a
  // receiver of a type the bytecode does not show, taken for a string by
  // the Lua pattern it gets or by the method's name), when stitchLine is 0.
  int likelyStitchLine = 0;
  std::string likelyStitchCallee;
  // When that last call is of a Lua function that surely stitches, but
  // whose stitched trace, resuming in its frame, may abort before it
  // returns (a closure, or a multi-value `...` of a vararg function, after
  // the stitch): a clause that says so, for the reasoning; empty otherwise.
  // Then no trace may ever record what follows the call.
  std::string resumedMayAbort;
};

// The calls in [from, to) of the function `fn` views.
SplitBefore splitBefore(const FunctionView& fn, int from, int to);
// Whether any call in [from, to) may split the trace (splitBefore's `line`
// or `skippableLine` is set), without working out which or how.
bool mayBeSplitBefore(const FunctionView& fn, int from, int to);

// The tail call of a builtin the recorder does not compile in that form
// (`return unpack(t)`, `return tonumber(x, 16)`) that the function `body`
// views makes after a loop every path to it runs through: the side trace
// from the loop's exit that reaches it has no frame to stitch back into,
// so it ends there, and no trace resumes in the caller after the call
// (loopBeforeTailCall). Its pc, with `name` set to the builtin's; 0 for
// none. `sure`: the loop turns more times than a caller's trace unrolls
// (else a caller's trace may run through it and stitch at the tail call,
// and the trace resumed after the call goes on in the caller).
int endingTailCallAfterLoop(const FunctionView& body, std::string& name, bool& sure);

// The call at pc of the function `fn` views is of `error`, and a branch
// goes around it: only the calls that fail run it, and a trace through the
// function records the other paths.
bool raisesOnOnePath(const FunctionView& fn, int pc);

// Whether a trace that calls the function `fn` views records all of it
// inline: no loop of its own, and no call it makes splits the trace. Such
// a function of another module splits no caller's trace either
// (FileLinks::inlinedExports).
bool recordedInline(const FunctionView& fn);

// Per prototype and call, once asked: whether a trace inlines the call,
// and whether it leaves what follows it to the interpreter (a RETURN, a
// pcall). splitBefore asks about the calls before a site for every
// finding of a loop; kept, a loop body with thousands of calls resolves
// each callee once instead of once per finding.
struct SplittingCalls {
  explicit SplittingCalls(std::size_t prototypes) : byProto(prototypes) {}
  struct Calls {
    // By pc: -1 not asked yet, else 0 or 1.
    std::vector<signed char> inlined, leavesTrace;
  };
  std::vector<Calls> byProto;
};

}  // namespace ljcheck::rules
