// Whether a loop's trace gets to a call at all: a call before it in the same
// loop body whose callee aborts every trace that records it (it creates a
// closure, or closes upvalues, on every path to its returns) ends the root
// trace there on every pass, so the loop's trace never records the later
// call, which runs in the interpreter (audit 49: two helpers that each
// return a closure, called one after the other in a loop of 50,000 turns;
// `-jv` shows the loop blacklisted at the first, the second's entry
// aborting 10 times on its own, never blacklisted).
#pragma once

#include <string>
#include <vector>

#include "rules/rule.h"

namespace ljcheck::rules {

// The line of the instruction every trace through `callee` aborts at before
// it returns: an FNEW or a UCLO (when `profile` refuses them), or a call in
// `refusedCalls` (its pcs, sorted: an FFI call the recorder surely refuses,
// FunctionView::refusedCalls), that every path from its entry to each of
// its returns runs through; 0 when a return is reached around them. `op`,
// when given, gets that instruction's opcode.
int certainAbortLine(const bytecode::Prototype& callee, const RecorderProfile& profile, bytecode::Op* op = nullptr,
                     const std::vector<int>* refusedCalls = nullptr);
// The same for prototype `callee` of the chunk `fn` views, with its refused calls.
int certainAbortLine(const FunctionView& fn, std::size_t callee);

struct AbortingCall {
  int pc = 0;        // 0: none
  int line = 0;
  std::string what;  // "the call of first", "the call of lib.first", "the closure"
};

// For the call at pc of the function `fn` views, inside a loop: a call of
// that loop body before it, on every path to it (masking.h, with no inner
// loop in between), whose callee certainly aborts: a function of this file
// (certainAbortLine), or a member of another module in `abortingMembers`
// ("module:member"; may be null). Or an instruction of the loop body the
// recorder refuses there (audits 97 and 98: `after(0.05, function() ...
// end)`, the closure made as the argument: the loop is blacklisted at it,
// and the callee runs interpreted, its own closure aborting only its
// entry's traces, 10 times in 50,000 calls).
AbortingCall abortingCallBefore(const FunctionView& fn, int pc, const flow::MemberNames* abortingMembers);

// The same for a call at pc outside the loops of its function, from the
// function's entry: every trace through the function, whichever loop of
// its callers or its own entry started it, aborts there first and never
// records the call (audit 108: `if not lt then lt = function ... end end
// return build(lt)`, whose upvalue close comes before the tail call; `-jv`
// shows the callers' loop blacklisted at it, build's own closure aborting
// only build's entry, 10 times in 50,000 calls). Other files' members are
// not asked about.
AbortingCall abortingCallFromEntry(const FunctionView& fn, int pc);

}  // namespace ljcheck::rules
