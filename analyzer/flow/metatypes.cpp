// ctypes with a `__new` metamethod (see metatypes.h).
#include "flow/metatypes.h"

#include "flow/instruction_effects.h"

namespace ljcheck::flow {
namespace {

using Kind = Value::Kind;

}  // namespace

// What `__new` hands to ffi.new in a tail call: ffi.new(ct, init) with ct
// its own first parameter (the ctype being called) and one initializer.
void summarizeNew(const bytecode::Chunk& chunk, const ValueMap& values, CtypeConstructor& out) {
  const auto& proto = chunk.prototypes[out.newProto];
  if (proto.numparams < 1 || assignsSlot(proto, 0)) return;
  for (int pc = 1; pc <= proto.size(); ++pc) {
    const auto& ins = proto.at(pc);
    if (!isTailCall(ins.op) || fixedArgs(ins) != 2) continue;
    Value callee = values.at(out.newProto, pc, calleeSlot(ins));
    if (!callee.is(Kind::LibFunction) || callee.name != "ffi.new") continue;
    if (copiedParameter(proto, pc, argumentSlot(chunk, ins, 0)) != 0) continue;
    int init = argumentSlot(chunk, ins, 1);
    if (values.at(out.newProto, pc, init).is(Kind::Table)) {
      out.initializer = NewInitializer::Table;
    } else if (copiedParameter(proto, pc, init) == 1) {
      out.initializer = NewInitializer::Argument;
    } else {
      continue;
    }
    out.initializerLine = ins.line;
    return;
  }
}

std::vector<CtypeConstructor> findCtypeConstructors(const bytecode::Chunk& chunk, const ValueMap& values) {
  std::vector<CtypeConstructor> out;
  for (std::size_t p = 0; p < chunk.prototypes.size(); ++p) {
    const auto& proto = chunk.prototypes[p];
    for (int pc = 1; pc <= proto.size(); ++pc) {
      const auto& ins = proto.at(pc);
      if (!isCall(ins.op) || fixedArgs(ins) < 2) continue;
      Value callee = values.at(p, pc, calleeSlot(ins));
      if (!callee.is(Kind::LibFunction) || callee.name != "ffi.metatype") continue;
      Value ctype = values.at(p, pc, argumentSlot(chunk, ins, 0));
      if (!ctype.isConstantString() && !ctype.is(Kind::CType)) continue;
      Value newFn = values.field(values.at(p, pc, argumentSlot(chunk, ins, 1)), "__new");
      if (!newFn.is(Kind::LuaFunction) || newFn.proto >= chunk.prototypes.size()) continue;
      CtypeConstructor c;
      c.spelling = std::string(ctype.name);
      c.newProto = newFn.proto;
      c.metatypeLine = ins.line;
      summarizeNew(chunk, values, c);
      out.push_back(std::move(c));
    }
  }
  return out;
}

const CtypeConstructor* constructedType(const bytecode::Chunk& chunk, const std::vector<CtypeConstructor>& constructors,
                                        std::size_t proto, int pc, int slot) {
  for (const auto& c : constructors) {
    if (c.newProto != proto) continue;
    const auto& p = chunk.prototypes[proto];
    if (p.numparams < 1 || assignsSlot(p, 0) || copiedParameter(p, pc, slot) != 0) return nullptr;
    return &c;
  }
  return nullptr;
}

const CtypeConstructor* findConstructor(const std::vector<CtypeConstructor>& constructors, std::string_view spelling) {
  for (const auto& c : constructors)
    if (c.spelling == spelling) return &c;
  return nullptr;
}

}  // namespace ljcheck::flow

namespace ljcheck::flow {

std::map<std::string, CtypeConstructor> exportedConstructors(const bytecode::Chunk& chunk, const ValueMap& values,
                                                             const std::vector<CtypeConstructor>& own) {
  std::map<std::string, CtypeConstructor> out;
  if (own.empty() || chunk.prototypes.empty()) return out;
  Value module = values.returned(chunk.prototypes.size() - 1);
  if (!module.is(Value::Kind::Table)) return out;
  // The keys a file can store under are among its string constants.
  for (const auto& proto : chunk.prototypes)
    for (const auto& k : proto.gc) {
      if (k.kind != bytecode::GcConstant::Kind::String || out.count(k.str)) continue;
      Value member = values.field(module, k.str);
      if (!member.is(Value::Kind::CType)) continue;
      if (const CtypeConstructor* c = findConstructor(own, member.name)) out.emplace(k.str, *c);
    }
  return out;
}

}  // namespace ljcheck::flow
