// The recorder stops at the first abort on a path. An abort that every path
// to a site runs through, in the same loop body (or function body), hides
// the site: no trace of that body gets past it. Unless a trace can start
// behind it: an inner loop in between, in the body or in a Lua function of
// this file called there (the side trace from the loop's exit records the
// rest of the body). A function root trace of a plain callee stops when it
// returns, so a call alone does not unmask. A generic for's iterator call
// comes after its body in the bytecode but runs first, on loop entry.
#pragma once

#include "flow/call_graph.h"
#include "flow/loops.h"
#include "flow/values.h"
#include "ljcheck/bytecode.h"

namespace ljcheck::rules {

bool masks(const bytecode::Chunk& chunk, std::size_t proto, const flow::LoopMap& loops,
           const flow::ValueMap& values, const flow::CallGraph& calls, int masker, int pc);

}  // namespace ljcheck::rules
