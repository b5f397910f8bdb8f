// Calls of ctypes with a `__new` metamethod, for the FFI call rule family
// (ffi_calls.cpp): see ctype_constructors.cpp.
#pragma once

#include "rules/rule.h"

namespace ljcheck::rules {

// When `callee` (called at pc, a CALL or CALLM) is a ctype with a `__new`
// metamethod, this file's or one another file's module table exports:
// reports BADTYPE where that metamethod initializes it from a table, and
// returns true (the call does not allocate, so nothing else about it
// applies); false for any other callee.
bool checkConstructorCall(const FunctionView& fn, int pc, const flow::Value& callee, PredictionSink& sink);

}  // namespace ljcheck::rules
