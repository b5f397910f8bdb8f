// Branches around an instruction (see every_pass.h).
#include "flow/every_pass.h"

#include <algorithm>

#include "flow/instruction_effects.h"

namespace ljcheck::flow {

namespace {

// The first branch from `first` on (branches are in pc order).
std::vector<Branch>::const_iterator firstFrom(const std::vector<Branch>& branches, int first) {
  return std::lower_bound(branches.begin(), branches.end(), first,
                          [](const Branch& b, int at) { return b.from < at; });
}

}  // namespace

std::vector<Branch> branchesOf(const bytecode::Prototype& proto) {
  std::vector<Branch> out;
  out.reserve(static_cast<std::size_t>(proto.size()) / 4 + 1);  // about one instruction in five branches
  for (int pc = 1; pc <= proto.size(); ++pc) {
    const auto& ins = proto.at(pc);
    Flow f = flowOf(ins, pc);
    if (!f.fallsThrough && f.jump == 0) out.push_back({pc, 0, ins.line});
    for (int target : {f.jump, f.skip})
      if (target != 0) out.push_back({pc, target, ins.line});
  }
  return out;
}

const Branch* branchAround(const std::vector<Branch>& branches, int pc, int first, int last, bool wholeFunction) {
  auto it = firstFrom(branches, first);
  for (; it != branches.end() && it->from < pc; ++it) {
    if (it->to == 0 ? wholeFunction : it->to > pc && it->to <= last) return &*it;
  }
  return nullptr;
}

const Branch* earlyExit(const std::vector<Branch>& branches, int first, int last) {
  auto it = firstFrom(branches, first);
  for (; it != branches.end() && it->from < last; ++it)
    if (it->to == 0 || it->to > last || it->to < first) return &*it;
  return nullptr;
}

}  // namespace ljcheck::flow
