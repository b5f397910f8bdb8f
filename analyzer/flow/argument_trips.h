// Trip counts of `for i = 1, n` where `n` is a parameter of a function that
// only this file's code can call (it does not escape): what each call
// passes decides how often the loop turns.
//
//   local function fill(t, n)
//     for i = 1, n do t[i] = function() return i end end
//   end
//   fill(cells, 1000)
//
// The function never assigns the parameter, and every call passes an
// integer constant in its place. When every call makes the loop turn at
// least `hotloop` times, the count is the smallest (evidence it runs hot);
// when none does, the largest (evidence it cannot, per entry); otherwise
// it stays unknown.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "flow/call_graph.h"
#include "flow/loops.h"
#include "flow/values.h"
#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

struct ArgumentTrips {
  long count = -1;  // -1: the calls do not show it
  std::string why;  // "n is 1000 at the call at line 12", for the reasoning
};

// `callers`: every call site of the function (CallGraph's list); the
// caller must have checked that no code elsewhere can call it.
ArgumentTrips argumentTrips(const bytecode::Chunk& chunk, std::size_t index, const ValueMap& values, const Loop& loop,
                            const std::vector<CallSite>& callers, long hotloop);

}  // namespace ljcheck::flow
