// The recorder stops at the first abort on a path. An abort that runs on
// every iteration of a loop body (or on every path through a function body)
// hides what comes after it in the same body: no trace of that body gets
// past it. Unless a trace can start behind it: a call in between (the
// callee's own trace returns into the body) or an inner loop in between (the
// side trace from its exit records the rest of the body).
#pragma once

#include "flow/loops.h"
#include "ljcheck/bytecode.h"

namespace ljcheck::rules {

bool masks(const bytecode::Prototype& proto, const flow::LoopMap& loops, int masker, int pc);

}  // namespace ljcheck::rules
