#include "rules/members_behind_aborts.h"

#include <algorithm>

#include "flow/instruction_effects.h"

namespace ljcheck::rules {

using flow::Value;

void MembersBehindAborts::note(std::size_t proto, int abortPc, int sitePc) {
  int& upTo = notedUpTo_.try_emplace({proto, abortPc}, abortPc).first->second;
  if (sitePc <= upTo) return;
  const auto& calls = callsIn(proto);
  auto from = std::upper_bound(calls.begin(), calls.end(), upTo, [](int pc, const auto& c) { return pc < c.first; });
  for (auto it = from; it != calls.end() && it->first < sitePc; ++it)
    for (std::string_view m : it->second) members_.emplace(m);
  upTo = sitePc;
}

const std::vector<std::pair<int, std::vector<std::string_view>>>& MembersBehindAborts::callsIn(std::size_t proto) {
  auto [it, fresh] = calls_.try_emplace(proto);
  if (!fresh) return it->second;
  inProgress_.insert(proto);
  std::vector<std::pair<int, std::vector<std::string_view>>> found;
  const bytecode::Prototype& code = chunk_.prototypes[proto];
  for (int pc = 1; pc <= code.size(); ++pc) {
    const auto& ins = code.at(pc);
    if (!flow::isCallOrIterator(ins.op) || flow::isTailCall(ins.op)) continue;  // a tail call never returns here
    Value callee = values_.at(proto, pc, flow::calleeSlot(ins));
    if (callee.is(Value::Kind::ModuleMember) || callee.is(Value::Kind::ModuleResult)) {
      found.push_back({pc, {callee.name}});
    } else if (callee.is(Value::Kind::LuaFunction) && callee.proto < chunk_.prototypes.size()) {
      const auto& reached = reachedBy(callee.proto);
      if (!reached.empty()) found.push_back({pc, {reached.begin(), reached.end()}});
    }
  }
  // reachedBy may have added entries: look the prototype up again.
  auto& slot = calls_[proto];
  slot = std::move(found);
  inProgress_.erase(proto);
  return slot;
}

const std::set<std::string_view>& MembersBehindAborts::reachedBy(std::size_t proto) {
  static const std::set<std::string_view> none;
  if (auto it = reached_.find(proto); it != reached_.end()) return it->second;
  if (inProgress_.count(proto)) return none;  // a cycle: its members come in where it started
  std::set<std::string_view> out;
  for (const auto& [pc, members] : callsIn(proto)) out.insert(members.begin(), members.end());
  return reached_[proto] = std::move(out);
}

}  // namespace ljcheck::rules
