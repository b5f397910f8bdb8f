// The recorder stops at the first abort on a path. An abort that runs on
// every iteration of a loop body (or on every path through a function body)
// hides what comes after it in the same body: no trace of that body gets
// past it. Unless a trace can start behind it: an inner loop in between, in
// the body or in a Lua function of this file called there (the side trace
// from the loop's exit records the rest of the body). A function root trace
// of a plain callee stops when it returns, so a call alone does not unmask.
#pragma once

#include "flow/call_graph.h"
#include "flow/loops.h"
#include "flow/values.h"
#include "ljcheck/bytecode.h"

namespace ljcheck::rules {

bool masks(const bytecode::Chunk& chunk, std::size_t proto, const flow::LoopMap& loops,
           const flow::ValueMap& values, const flow::CallGraph& calls, int masker, int pc);

}  // namespace ljcheck::rules
