// Trip counts of `while` and `repeat` loops that count a local from a
// constant to a constant bound by a constant step:
//
//   local i = 1                     local k = 0
//   while i <= 1000 do              repeat
//     ...                             k = k + 1
//     i = i + 1                       ...
//   end                             until k >= 500
//
// The bytecode must show all of it: the counter's and the bound's last
// writes before the loop are constant loads that every path into the loop
// passes, the loop body adds or subtracts a constant to the counter exactly
// once and writes the bound never, no branch of the body skips that step or
// leaves the loop (break, goto, return), and no closure can assign the
// counter. Anything else is an unknown trip count, as before.
#pragma once

#include <cstddef>

#include "flow/loops.h"
#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

// Iterations of a Loop::Kind::While loop per entry; -1 when the bytecode
// does not show them as above (or the loop never ends).
long whileTrips(const bytecode::Chunk& chunk, std::size_t index, const Loop& loop);

}  // namespace ljcheck::flow
