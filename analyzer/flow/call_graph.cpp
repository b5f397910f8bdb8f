// Hot prototypes from resolved calls (see call_graph.h).
#include "flow/call_graph.h"

#include "flow/instruction_effects.h"
#include "flow/loops.h"

namespace ljcheck::flow {

using bytecode::Op;

CallGraph::CallGraph(const bytecode::Chunk& chunk, const ValueMap& values)
    : heat_(chunk.prototypes.size(), Heat::Cold),
      callers_(chunk.prototypes.size()),
      callbacks_(chunk.prototypes.size()),
      loopRanges_(chunk.prototypes.size()) {
  std::vector<bool> escapes = values.escapingFunctions();
  for (std::size_t q = 0; q < chunk.prototypes.size(); ++q) {
    const auto& proto = chunk.prototypes[q];
    LoopMap loops(proto);
    for (const auto& loop : loops.loops()) loopRanges_[q].push_back({loop.first, loop.last});
    for (int pc = 1; pc <= proto.size(); ++pc) {
      const auto& ins = proto.at(pc);
      if (!isCallOrIterator(ins.op)) continue;
      Value callee = values.at(q, pc, calleeSlot(ins));
      if (callee.is(Value::Kind::LuaFunction) && callee.proto < chunk.prototypes.size()) {
        callers_[callee.proto].push_back({q, pc, false, 0});
      } else if (callee.is(Value::Kind::LibFunction) && (callee.name == "pcall" || callee.name == "xpcall") &&
                 ins.op != Op::ITERC) {
        Value f = values.at(q, pc, argumentSlot(chunk, ins, 0));
        if (f.is(Value::Kind::LuaFunction) && f.proto < chunk.prototypes.size())
          callers_[f.proto].push_back({q, pc, true, callee.name == "pcall" ? 1 : 2});
      } else if (callee.is(Value::Kind::LibFunction) && (callee.name == "string.gsub" || callee.name == "table.sort")) {
        int k = callee.name == "string.gsub" ? 2 : 1;
        if (k >= fixedArgs(ins)) continue;
        Value f = values.at(q, pc, argumentSlot(chunk, ins, k));
        if (f.is(Value::Kind::LuaFunction) && f.proto < chunk.prototypes.size())
          callbacks_[f.proto].push_back({q, pc, false, 0});
      }
    }
  }
  findCycles();
  findProtected();
  // A function is as hot as its hottest call site; iterate to a fixpoint.
  for (std::size_t p = 0; p < escapes.size(); ++p)
    if (escapes[p]) heat_[p] = Heat::Possible;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t p = 0; p < callers_.size(); ++p) {
      for (const auto& site : callers_[p]) {
        Heat h = heatAt(site.proto, site.pc);
        if (h > heat_[p]) {
          heat_[p] = h;
          changed = true;
        }
      }
    }
  }
}

// Kosaraju over the call edges (caller -> callee): one pass in the reverse
// graph (callers) for a finishing order, one in the forward graph.
void CallGraph::findCycles() {
  std::size_t n = callers_.size();
  std::vector<std::vector<std::size_t>> callees(n);
  recursive_.assign(n, false);
  for (std::size_t p = 0; p < n; ++p)
    for (const auto& site : callers_[p]) {
      callees[site.proto].push_back(p);
      if (site.proto == p) recursive_[p] = true;
    }
  std::vector<std::size_t> order;
  std::vector<bool> seen(n, false);
  for (std::size_t root = 0; root < n; ++root) {
    if (seen[root]) continue;
    std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};  // node, next edge
    seen[root] = true;
    while (!stack.empty()) {
      auto& [node, edge] = stack.back();
      if (edge < callers_[node].size()) {
        std::size_t next = callers_[node][edge++].proto;
        if (!seen[next]) {
          seen[next] = true;
          stack.push_back({next, 0});
        }
      } else {
        order.push_back(node);
        stack.pop_back();
      }
    }
  }
  component_.assign(n, SIZE_MAX);
  std::vector<std::size_t> size;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (component_[*it] != SIZE_MAX) continue;
    std::size_t id = size.size();
    size.push_back(0);
    std::vector<std::size_t> stack{*it};
    component_[*it] = id;
    while (!stack.empty()) {
      std::size_t node = stack.back();
      stack.pop_back();
      ++size[id];
      for (std::size_t next : callees[node])
        if (component_[next] == SIZE_MAX) {
          component_[next] = id;
          stack.push_back(next);
        }
    }
  }
  for (std::size_t p = 0; p < n; ++p)
    if (size[component_[p]] > 1) recursive_[p] = true;
}

// Forward from the targets of pcall/xpcall over the resolved call edges.
void CallGraph::findProtected() {
  std::size_t n = callers_.size();
  std::vector<std::vector<std::size_t>> callees(n);
  std::vector<std::size_t> work;
  underPcall_.assign(n, false);
  for (std::size_t p = 0; p < n; ++p)
    for (const auto& site : callers_[p]) {
      callees[site.proto].push_back(p);
      if (site.protectedCall && !underPcall_[p]) {
        underPcall_[p] = true;
        work.push_back(p);
      }
    }
  while (!work.empty()) {
    std::size_t p = work.back();
    work.pop_back();
    for (std::size_t c : callees[p])
      if (!underPcall_[c]) {
        underPcall_[c] = true;
        work.push_back(c);
      }
  }
}

Heat CallGraph::heatAt(std::size_t proto, int pc) const {
  return inLoop(proto, pc) ? Heat::Known : heat_.at(proto);
}

bool CallGraph::runsHot(std::size_t proto, int pc) const { return heatAt(proto, pc) != Heat::Cold; }

bool CallGraph::inLoop(std::size_t proto, int pc) const {
  for (const auto& [first, last] : loopRanges_.at(proto))
    if (pc >= first && pc <= last) return true;
  return false;
}

}  // namespace ljcheck::flow
