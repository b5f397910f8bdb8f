// ctypes registered by name through a helper function (see ctype_registrars.h).
#include "flow/ctype_registrars.h"

#include <set>

#include "flow/instruction_effects.h"

namespace ljcheck::flow {
namespace {

using bytecode::Op;
using Kind = Value::Kind;

// The store `table[key] = value` at pc as a registrar, when value is the
// result of ffi.metatype(param, param) called just before and table is a
// parameter or a constant-key field of one.
bool matchStore(const bytecode::Chunk& chunk, const ValueMap& values, std::size_t p, int pc, CtypeRegistrar& out) {
  const auto& proto = chunk.prototypes[p];
  const auto& store = proto.at(pc);
  // The cheap test first (the parameter tests scan the whole function):
  // the stored value is what ffi.metatype just returned, the call being the
  // instruction before the store, as LuaJIT emits `t[k] = f(...)`.
  int callPc = pc - 1;
  if (callPc < 1) return false;
  const auto& call = proto.at(callPc);
  if (call.op != Op::CALL || call.a != store.a || fixedArgs(call) != 2) return false;
  Value callee = values.at(p, callPc, calleeSlot(call));
  if (!callee.is(Kind::LibFunction) || callee.name != "ffi.metatype") return false;
  out.keyParam = parameterIn(proto, pc, store.c);
  if (out.keyParam < 0) return false;
  // The ctype may be rewritten on the way (ljsyscall's abi.rumpfn): its
  // spelling only names the type, so a copy of the parameter will do.
  out.ctypeParam = copiedParameter(proto, callPc, argumentSlot(chunk, call, 0));
  out.metatableParam = parameterIn(proto, callPc, argumentSlot(chunk, call, 1));
  if (out.ctypeParam < 0 || out.metatableParam < 0) return false;
  out.tableParam = parameterIn(proto, pc, store.b);
  if (out.tableParam >= 0) return true;
  int fieldPc = lastWriteBefore(proto, pc, store.b);
  if (fieldPc == 0) return false;
  const auto& read = proto.at(fieldPc);
  const std::string* field = read.op == Op::TGETS ? proto.stringConstant(read.c) : nullptr;
  if (!field) return false;
  out.tableParam = parameterIn(proto, fieldPc, read.b);
  out.field = *field;
  return out.tableParam >= 0;
}

// The registrar a call at pc calls, or null.
const CtypeRegistrar* registrarCalled(const ValueMap& values, std::size_t p, int pc, const bytecode::Instruction& ins,
                                      const std::vector<CtypeRegistrar>& own,
                                      const std::map<std::string, CtypeRegistrar>& imported) {
  Value callee = values.at(p, pc, calleeSlot(ins));
  if (callee.is(Kind::LuaFunction)) {
    for (const auto& r : own)
      if (r.proto == callee.proto) return &r;
  } else if (callee.is(Kind::ModuleMember)) {
    auto it = imported.find(std::string(callee.name));
    if (it != imported.end()) return &it->second;
  }
  return nullptr;
}

std::string where(const CtypeRegistrar& r) {
  std::string store = r.field.empty() ? "its table argument" : "the field `" + r.field + "` of its table argument";
  std::string at = r.definedIn.empty() ? "line " + std::to_string(r.storeLine)
                                       : r.definedIn + ":" + std::to_string(r.storeLine);
  return "a function that stores ffi.metatype(ct, mt) under its name argument in " + store + " (" + at + ")";
}

}  // namespace

const CtypeConstructor* registeredConstructorCalled(const ValueMap& values,
                                                    const std::vector<CtypeConstructor>& constructors,
                                                    std::size_t proto, int pc, int slot) {
  Value read = values.fieldReadAt(proto, pc, slot);
  if (read.kind != Kind::Method || read.integer != Value::kMethodOfTable) return nullptr;
  for (const auto& c : constructors)
    if (!c.registeredKey.empty() && c.registeredProto == read.proto && c.registeredPc == read.pc &&
        c.registeredKey == read.name)
      return &c;
  return nullptr;
}

std::vector<CtypeRegistrar> findCtypeRegistrars(const bytecode::Chunk& chunk, const ValueMap& values) {
  std::vector<CtypeRegistrar> out;
  for (std::size_t p = 0; p < chunk.prototypes.size(); ++p) {
    const auto& proto = chunk.prototypes[p];
    if (proto.numparams < 3) continue;
    for (int pc = 1; pc <= proto.size(); ++pc) {
      if (proto.at(pc).op != Op::TSETV) continue;
      CtypeRegistrar r;
      r.proto = p;
      r.storeLine = proto.at(pc).line;
      if (!matchStore(chunk, values, p, pc, r)) continue;
      out.push_back(std::move(r));
      break;  // one store per function: the first names it
    }
  }
  return out;
}

std::map<std::string, CtypeRegistrar> exportedRegistrars(const ValueMap& values,
                                                        const std::vector<CtypeRegistrar>& own) {
  std::map<std::string, CtypeRegistrar> out;
  if (own.empty()) return out;
  for (const auto& [member, proto] : values.exportedFunctions())
    for (const auto& r : own)
      if (r.proto == proto) out.emplace(std::string(member), r);
  return out;
}

std::vector<CtypeConstructor> registeredConstructors(const bytecode::Chunk& chunk, const ValueMap& values,
                                                     const std::vector<CtypeRegistrar>& own,
                                                     const std::map<std::string, CtypeRegistrar>& imported) {
  std::vector<CtypeConstructor> out;
  if (own.empty() && imported.empty()) return out;
  std::set<std::pair<std::pair<std::uint32_t, int>, std::string>> ambiguous;
  for (std::size_t p = 0; p < chunk.prototypes.size(); ++p) {
    const auto& proto = chunk.prototypes[p];
    for (int pc = 1; pc <= proto.size(); ++pc) {
      const auto& ins = proto.at(pc);
      if (ins.op != Op::CALL) continue;
      const CtypeRegistrar* r = registrarCalled(values, p, pc, ins, own, imported);
      if (!r) continue;
      int args = fixedArgs(ins);
      auto arg = [&](int k) { return k < args ? values.at(p, pc, argumentSlot(chunk, ins, k)) : Value{}; };
      Value table = arg(r->tableParam);
      if (!r->field.empty()) table = values.field(table, r->field);
      Value key = arg(r->keyParam), ctype = arg(r->ctypeParam);
      Value newFn = values.field(arg(r->metatableParam), "__new");
      if (!table.is(Kind::Table) || table.pc == 0 || !key.isConstantString()) continue;
      if (!ctype.isConstantString() && !ctype.is(Kind::CType)) continue;
      if (!newFn.is(Kind::LuaFunction) || newFn.proto >= chunk.prototypes.size()) continue;
      CtypeConstructor c;
      c.spelling = std::string(ctype.name);
      c.newProto = newFn.proto;
      c.metatypeLine = ins.line;
      c.registeredKey = std::string(key.text());
      c.registeredProto = table.proto;
      c.registeredPc = table.pc;
      c.registeredBy = "line " + std::to_string(ins.line) + " registers it under the name \"" + c.registeredKey +
                       "\" by calling " + where(*r);
      summarizeNew(chunk, values, c);
      // A name registered twice in one table may hold either ctype.
      auto id = std::make_pair(std::make_pair(c.registeredProto, c.registeredPc), c.registeredKey);
      bool twice = false;
      for (auto it = out.begin(); it != out.end();)
        if (it->registeredProto == c.registeredProto && it->registeredPc == c.registeredPc &&
            it->registeredKey == c.registeredKey) {
          it = out.erase(it);
          twice = true;
        } else {
          ++it;
        }
      if (twice) ambiguous.insert(id);
      if (!ambiguous.count(id)) out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace ljcheck::flow
