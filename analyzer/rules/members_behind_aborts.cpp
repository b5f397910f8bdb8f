#include "rules/members_behind_aborts.h"

#include <algorithm>

#include "flow/instruction_effects.h"

namespace ljcheck::rules {

using flow::Value;

void MembersBehindAborts::note(std::size_t proto, int abortPc, int sitePc) {
  int& upTo = notedUpTo_.try_emplace({proto, abortPc}, abortPc).first->second;
  if (sitePc <= upTo) return;
  const auto& calls = callsIn(proto);
  auto from = std::upper_bound(calls.begin(), calls.end(), upTo, [](int pc, const Call& c) { return pc < c.pc; });
  for (auto it = from; it != calls.end() && it->pc < sitePc; ++it) {
    if (!it->member.empty()) members_.emplace(it->member);
    else
      for (std::string_view m : reachedBy(it->callee)) members_.emplace(m);
  }
  upTo = sitePc;
}

const std::vector<MembersBehindAborts::Call>& MembersBehindAborts::callsIn(std::size_t proto) {
  auto [it, fresh] = calls_.try_emplace(proto);
  if (!fresh) return it->second;
  const bytecode::Prototype& code = chunk_.prototypes[proto];
  for (int pc = 1; pc <= code.size(); ++pc) {
    const auto& ins = code.at(pc);
    if (!flow::isCallOrIterator(ins.op) || flow::isTailCall(ins.op)) continue;  // a tail call never returns here
    Value callee = values_.at(proto, pc, flow::calleeSlot(ins));
    if (callee.is(Value::Kind::ModuleMember) || callee.is(Value::Kind::ModuleResult))
      it->second.push_back({pc, callee.name, 0});
    else if (callee.is(Value::Kind::LuaFunction) && callee.proto < chunk_.prototypes.size())
      it->second.push_back({pc, {}, callee.proto});
  }
  return it->second;
}

// A walk over the file's calls with a stack of its own: chains of calls can
// be as deep as the file has functions.
const std::set<std::string_view>& MembersBehindAborts::reachedBy(std::size_t proto) {
  auto [it, fresh] = reached_.try_emplace(proto);
  if (!fresh) return it->second;
  std::set<std::size_t> seen{proto};
  std::vector<std::size_t> stack{proto};
  while (!stack.empty()) {
    std::size_t p = stack.back();
    stack.pop_back();
    for (const Call& c : callsIn(p)) {
      if (!c.member.empty()) it->second.insert(c.member);
      else if (seen.insert(c.callee).second) stack.push_back(c.callee);
    }
  }
  return it->second;
}

}  // namespace ljcheck::rules
