// Stores into a `module(...)` file's module table (module_environment.h).
//
// Which registers hold the table is followed in pc order, without branches:
// `_M` is read into a local once (`local M = _M`) or right before a store,
// and closures reach that local as an immutable upvalue.
#include "flow/module_environment.h"

#include <string>
#include <vector>

#include "flow/instruction_effects.h"

namespace ljcheck::flow {
namespace {

using bytecode::Op;
using bytecode::Prototype;

bool readsGlobal(const Prototype& p, const bytecode::Instruction& ins, std::string_view name) {
  if (ins.op != Op::GGET) return false;
  const std::string* s = p.stringConstant(ins.d);
  return s && *s == name;
}

}  // namespace

int afterModuleCall(const Prototype& main) {
  std::vector<char> holdsModule(kAddressableSlots, 0);
  for (int pc = 1; pc <= main.size(); ++pc) {
    const auto& ins = main.at(pc);
    if ((ins.op == Op::CALL || ins.op == Op::CALLM) && holdsModule[ins.a]) return pc + 1;
    Writes w = writesOf(ins);
    for (int s = std::max(w.first, 0); s <= w.last && s < kAddressableSlots; ++s) holdsModule[s] = 0;
    if (readsGlobal(main, ins, "module")) holdsModule[ins.a] = 1;
  }
  return 0;
}

namespace {

// What holds the module table in one function.
struct Holders {
  std::vector<char> locals;    // by slot: set from `_M` and never written again
  std::vector<char> upvalues;  // by upvalue index
};

}  // namespace

void addModuleTableStores(const bytecode::Chunk& chunk, int start, std::map<std::string_view, int>& stores,
                          std::map<std::string_view, std::size_t>& closures) {
  if (chunk.prototypes.empty() || start == 0) return;
  const std::size_t mainIndex = chunk.prototypes.size() - 1;
  std::vector<Holders> holders(chunk.prototypes.size());
  // Parents come after their children in a dump: from the end, each
  // function's upvalues are known from its parent's locals.
  for (std::size_t i = chunk.prototypes.size(); i-- > 0;) {
    const Prototype& p = chunk.prototypes[i];
    Holders& h = holders[i];
    h.upvalues.assign(p.upvalues.size(), 0);
    if (i != mainIndex) {
      if (p.parent >= holders.size()) continue;
      const Holders& parent = holders[p.parent];
      for (std::size_t u = 0; u < p.upvalues.size(); ++u) {
        const auto& uv = p.upvalues[u];
        if (uv.parentLocal)
          h.upvalues[u] = uv.immutable && uv.index < parent.locals.size() && parent.locals[uv.index];
        else
          h.upvalues[u] = uv.index < parent.upvalues.size() && parent.upvalues[uv.index];
      }
    }
    h.locals.assign(kAddressableSlots, 0);
    std::vector<char> now(kAddressableSlots, 0), otherWrite(kAddressableSlots, 0);
    for (int pc = i == mainIndex ? start : 1; pc <= p.size(); ++pc) {
      const auto& ins = p.at(pc);
      if (ins.op == Op::TSETS && now[ins.b]) {
        if (const std::string* name = p.stringConstant(ins.c)) {
          ++stores[*name];
          if (pc > 1) {
            const auto& made = p.at(pc - 1);
            if (made.op == Op::FNEW && made.a == ins.a && made.d < p.gc.size() &&
                p.gc[made.d].kind == bytecode::GcConstant::Kind::Child)
              closures[*name] = p.gc[made.d].child;
          }
        }
      }
      bool fromTable = readsGlobal(p, ins, "_M") ||
                       (ins.op == Op::UGET && ins.d < h.upvalues.size() && h.upvalues[ins.d]) ||
                       (ins.op == Op::MOV && ins.d < kAddressableSlots && now[ins.d]);
      Writes w = writesOf(ins);
      for (int s = std::max(w.first, 0); s <= w.last && s < kAddressableSlots; ++s) {
        now[s] = 0;
        if (h.locals[s] && !fromTable) otherWrite[s] = 1;
      }
      if (fromTable) now[ins.a] = h.locals[ins.a] = 1;
    }
    for (int s = 0; s < kAddressableSlots; ++s)
      if (otherWrite[s]) h.locals[s] = 0;
  }
}

}  // namespace ljcheck::flow
