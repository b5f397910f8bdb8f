// What the NYIRETL rules share (frame_returns.cpp, metamethod_returns.cpp).
#pragma once

#include "flow/call_graph.h"
#include "rules/rule.h"

namespace ljcheck::rules {

// In the loop around `site`, an instruction the recorder refuses that runs
// on every pass (every_pass.h) of a loop that turns at least `turns` times,
// with no call before it in the body that ends or splits the root trace
// (trace_splits_before.h): its pc, or 0. Each root trace of that loop
// aborts, so the loop runs in the interpreter, and so do the calls it
// makes.
int abortOnEveryPass(const FunctionView& fn, const flow::CallSite& site, long turns);
// The same for a call outside loops: an abort every call of its function
// runs before it (frame_returns.cpp).
int abortBeforeInHelper(const FunctionView& fn, const flow::CallSite& site, long turns);

// NYIRETL at an operator of an interpreted loop whose Lua metamethod
// returns through a tail-called fast function (metamethod_returns.cpp).
void reportMetamethodTailCall(const FunctionView& fn, PredictionSink& sink);

}  // namespace ljcheck::rules
