// The functions of other modules ("a.b:f") a file calls between a masked site
// and the abort that masks it, directly or through functions of the file.
// When one of them runs a loop, the masking ends at that call (masking.h: a
// side trace from the loop's exit returns there), which only the other
// file's analysis can tell: the project then analyzes this file again
// knowing which of them loop (ModuleImports::loopingMembers), and only then.
// Taken from an analysis that knew none of them (analyzer.cpp): what it
// unmasks must not take away the reason it was given.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flow/values.h"
#include "ljcheck/bytecode.h"

namespace ljcheck::rules {

class MembersBehindAborts {
 public:
  MembersBehindAborts(const bytecode::Chunk& chunk, const flow::ValueMap& values) : chunk_(chunk), values_(values) {}
  // Notes the members called in (abortPc, sitePc) of the prototype. Sites
  // behind one abort are noted in any order; each call is looked at once.
  // A tail call never returns to the site and is not counted.
  void note(std::size_t proto, int abortPc, int sitePc);
  const std::set<std::string>& members() const { return members_; }

 private:
  // The calls of a prototype that reach other modules' functions, by pc
  // (ascending), each with the members it reaches.
  const std::vector<std::pair<int, std::vector<std::string_view>>>& callsIn(std::size_t proto);
  // The members a function of this file calls, directly or through others.
  const std::set<std::string_view>& reachedBy(std::size_t proto);

  const bytecode::Chunk& chunk_;
  const flow::ValueMap& values_;
  std::map<std::size_t, std::vector<std::pair<int, std::vector<std::string_view>>>> calls_;
  std::map<std::size_t, std::set<std::string_view>> reached_;
  std::set<std::size_t> inProgress_;  // prototypes whose callsIn is being worked out
  std::map<std::pair<std::size_t, int>, int> notedUpTo_;       // by (proto, abortPc): the highest site noted
  std::set<std::string> members_;
};

}  // namespace ljcheck::rules
