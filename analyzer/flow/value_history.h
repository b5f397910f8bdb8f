// What the last value map of one document computed, pass by pass, so that
// the next map (after an edit, in the language server) takes over the passes
// whose inputs are unchanged instead of running them again.
//
// A map is a sequence of steps: forward passes over one prototype each, and
// settings of a prototype's returns. A pass reads its prototype, its
// upvalues, its `self`, the field map (built from the stores of the passes
// kept so far) and the returns set so far; nothing else. So while every step
// of the new map has had the same effect as the step at the same place in
// the last one (same prototype, the same stores, the same returns: the maps
// are "aligned"), a pass over a prototype whose bytes are unchanged, with the
// same upvalues and `self`, finds what it found last time. The first step
// whose effect differs ends the alignment, and every later pass runs.
//
// Values are compared bit for bit (the same pointers, not the same text): a
// value of the last map may point into a prototype that has since been
// decoded again and freed, and an equal pointer is one that is still valid.
// For the same reason the names the maps intern live on in the history.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "flow/values.h"

namespace ljcheck::flow {

struct ValueMap::History {
  // Set before each map: by prototype index, 1 when its bytes equal those
  // at the same index of the chunk the last map was built over.
  std::vector<char> sameBytes;
  // Of the last map: passes taken over (for tests and benchmarks).
  std::size_t passesReused = 0, passesRun = 0;

  struct Step {
    bool isPass = true;  // else: a setting of the returns
    std::size_t proto = 0;
    std::vector<Value> upvalues;  // a pass's inputs besides the field map and returns
    std::vector<Value> entry;     // `self` and the parameters (ValueMap::entryValues)
    Pass pass;      // what the pass found
    Value returns;  // what the returns were set to
  };
  std::vector<Step> steps;  // of the last map, in order
  // What the last map was built with: the same settings and the same shape
  // of chunk (parents, children, upvalue descriptors, which upvalues are
  // assigned, creating pcs) or nothing is taken over.
  const RecorderProfile* profile = nullptr;
  BuiltinAliases aliases;
  const CModules* cModules = nullptr;
  std::vector<std::size_t> shape;
  bool valid = false;  // false: the last map did not finish
  // The names the maps intern and the library values by name: values
  // taken over point into them.
  std::unordered_set<std::string> names;
  std::unordered_map<std::string_view, Value> libraryCache;
  std::size_t namesWhenStarted = 0;  // names kept when the pool was last emptied

  // The map being built: its steps, and per prototype its latest pass step.
  std::vector<Step> next;
  std::vector<std::size_t> latestPass;
  std::size_t cursor = 0;  // the step of the last map at the same place
  bool aligned = false;
};

}  // namespace ljcheck::flow
