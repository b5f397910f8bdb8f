// Which prototypes of a chunk can get hot, as far as the file shows: a
// function called from a loop (or from a function that can get hot) is
// inlined into that loop's trace. The main chunk runs once and is never hot
// outside its loops; a function whose callers are all outside this file is
// only possibly hot, when it escapes.
#pragma once

#include <vector>

#include "flow/values.h"
#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

struct CallSite {
  std::size_t proto = 0;  // the calling prototype
  int pc = 0;             // its CALL-like instruction
  // pcall(f, ...) or xpcall(f, handler, ...): f runs above a pcall frame,
  // and its arguments start one (xpcall: two) slots later.
  bool protectedCall = false;
  int firstArgument = 0;  // index of the call's argument that is f's first parameter
};

// Known: called from a loop or a known-hot function in this file.
// Possible: it escapes (stored in a table or global, returned, passed as an
// argument), so code elsewhere may call it hot. Cold: neither.
enum class Heat { Cold, Possible, Known };

class CallGraph {
 public:
  CallGraph(const bytecode::Chunk& chunk, const ValueMap& values);
  Heat heat(std::size_t proto) const { return heat_.at(proto); }
  // Where a prototype is called from, in the order found.
  const std::vector<CallSite>& callers(std::size_t proto) const { return callers_.at(proto); }
  // Where a prototype is handed to a library function that calls it back
  // from C (string.gsub's replacement, table.sort's comparator).
  const std::vector<CallSite>& callbacks(std::size_t proto) const { return callbacks_.at(proto); }
  // True when the instruction at pc of proto runs in a loop or in a
  // function that is (or may be) hot.
  bool runsHot(std::size_t proto, int pc) const;
  // Known when in a loop or a known-hot function.
  Heat heatAt(std::size_t proto, int pc) const;
  bool inLoop(std::size_t proto, int pc) const;
  bool hasLoop(std::size_t proto) const { return !loopRanges_.at(proto).empty(); }
  // The strongly connected component of a prototype in the graph of
  // resolved calls: prototypes with the same component id call each other
  // round in a cycle; recursive() when its component has a cycle.
  std::size_t component(std::size_t proto) const { return component_.at(proto); }
  bool recursive(std::size_t proto) const { return recursive_.at(proto); }
  // Called through pcall/xpcall in this file, or from such a function
  // through resolved calls: an error raised there is caught, and the code
  // that raised it can run again.
  bool underPcall(std::size_t proto) const { return underPcall_.at(proto); }

 private:
  std::vector<Heat> heat_;
  std::vector<std::vector<CallSite>> callers_;
  std::vector<std::vector<CallSite>> callbacks_;
  std::vector<std::vector<std::pair<int, int>>> loopRanges_;  // per proto
  std::vector<std::size_t> component_;
  std::vector<bool> recursive_;
  std::vector<bool> underPcall_;
  void findCycles();
  void findProtected();
};

}  // namespace ljcheck::flow
