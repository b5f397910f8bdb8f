// What a loop whose trace start is blacklisted does to the functions it
// calls: it runs in the interpreter from then on, and every call it makes
// counts down its callee's entry counter. A callee whose every trace from
// its entry leaves at a tail call of a fast function the recorder compiles
// (`return setmetatable({...}, Point)`) aborts each such trace: the fast
// function returns into the caller's frame, below where the trace started,
// which a root trace that did not start at a return cannot follow
// (lj_record.c lj_record_ret: LLEAVE, "leaving loop in root trace"). Enough
// interpreted calls blacklist that entry, and from then on every trace that
// calls the function aborts there (BLACKL): later loops over it never
// compile (audit 76: a Point constructor called 100,000 times from a loop a
// closure blacklisted; a clean loop of point arithmetic after it ran
// interpreted, about 90 times slower).
#pragma once

#include <string>

#include "rules/rule.h"

namespace ljcheck::rules {

// The fast function whose tail call every return of `fn` is, when every
// trace started at its entry leaves there: a function of fixed arguments,
// without loops, closures or calls other than of fast functions the
// recorder compiles, whose every return is `return ff(...)`; null otherwise.
// `at`, when given, gets the pc of its first such tail call.
const FastFunctionDef* tailCallLeavingEntry(const FunctionView& fn, int* at = nullptr);

// For a loop of `fn` around loopPc whose start is blacklisted: the first
// call of its body that then blacklists its callee's entry
// (tailCallLeavingEntry, at least entryBlacklisting calls): the clause that
// says so, and the callee's entry line and name; an empty clause when none.
// The calls that blacklist a function's entry in every run: the profile's
// entryBlacklisting count and a fifth more. LuaJIT hashes its hot counters
// by the instruction's address into 64 slots, and a calling loop whose
// counter shares the entry's slot (which the addresses of each run decide)
// holds the count back: audit 83 saw 89,100 and 90,000 calls, of 88,973
// needed, leave the entry unblacklisted in about 1 run in 20 on both
// builds; 99,000 in 1 of 40; 108,000 and 120,000 in none of 200.
long sureEntryCalls(const RecorderProfile& profile);

struct InterpretedCalls {
  std::string clause;
  int entryLine = 0;
  std::string function;
};
InterpretedCalls interpretedCalls(const FunctionView& fn, int loopPc);

}  // namespace ljcheck::rules
