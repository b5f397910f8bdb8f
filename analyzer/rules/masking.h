// The recorder stops at the first abort on a path. An abort that every path
// to a site runs through, in the same loop body (or function body), hides
// the site: no trace of that body gets past it. Unless a trace can start
// behind it: an inner loop in between, in the body or in a call that can
// run one (callRunsLoop; the side trace from the loop's exit records the
// rest of the body). A function root trace of a plain callee stops when it
// returns, so a call alone does not unmask. A generic for's iterator call
// comes after its body in the bytecode but runs first, on loop entry.
#pragma once

#include <map>
#include <vector>

#include "flow/call_graph.h"
#include "flow/loops.h"
#include "flow/values.h"
#include "ljcheck/bytecode.h"

namespace ljcheck::rules {

// The line of the first UCLO of a Lua function that runs one before each of
// its returns, when every return is reached only through a UCLO; 0
// otherwise. A function that creates closures closes upvalues before its
// returns (lj_parse.c: parse_return, fs_fixup_ret), and the recorder
// refuses UCLO (NYIBC), so a trace that records a call to it aborts in it
// before the call returns: the call hides what follows it, like an abort.
int closingReturnLine(const bytecode::Prototype& callee);

// The call (or ITERC) at pc can run a loop that returns into this function:
// a Lua function of this file that runs a loop (its own, or one of a function
// it calls: CallGraph::runsLoop), another file's module function that runs
// one (CallGraph::memberRunsLoop), or a callee the file
// does not resolve that gets a function as an argument (a higher-order call
// such as list:each(fn) loops over its callback). Tail calls return to the
// caller's caller and never do. `sure`, when given, says whether the side
// trace from the loop's exit surely returns here: a loop of a function of
// this file whose body calls no function that runs a loop (audit 97:
// reduce's loop calling back a closure that ran sum's loop linked to that
// loop's trace and was never left by its own exit), or another module's
// looping function; not a guessed higher-order call.
bool callRunsLoop(const bytecode::Chunk& chunk, std::size_t proto, const flow::ValueMap& values,
                  const flow::CallGraph& calls, int pc, bool* sure = nullptr);

// The certain aborts of one prototype and which site each hides. Built with
// one pass over the prototype; each question then costs about log n, so a
// loop body with tens of thousands of sites is answered in near-linear time.
class Masking {
 public:
  // `maskers`: the pcs of the prototype's certain aborts, in any order.
  Masking(const bytecode::Chunk& chunk, std::size_t proto, const flow::ValueMap& values,
          const flow::CallGraph& calls, const std::vector<int>& maskers);
  // The same prototype's Masking with other maskers: what does not depend
  // on them (loops, where traces may start, jumps) is kept, not found again.
  Masking withMaskers(const std::vector<int>& maskers) const;
  // The lowest masker pc that hides the site at `pc`; 0 when none does.
  int firstMasker(int pc) const;

  // How the paths from where a trace of the site's loop body (or function
  // body) starts meet the maskers before `pc` (those firstMasker weighs:
  // in the same body, no trace start between), each taken alone or with
  // others: several maskers may hide a site together, a closure on each
  // branch of an `if` (audit 106: wsapi.request.new).
  struct Paths {
    // Every path to pc runs into a masker first, though no one masker is
    // on all of them: the lowest masker some path to pc runs into; else 0.
    int everyPathAborts = 0;
    // Some path to pc runs into a masker first and another runs into
    // none: the lowest masker on such a path; else 0.
    int somePathAborts = 0;
  };
  Paths pathsTo(int pc) const;

 private:
  // The highest pc t in (masker, pc] that a jump from outside [masker, pc)
  // lands on; 0 when there is none (every path to pc runs through masker).
  int entryBehind(int masker, int pc) const;
  int entryBehind(std::size_t node, int low, int high, int masker, int pc) const;
  void setMaskers(const std::vector<int>& maskers);
  // pathsTo's sweep over a body (loop index, -1 for the function's) with
  // the maskers from pc `low` on, by pc from the body's first.
  struct Sweep {
    int first = 0;
    std::vector<char> clean;
    std::vector<int> through;
  };
  const Sweep& sweep(int loop, int low) const;
  mutable std::map<std::pair<int, int>, Sweep> sweeps_;

  const bytecode::Prototype* code_ = nullptr;
  std::vector<std::pair<int, int>> bodies_;  // by loop index: its first and last pc
  std::vector<char> enteredFromOutside_;     // by pc: a jump from outside its innermost body lands on it
  int size_ = 0;                          // highest pc
  std::vector<int> innermost_;            // by pc: index of the innermost loop, -1 for none
  std::vector<int> floor_;                // by pc: the lowest masker pc a trace cannot start behind
  std::map<int, std::vector<int>> maskersByLoop_;  // by innermost loop, ascending pcs
  // Over jump targets t, a segment tree of the lowest and highest pc jumping to t.
  std::vector<int> lowestSource_, highestSource_;
  int leaves_ = 1;
};

}  // namespace ljcheck::rules
