// Code that runs once per key, not once per call or iteration: lazy
// initializations and memoized results, found in the bytecode.
//
//   if cache[k] == nil then cache[k] = build(k) end
//   local c = memo[k] if c then return c end ... memo[k] = v return v
//
// Hot code only takes the way around such a body.
#pragma once

#include <cstddef>
#include <vector>

#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

// A lazy initialization: `if t[k] == nil then t[k] = ... end`, `if not x
// then x = ... end`. Its body runs once per key, not once per iteration:
// hot code only takes the exit around it.
struct OnceOnly {
  int first = 0, last = 0;  // the guarded pcs
  int line = 0;             // the test's line
  int keyParameter = -1;    // the parameter that keys a memoizing function's cache, or -1
  // The guarded place outlives the call (a global, or an upvalue or a field
  // of one): it is set once per key. A field of a table the call is given
  // (`if not mt.__index then` in a helper that registers types) may be
  // unset on every call.
  bool lasting = false;
};

// The once-only bodies of prototype q. `parents`: each prototype's parent
// (SIZE_MAX for the main chunk), to follow upvalues to the main chunk's locals.
std::vector<OnceOnly> findOnceOnly(const bytecode::Chunk& chunk, std::size_t q, const std::vector<std::size_t>& parents);

}  // namespace ljcheck::flow
