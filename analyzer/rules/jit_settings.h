// Calls of a file that change the JIT its predictions assume: jit.off()
// turns the compiler off for everything that runs after it (until a
// jit.on()); jit.off(true) turns it off for the function that calls it,
// jit.off(f, true) and jit.off(true, true) for a function and the
// functions inside it; and jit.opt.start(...) sets the parameters
// (hotloop, minstitch, ...) the counts take at the recorder profile's
// defaults. Called directly or through pcall. A prediction of such a file
// claims no more than the change allows.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "flow/call_graph.h"
#include "flow/values.h"
#include "ljcheck/bytecode.h"
#include "ljcheck/prediction.h"

namespace ljcheck::rules {

class JitSettings {
 public:
  JitSettings() = default;
  JitSettings(const bytecode::Chunk& chunk, const flow::ValueMap& values, const flow::CallGraph& calls);

  // What a prediction at pc of prototype `proto` may claim at most, and the
  // clause that says why ("; jit.off() at line 1 ..."); Certain and empty
  // where nothing changes.
  struct Effect {
    Confidence most = Confidence::Certain;
    std::string clause;
  };
  Effect effectAt(std::size_t proto, int pc) const;

 private:
  // The first jit.off() without arguments: where, and whether it runs on
  // every run of the main chunk (no loop, no branch around it) with no call
  // of this file's functions before it.
  int offLine_ = 0, offPc_ = 0;
  bool offOnLoad_ = false, offFirst_ = false;
  bool turnedOn_ = false;  // some jit.on() without arguments
  int startLine_ = 0;      // the first jit.opt.start(...)
  std::size_t main_ = 0;
  // Prototypes jit.off(true), jit.off(true, true) or jit.off(f, true)
  // turns the JIT off for, with the call's line (0: not turned off).
  std::vector<int> offFor_;
};

}  // namespace ljcheck::rules
