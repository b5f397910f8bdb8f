// Calls of a file that change the JIT its predictions assume: jit.off()
// turns the compiler off for everything that runs after it (until a
// jit.on()), and jit.opt.start(...) sets the parameters (hotloop,
// minstitch, ...) the counts are taken at from the recorder profile.
// A prediction of such a file claims no more than the change allows.
#pragma once

#include <string>

#include "flow/values.h"
#include "ljcheck/bytecode.h"

namespace ljcheck::rules {

struct JitSettings {
  int offLine = 0;         // the first jit.off() without arguments, 0 for none
  bool turnedOn = false;   // some jit.on() without arguments
  int startLine = 0;       // the first jit.opt.start(...), 0 for none
  bool compilerOff() const { return offLine > 0 && !turnedOn; }
  bool changed() const { return offLine > 0 || startLine > 0; }
  // "; jit.off() at line 1 ..., so possible": why a prediction claims less.
  std::string clause() const;
};

JitSettings jitSettingsOf(const bytecode::Chunk& chunk, const flow::ValueMap& values);

}  // namespace ljcheck::rules
