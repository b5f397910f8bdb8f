// Loop structure of one prototype, from its back edges: numeric for
// (FORI/FORL), generic for (ITERC|ITERN/ITERL) and while/repeat (LOOP + JMP).
#pragma once

#include <utility>
#include <vector>

#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

struct Loop {
  enum class Kind { NumericFor, GenericFor, While };
  Kind kind = Kind::While;
  int first = 0;  // first pc of the loop (body start, or condition start for while)
  int last = 0;   // the back-edge instruction
  bool contains(int pc) const { return pc >= first && pc <= last; }
  // Where it is entered: the FORI, JMP or ISNEXT just before a for loop's
  // body, a while loop's condition. Its line is the `for`/`while` line.
  int entry() const { return kind == Kind::While || first <= 1 ? first : first - 1; }
};

// The pcs control can reach from the entry, by pc (index 0 and past the end
// unused): code after a `goto`, `break` or `do return end` is not. From
// another pc `start`: what may run after it (it included).
std::vector<bool> reachablePcs(const bytecode::Prototype& proto, int start = 1);
// The other way round: the pcs from which some path leads to `target` (it
// included), by pc (index 0 and past the end unused).
std::vector<bool> pcsReaching(const bytecode::Prototype& proto, int target);

// The line of a jump (JMP, UCLO) before pc `first` that lands past `last`
// and at or before pc `upTo`: a path that goes around the loop [first, last]
// (`if header then for ... end end`); 0 when there is none.
int jumpAround(const bytecode::Prototype& proto, int first, int last, int upTo);

// Turns of `for i = start, stop, step` (step != 0): 0 when the range is
// empty, as the FORI check decides.
long numericForTurns(long start, long stop, long step);
// The same over numbers that need not be integral (`for x = 0, 1, 0.25`),
// as the VM counts them: adding `step` each turn. -1 for a step of 0 or
// not a number; a count past 2^31 is given as that.
long fractionalForTurns(double start, double stop, double step);

class LoopMap {
 public:
  explicit LoopMap(const bytecode::Prototype& proto);
  const std::vector<Loop>& loops() const { return loops_; }
  // The innermost loop containing pc, or null.
  const Loop* innermost(int pc) const;
  bool inLoop(int pc) const { return innermost(pc) != nullptr; }
  // Blocks that run once per entry yet open with a LOOP, a loop to the VM
  // (`repeat ... until true`; a `while true` body that always breaks), as
  // (the LOOP's pc, its exit's pc): no loop of the map closes with a jump
  // back to it or above it (a while loop's condition) right before its exit.
  const std::vector<std::pair<int, int>>& onceBlocks() const { return once_; }

 private:
  std::vector<Loop> loops_;  // sorted by first, outer before inner
  std::vector<std::pair<int, int>> once_;
};

}  // namespace ljcheck::flow
