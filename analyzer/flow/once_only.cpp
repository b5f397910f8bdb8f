// Once-only code: lazy initializations and memoized results (see once_only.h).
#include "flow/once_only.h"

#include <cstdlib>
#include <string>

#include "flow/instruction_effects.h"
#include "flow/variables.h"

namespace ljcheck::flow {

using bytecode::Op;

namespace {

// Whether `slot` holds a named local variable just before `pc`: LuaJIT gives
// active locals consecutive slots in declaration order.
bool isNamedLocal(const bytecode::Prototype& proto, int pc, int slot) {
  int index = 0;
  for (const auto& v : proto.vars) {
    if (v.startpc > pc || v.endpc <= pc) continue;
    if (index == slot) return !v.name.empty() && v.name[0] != '(';
    ++index;
  }
  return false;
}

// Where the value in `slot` just before `pc` came from: "S<slot>" a named
// local, "U<n>" an upvalue or "G<name>" a global loaded in the straight code
// before pc; "" unknown. A call leaves the slots below its base as they
// were (`cache[k] = make(k)` loads cache before calling make).
std::string originOf(const bytecode::Prototype& proto, int pc, int slot) {
  if (isNamedLocal(proto, pc, slot)) return "S" + std::to_string(slot);
  for (int q = pc - 1; q >= 1; --q) {
    const auto& ins = proto.at(q);
    if (ins.op == Op::JMP) break;
    if (isCallOrIterator(ins.op)) {
      if (slot < ins.a - (ins.op == Op::ITERC ? 3 : 0)) continue;
      break;
    }
    Writes w = writesOf(ins);
    if (slot < w.first || slot > w.last) continue;
    if (ins.op == Op::UGET) return "U" + std::to_string(ins.d);
    if (ins.op == Op::GGET && ins.d < proto.gc.size()) return "G" + proto.gc[ins.d].str;
    return {};
  }
  return {};
}

// What a load reads or a store writes: origin of the table plus the key
// (TGETS/TSETS: the constant; TGETV/TSETV: the key slot's origin), an
// upvalue, or a global; "" when the instruction is neither.
std::string locationOf(const bytecode::Prototype& proto, int pc, bool store) {
  const auto& ins = proto.at(pc);
  auto key = [&](Op strKey, Op varKey) -> std::string {
    std::string table = ins.op == strKey || ins.op == varKey ? originOf(proto, pc, ins.b) : std::string();
    if (table.empty()) return {};
    if (ins.op == strKey && ins.c < proto.gc.size()) return table + "." + proto.gc[ins.c].str;
    std::string k = ins.op == varKey ? originOf(proto, pc, ins.c) : std::string();
    return k.empty() ? std::string() : table + "[" + k + "]";
  };
  if (store) {
    if (ins.op == Op::USETV) return "U" + std::to_string(ins.a);
    if (ins.op == Op::GSET && ins.d < proto.gc.size()) return "G" + proto.gc[ins.d].str;
    return key(Op::TSETS, Op::TSETV);
  }
  if (ins.op == Op::UGET) return "U" + std::to_string(ins.d);
  if (ins.op == Op::GGET && ins.d < proto.gc.size()) return "G" + proto.gc[ins.d].str;
  return key(Op::TGETS, Op::TGETV);
}

// The slot of the main chunk's local that upvalue `n` of prototype q is,
// following upvalues of upvalues up; -1 when it is a local of another
// function. `parents`: each prototype's parent (SIZE_MAX for main).
int mainLocalOf(const bytecode::Chunk& chunk, const std::vector<std::size_t>& parents, std::size_t q, int n) {
  for (int depth = 0; q < chunk.prototypes.size() && depth < 64; ++depth) {
    const auto& ups = chunk.prototypes[q].upvalues;
    if (n < 0 || static_cast<std::size_t>(n) >= ups.size()) return -1;
    const std::size_t parent = parents[q];
    if (parent == SIZE_MAX) return -1;
    const bytecode::UpvalueRef& uv = ups[static_cast<std::size_t>(n)];
    if (uv.parentLocal) return parent + 1 == chunk.prototypes.size() ? uv.index : -1;
    n = uv.index;
    q = parent;
  }
  return -1;
}

// A module-level local (upvalue `n` of q) that keeps the value it was first
// given, a cache that outlives every call: the main chunk never assigns it
// again while it is live (its first value is written before it is), and no
// function assigns it (`cache = {}` on every turn empties it).
bool lastingModuleLocal(const bytecode::Chunk& chunk, const std::vector<std::size_t>& parents, std::size_t q, int n) {
  const int slot = mainLocalOf(chunk, parents, q, n);
  if (slot < 0) return false;
  const bytecode::Prototype& main = chunk.prototypes.back();
  for (int pc = 1; pc <= main.size(); ++pc)
    if (writesSlot(main.at(pc), main.framesize, slot) && variableAt(main, pc, slot)) return false;
  for (std::size_t p = 0; p + 1 < chunk.prototypes.size(); ++p) {
    const bytecode::Prototype& proto = chunk.prototypes[p];
    for (int pc = 1; pc <= proto.size(); ++pc) {
      const auto& ins = proto.at(pc);
      const bool set = ins.op == Op::USETV || ins.op == Op::USETS || ins.op == Op::USETN || ins.op == Op::USETP;
      if (set && mainLocalOf(chunk, parents, p, ins.a) == slot) return false;
    }
  }
  return true;
}

// The parameter the key slot of `where` (a location "U0[S1]") names, or -1.
int keyParameterOf(const bytecode::Prototype& proto, const std::string& where) {
  const std::size_t open = where.find("[S");
  if (open == std::string::npos || where.back() != ']') return -1;
  const int slot = std::atoi(where.c_str() + open + 2);
  return slot < proto.numparams && !assignsSlot(proto, slot) ? slot : -1;
}

}  // namespace

// `if x == nil then x = ... end` and `if not x then x = ... end` over a
// table field, an upvalue or a global: a test of a value just loaded, a JMP
// over the body, and a store to the same place in the body. Also a
// memoizing function, `local c = cache[k] if c then return c end ...
// cache[k] = v return v` over a cache that outlives the call (a table in a
// module-level local or a global): a test that the value just loaded is
// there, a JMP over an early return of that value, and a store to the same
// place after it: the rest of the function runs once per key. A table the
// caller passes in or an enclosing call makes (the `visited` set of one
// traversal) misses on every new item, which may be every call.
std::vector<OnceOnly> findOnceOnly(const bytecode::Chunk& chunk, std::size_t q,
                                   const std::vector<std::size_t>& parents) {
  const bytecode::Prototype& proto = chunk.prototypes[q];
  std::vector<OnceOnly> out;
  std::vector<std::pair<int, int>> jumps;  // every jump and skip: its pc and target, listed at the first test
  for (int pc = 3; pc <= proto.size(); ++pc) {
    const auto& jmp = proto.at(pc);
    const auto& test = proto.at(pc - 1);
    if (jmp.op != Op::JMP || jmp.jumpTarget(pc) <= pc + 1) continue;
    const bool nilTest = (test.op == Op::ISNEP && test.d == 0) || test.op == Op::IST;
    const bool hitTest = (test.op == Op::ISEQP && test.d == 0) || test.op == Op::ISF;
    if (!nilTest && !hitTest) continue;
    int tested = test.op == Op::IST || test.op == Op::ISF ? test.d : test.a;
    const auto& load = proto.at(pc - 2);
    if (writesOf(load).first != tested || writesOf(load).last != tested) continue;
    std::string where = locationOf(proto, pc - 2, false);
    if (where.empty()) continue;
    const int end = jmp.jumpTarget(pc);
    if (end > proto.size()) continue;
    bool memo = false;
    if (hitTest) {
      // The skipped code returns the value (closing upvalues first in a
      // function that makes closures), from a module-level or global cache.
      int at = end - 1;
      if (proto.at(at).op == Op::UCLO) at = proto.at(at).jumpTarget(at);
      const bool returnsIt = at <= proto.size() && proto.at(at).op == Op::RET1 && proto.at(at).a == tested;
      // A field of a module-level table that is never replaced, or a
      // module-level local itself (whose store further on is the memo's).
      const int upvalue = where[0] == 'U' ? std::atoi(where.c_str() + 1) : -1;
      const bool field = where.find_first_of("[.") != std::string::npos;
      const bool lasting = where[0] == 'G' || (upvalue >= 0 && (field ? lastingModuleLocal(chunk, parents, q, upvalue)
                                                                      : mainLocalOf(chunk, parents, q, upvalue) >= 0));
      memo = returnsIt && lasting;
    }
    if (!nilTest && !memo) continue;
    const int first = nilTest ? pc + 1 : end;
    int final = nilTest ? end - 1 : proto.size();
    int store = 0;
    for (int k = first; k <= final && !store; ++k)
      if (locationOf(proto, k, true) == where) store = k;
    if (!store) continue;
    // Only the code no jump from elsewhere enters: when the test ends the
    // branch of an `if`, its jump lands past the whole if/elseif chain, and
    // the next branch (run on every pass that takes it) is in between
    // (audit 100: Penlight's Date, `os.time(t)` after a nil test of another
    // branch).
    if (jumps.empty())
      for (int k = 1; k <= proto.size(); ++k) {
        const Flow flow = flowOf(proto.at(k), k);
        for (int target : {flow.jump, flow.skip})
          if (target > 0) jumps.emplace_back(k, target);
      }
    for (const auto& [from, target] : jumps)
      if ((from < first || from > final) && target > first && target <= final) final = target - 1;
    if (store > final) continue;
    // A global, an upvalue (a field of one), or a local of the main
    // chunk, which runs once: set once per key.
    const bool lasting = where[0] == 'G' || where[0] == 'U' || q + 1 == chunk.prototypes.size();
    out.push_back({first, final, test.line, memo ? keyParameterOf(proto, where) : -1, lasting});
  }
  return out;
}

}  // namespace ljcheck::flow
