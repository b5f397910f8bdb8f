// How a loop can stop short of the turns its trip count shows, or never
// compile at all: what the call graph needs to know of a loop beyond its
// count (call_graph.h, LoopTrips).
//
//   while #open > 0 do ... if done then return x end ... end   returns inside
//   while #open > 0 do table.sort(open, function ... end) end  blocked on every pass
//   for i = 1, 100000 do coroutine.yield(i) end                 yields: its consumer decides
#pragma once

#include <cstddef>
#include <vector>

#include "flow/every_pass.h"
#include "flow/loops.h"
#include "flow/values.h"
#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

// A return (or tail call) in the loop's body [first, last]: the loop may end
// there instead of at its own exit. LuaJIT's parser places a return that
// closes upvalues after the function's body, behind a UCLO that jumps
// there; that counts too. `branches`: branchesOf the prototype.
bool returnsInside(const bytecode::Prototype& proto, const std::vector<Branch>& branches, int first, int last);

// The body runs a bytecode the recorder refuses on every pass (no route
// around it compiles): no trace of the loop compiles. `refused`: the
// prototype's refusedPcs.
bool blockedOnEveryPass(const std::vector<Branch>& branches, const std::vector<int>& refused, int first, int last);
// The pcs of a prototype's bytecodes the recorder refuses, ascending.
// `refused`: by Op (refusedBytecodes).
std::vector<int> refusedPcs(const bytecode::Prototype& proto, const std::vector<bool>& refused);

// A generic for over a coroutine.wrap generator, anywhere in the chunk, that
// a break, goto or return can leave: its generator is not resumed again.
// `loops` and `branches`: by prototype.
bool stopsGeneratorEarly(const bytecode::Chunk& chunk, const ValueMap& values, const std::vector<LoopMap>& loops,
                         const std::vector<std::vector<Branch>>& branches);

// The line of the first call of coroutine.yield in [first, last] of
// prototype `index`; 0 for none.
int yieldLine(const bytecode::Prototype& proto, const ValueMap& values, std::size_t index, int first, int last);

}  // namespace ljcheck::flow
