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
  void note(std::size_t proto, int abortPc, int sitePc);
  const std::set<std::string>& members() const { return members_; }

 private:
  // A call that can reach other modules' functions: one of them (member),
  // or a function of this file (callee), which may call some.
  struct Call {
    int pc = 0;
    std::string_view member;
    std::size_t callee = 0;
  };
  // The calls of a prototype that can reach other modules' functions, by
  // ascending pc; tail calls left out (they never return to the site).
  const std::vector<Call>& callsIn(std::size_t proto);
  // The members a function of this file calls, directly or through others.
  const std::set<std::string_view>& reachedBy(std::size_t proto);

  const bytecode::Chunk& chunk_;
  const flow::ValueMap& values_;
  std::map<std::size_t, std::vector<Call>> calls_;
  std::map<std::size_t, std::set<std::string_view>> reached_;
  std::map<std::pair<std::size_t, int>, int> notedUpTo_;  // by (proto, abortPc): the highest site noted
  std::set<std::string> members_;
};

}  // namespace ljcheck::rules
