// Trip counts of loops the bytecode shows over constants and literal tables:
//
//   for i = 1, 7 do ... end                  for _, k in ipairs({"a", "b", "c"}) do ... end
//   for i = 1, #names do ... end             local extra = {} ... for k in pairs(extra) do ... end
//
// where `names` is a local list of constants nothing else can reach to grow,
// and `extra` a table only its constructor and constant-key stores fill.
// Anything else is an unknown trip count.
#pragma once

#include <cstddef>

#include "flow/loops.h"
#include "flow/values.h"
#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

// Iterations of a Loop::Kind::NumericFor loop per entry; -1 when its bounds
// are not constants the tracker knows (nor the length of such a list).
long numericTrips(const bytecode::Chunk& chunk, std::size_t index, const ValueMap& values, const Loop& loop);

// Iterations of a Loop::Kind::GenericFor loop over ipairs, pairs or next of
// a table constructed in the call or in a local nothing else names; -1 otherwise.
long genericTrips(const bytecode::Chunk& chunk, std::size_t index, const ValueMap& values, const Loop& loop);

}  // namespace ljcheck::flow
