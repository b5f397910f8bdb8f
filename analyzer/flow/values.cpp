// A forward pass over each prototype that tracks register values (values.h).
// At a jump target the incoming states meet: equal values stay, values of
// one type lose their constant (strings keep the text both begin with), a library function absorbs a missing
// library member (`table.unpack or unpack`), anything else becomes Unknown.
// A test of a library function takes only its truthy edge
// (`unpack or table.unpack` is unpack). A `type(x) == "string"` test
// narrows an unknown x on the edge where it holds (type_tests.h).
#include "flow/values.h"

#include <algorithm>
#include <optional>

#include "flow/c_declarations.h"
#include "flow/instruction_effects.h"
#include "flow/module_environment.h"
#include "flow/local_functions.h"
#include "flow/type_tests.h"

namespace ljcheck::flow {

using bytecode::Instruction;
using bytecode::Op;
using bytecode::Prototype;
using Kind = Value::Kind;

namespace {

// Returned values that make a second pass worth its cost: callees and
// namespaces (tables, strings and numbers change few predictions).
bool worthPropagating(const Value& v) {
  switch (v.kind) {
    case Kind::LibTable: case Kind::LibFunction: case Kind::CFunction: case Kind::LuaFunction:
    case Kind::FfiLibrary: case Kind::FfiSymbol: case Kind::CType: case Kind::Module: case Kind::ModuleMember:
    case Kind::ModuleResult:
    case Kind::Instance: case Kind::CModule: case Kind::CModuleFunction: case Kind::CModuleResult:
      return !v.reassignable;
    default:
      return false;
  }
}

// Arithmetic on what a C module function returned (lpeg's p1 * p2, p^0,
// p / f) calls the value's metamethod, a C function, whose result is C data
// again; on a number it is a number, on which no method is ever called.
Value cModuleArithmetic(const Value& a, const Value& b) {
  if (a.is(Kind::CModuleResult)) return a;
  if (b.is(Kind::CModuleResult)) return b;
  return {};
}

// A library function or a plain C function of this profile: never nil or
// false, as far as the tracker assumes of every library name.
bool isLibraryFunction(const Value& v) { return v.is(Kind::LibFunction) || v.is(Kind::CFunction); }

// The meet of two values that reach one instruction.
Value meetOf(const Value& a, const Value& b) {
  if (a == b) return a;
  // A missing member is nil unless it is no function at all (math.pi):
  // what gets called is the library function on the other side.
  if (isLibraryFunction(a) && b.isMissingMember() && !b.reassignable) return a;
  if (isLibraryFunction(b) && a.isMissingMember() && !a.reassignable) return b;
  Value m;
  m.reassignable = a.reassignable || b.reassignable;
  if (a.kind != b.kind) return m;
  switch (a.kind) {
    case Kind::String: {
      // The type holds, the constant does not; the text both begin with
      // stays (a pattern chosen between two literals keeps its anchor and
      // the characters the literals share).
      m.kind = Kind::String;
      std::string_view x = a.text(), y = b.text();
      std::size_t n = 0;
      while (n < x.size() && n < y.size() && x[n] == y[n]) ++n;
      m.name = x.substr(0, n);
      break;
    }
    case Kind::Number: case Kind::Boolean:
      m.kind = a.kind;  // the type holds, the constant does not
      break;
    case Kind::Table:
      m.kind = Kind::Table;  // a table from one of several constructors
      break;
    default:
      break;
  }
  return m;
}

// Merges `from` into `into`; true when `into` changed.
// `lost`: the closures whose value the meet forgets (a local given one of
// two functions in two branches): calls through it cannot be resolved, so
// they count as escaping.
bool meet(Value* into, const Value* from, std::size_t width, std::vector<std::size_t>& lost) {
  bool changed = false;
  for (std::size_t s = 0; s < width; ++s) {
    if (into[s].kind == Kind::Unknown && !into[s].isMissingMember() && (into[s].reassignable || !from[s].reassignable))
      continue;
    if (into[s] == from[s]) continue;
    Value m = meetOf(into[s], from[s]);
    for (const Value* v : std::initializer_list<const Value*>{&into[s], &from[s]})
      if (v->kind == Kind::LuaFunction && !(m == *v)) lost.push_back(v->proto);
    if (!(m == into[s])) {
      into[s] = m;
      changed = true;
    }
  }
  return changed;
}

// _VERSION on every LuaJIT build: LUA_VERSION (lua.h), set by lib_base.c.
// The tracker's value for it points at this text (truthyEdges).
constexpr std::string_view kLuaVersion = "Lua 5.1";

// The edges a test can take when the tracker knows the tested value's
// truth: a library function or a string or number literal is true; nil (a
// literal, a local given nothing, a parameter every call leaves out) is
// false. A value known by its type only may still be nil: io.open's file,
// tonumber's number, a table a function returns beside `return nil, err`.
// IST/ISTC fall through to their JMP when the value is true; ISF/ISFC when
// it is false; each skips the JMP otherwise. So do ISEQS/ISNES comparing
// _VERSION with a string constant, when equal/not equal (`if _VERSION ==
// "Lua 5.3" then` never runs on LuaJIT). Only _VERSION: the text of other
// strings the tracker knows (a table field's last store) is not sure enough
// to decide an equality.
Flow truthyEdges(const Prototype& p, const Instruction& ins, Flow flow, const std::vector<Value>& regs) {
  if ((ins.op == Op::ISEQS || ins.op == Op::ISNES) && ins.a < regs.size() && regs[ins.a].isConstantString() &&
      regs[ins.a].text().data() == kLuaVersion.data()) {
    const std::string* constant = p.stringConstant(ins.d);
    if (!constant) return flow;
    const bool equal = regs[ins.a].text() == *constant;
    if (equal == (ins.op == Op::ISEQS)) flow.skip = 0;  // the JMP runs
    else flow.fallsThrough = false;                    // the JMP is skipped
    return flow;
  }
  bool test = ins.op == Op::IST || ins.op == Op::ISTC || ins.op == Op::ISF || ins.op == Op::ISFC;
  if (!test || ins.d >= regs.size()) return flow;
  const Value& v = regs[ins.d];
  const bool truthy = isLibraryFunction(v) || v.isConstantString() || v.isConstantNumber();
  const bool falsy = v.is(Kind::Nil);
  if (!truthy && !falsy) return flow;
  const bool jumpsWhenTrue = ins.op == Op::IST || ins.op == Op::ISTC;
  if (truthy == jumpsWhenTrue) flow.skip = 0;  // the JMP runs
  else flow.fallsThrough = false;              // the JMP is skipped
  return flow;
}

}  // namespace

ValueMap::ValueMap(const bytecode::Chunk& chunk, const RecorderProfile& profile, const BuiltinAliases* aliases,
                   const CModules* cModules, History* history, const ImportedReturns* importedReturns,
                   const MemberNames* luaMethods, const MemberNames* overriddenElsewhere,
                   const MemberNames* storedElsewhere)
    : history_(history), chunk_(chunk), profile_(profile), aliases_(aliases), cModules_(cModules),
      importedReturns_(importedReturns), luaMethods_(luaMethods), overriddenElsewhere_(overriddenElsewhere),
      storedElsewhere_(storedElsewhere),
      protos_(chunk.prototypes.size()) {
  // Which upvalues each closure assigns, its nested closures included
  // (children come first in a dump).
  assignedUpvalues_.resize(chunk.prototypes.size());
  for (std::size_t i = 0; i < chunk.prototypes.size(); ++i) {
    const Prototype& p = chunk.prototypes[i];
    auto& assigned = assignedUpvalues_[i];
    assigned.assign(p.upvalues.size(), false);
    std::uint64_t& kept = keptParameters_.emplace_back(p.numparams >= 64 ? ~std::uint64_t{0}
                                                                          : (std::uint64_t{1} << p.numparams) - 1);
    for (int pc = 1; pc <= p.size(); ++pc) {
      const auto& ins = p.at(pc);
      bool store = ins.op == Op::USETV || ins.op == Op::USETS || ins.op == Op::USETN || ins.op == Op::USETP;
      if (store && ins.a < assigned.size()) assigned[ins.a] = true;
      const Writes w = writesOf(ins);
      for (int slot = w.first; slot <= w.last && slot < 64 && kept != 0; ++slot) kept &= ~(std::uint64_t{1} << slot);
    }
    for (std::size_t c : p.children) {
      const auto& child = chunk.prototypes[c];
      for (std::size_t u = 0; u < child.upvalues.size(); ++u)
        if (assignsUpvalue(c, u) && !child.upvalues[u].parentLocal && child.upvalues[u].index < assigned.size())
          assigned[child.upvalues[u].index] = true;
    }
  }
  // The FNEW that creates each closure (the first, if several do).
  creatingPc_.assign(chunk.prototypes.size(), 0);
  for (const Prototype& p : chunk.prototypes)
    for (int pc = 1; pc <= p.size(); ++pc) {
      const auto& ins = p.at(pc);
      if (ins.op != Op::FNEW || ins.d >= p.gc.size() || p.gc[ins.d].kind != bytecode::GcConstant::Kind::Child) continue;
      std::size_t child = p.gc[ins.d].child;
      if (child < creatingPc_.size() && creatingPc_[child] == 0) creatingPc_[child] = pc;
    }
  findGlobalFunctions();
  if (history_) startHistory();
  // Parents come after their children in a dump: resolve from the end.
  for (std::size_t i = chunk.prototypes.size(); i-- > 0;) resolve(i);
  bindParameters(false);
  // A second round lets calls see what the Lua functions they call return:
  // only for prototypes that call one with a known return, and their
  // children (whose upvalues come from the parent's registers).
  for (std::size_t i = 0; i < chunk.prototypes.size(); ++i) summarizeReturns(i);
  for (std::size_t i = 0; i < chunk.prototypes.size(); ++i) summarizeRecursiveReturns(i);
  std::vector<bool> rerun(chunk.prototypes.size(), false);
  for (std::size_t i = chunk.prototypes.size(); i-- > 0;) {
    std::size_t parent = chunk.prototypes[i].parent;
    if (parent != SIZE_MAX && parent < rerun.size() && rerun[parent]) {
      rerun[i] = true;
      continue;
    }
    const Prototype& p = chunk.prototypes[i];
    const Snapshots& kept = protos_[i].before;
    for (std::size_t k = 0; k < kept.pcs.size(); ++k) {
      int pc = kept.pcs[k];
      RegisterView regs = kept.state(k);
      const Instruction& ins = p.at(pc);
      if (ins.op != Op::CALL && ins.op != Op::CALLM) continue;
      if (ins.a >= regs.size()) continue;
      Value callee = resolveMethod(regs[ins.a]);
      if (callee.kind == Kind::LuaFunction && callee.proto < protos_.size() &&
          (worthPropagating(protos_[callee.proto].returns) || isObject(protos_[callee.proto].returns))) {
        rerun[i] = true;
        break;
      }
    }
  }
  bool reran = false;
  for (std::size_t i = chunk.prototypes.size(); i-- > 0;)
    if (rerun[i]) {
      resolve(i);
      reran = true;
    }
  // Only a second round shows calls new values (objects other functions
  // return) to bind.
  if (reran) bindParameters(true);
  for (const auto& p : protos_) {
    metatableTargets_.insert(p.metatableTargets.begin(), p.metatableTargets.end());
    escapingTables_.insert(p.escapingTables.begin(), p.escapingTables.end());
    unresolvedSetmetatable_ |= p.unresolvedSetmetatable;
    jitOff_.insert(p.jitOff.begin(), p.jitOff.end());
    for (const auto& [table, key] : p.moduleFieldWrites) {
      // "a.b:f" (the module's table), "a.b:T.f" (a table it holds), "a.b:new():f" (an object new returns).
      const bool object = table.size() > 2 && table.substr(table.size() - 2) == "()";
      const char* joint = table.find(':') == std::string_view::npos || object ? ":" : ".";
      // Into the module table's __index (`Sprite.__index.paint = f`, audit
      // 73): its objects' method, as `Sprite.paint = f` with __index = Sprite.
      constexpr std::string_view kIndex = ":__index";
      if (table.size() > kIndex.size() && table.substr(table.size() - kIndex.size()) == kIndex)
        assignedModuleMembers_.insert(std::string(table.substr(0, table.size() - kIndex.size())) + ":" +
                                      std::string(key));
      assignedModuleMembers_.insert(std::string(table) + joint + std::string(key));
    }
  }
}

// A global assigned once in the chunk, by `function name() ... end` (FNEW
// then GSET of the same slot), names that function wherever the chunk reads
// it: another file assigning the same global is not seen, nor are stores
// through _G or rawset, which old-style code keeps for deliberate overrides.
// In a `module(...)` file, `function M.f() ... end` with `local M = _M` is
// such a global too (module_environment.h).
//
// Those globals of a `module(...)` file are the fields of its module table,
// which `require` hands to other files: the ones it assigns after the call,
// in its main function or in a closure that function creates after it (a
// closure's globals are those of the function that created it).
namespace {

// The global a GGET at or before pc last loaded into `slot`, or null.
const std::string* globalIn(const Prototype& p, int pc, int slot) {
  for (int q = pc; q >= 1; --q) {
    const auto& ins = p.at(q);
    const Writes w = writesOf(ins);
    if (slot < w.first || slot > w.last) continue;
    return ins.op == Op::GGET ? p.stringConstant(ins.d) : nullptr;
  }
  return nullptr;
}

// Counts into `stores` the globals the chunk stores through _G by name
// (`_G.name = v`); true when it stores under a key it does not name, or
// hands _G to rawset: then any global may be another.
bool storesThroughG(const bytecode::Chunk& chunk, std::map<std::string_view, int>& stores) {
  for (const Prototype& p : chunk.prototypes) {
    // Most functions never name _G: their constants say so without a scan.
    if (std::none_of(p.gc.begin(), p.gc.end(), [](const bytecode::GcConstant& k) { return k.isString("_G"); }))
      continue;
    for (int pc = 1; pc <= p.size(); ++pc) {
      const auto& ins = p.at(pc);
      if (ins.op != Op::GGET) continue;
      const std::string* name = p.stringConstant(ins.d);
      if (!name || *name != "_G") continue;
      const int slot = ins.a;
      for (int q = pc + 1; q <= p.size(); ++q) {
        const auto& use = p.at(q);
        if ((use.op == Op::TSETS || use.op == Op::TSETV) && use.b == slot) {
          const std::string* key = use.op == Op::TSETS ? p.stringConstant(use.c) : nullptr;
          if (!key) return true;
          ++stores[*key];
        }
        if (isCall(use.op) && use.a < slot) {  // rawset(_G, ...)
          const std::string* callee = globalIn(p, q - 1, use.a);
          if (callee && *callee == "rawset") return true;
        }
        const Writes w = writesOf(use);
        if (slot >= w.first && slot <= w.last) break;
        if (isCall(use.op) || flowOf(use, q).jump != 0) break;
      }
    }
  }
  return false;
}

}  // namespace

void ValueMap::findGlobalFunctions() {
  std::map<std::string_view, int> stores;
  std::map<std::string_view, std::size_t> closures, moduleClosures;
  std::set<std::string_view> moduleFields;
  const std::size_t count = chunk_.prototypes.size();
  const int moduleStart = count == 0 ? 0 : afterModuleCall(chunk_.prototypes[count - 1]);
  std::vector<char> inModule;  // by prototype: its globals are the module table's from pc 1
  if (moduleStart > 0) {  // parents come after their children in a dump
    inModule.assign(count, 0);
    for (std::size_t i = count - 1; i-- > 0;) {
      std::size_t parent = chunk_.prototypes[i].parent;
      if (parent >= count) continue;
      inModule[i] = parent == count - 1 ? creatingPc_[i] >= moduleStart : inModule[parent];
    }
  }
  for (std::size_t index = 0; index < count; ++index) {
    const Prototype& p = chunk_.prototypes[index];
    for (int pc = 1; pc <= p.size(); ++pc) {
      const auto& ins = p.at(pc);
      if (ins.op != Op::GSET) continue;
      const std::string* name = p.stringConstant(ins.d);
      if (!name) continue;
      ++stores[*name];
      if (pc < 2) continue;
      const auto& made = p.at(pc - 1);
      if (made.op != Op::FNEW || made.a != ins.a || made.d >= p.gc.size() ||
          p.gc[made.d].kind != bytecode::GcConstant::Kind::Child)
        continue;
      closures[*name] = p.gc[made.d].child;
      if (moduleStart > 0 && (inModule[index] || (index == count - 1 && pc >= moduleStart))) moduleFields.insert(*name);
    }
  }
  addModuleTableStores(chunk_, moduleStart, stores, moduleClosures);
  // `_G.name = f`, `_G[name] = f`, rawset(_G, ...): a global stored again,
  // or any (audit 74: a closure of a global the file replaced through _G
  // was an error).
  if (storesThroughG(chunk_, stores)) return;
  for (const auto& [name, proto] : moduleClosures) {
    closures[name] = proto;
    moduleFields.insert(name);
  }
  for (const auto& [name, proto] : closures)
    if (stores[name] == 1) {
      auto it = globalFunctions_.emplace(std::string(name), proto).first;
      if (moduleFields.count(name)) moduleFunctions_.emplace_back(it->first, proto);
    }
}

ValueMap::~ValueMap() {
  if (history_) leaveHistory();
}

// True when some closure of `parent` captures its local in `slot` and assigns it.
bool ValueMap::capturedAndAssigned(std::size_t parent, int slot) const {
  for (std::size_t c : chunk_.prototypes[parent].children) {
    const auto& uvs = chunk_.prototypes[c].upvalues;
    for (std::size_t u = 0; u < uvs.size(); ++u)
      if (uvs[u].parentLocal && uvs[u].index == slot && assignsUpvalue(c, u)) return true;
  }
  return false;
}

bool ValueMap::assignsUpvalue(std::size_t proto, std::size_t index) const {
  const auto& assigned = assignedUpvalues_[proto];
  return index < assigned.size() && assigned[index];
}

std::string_view ValueMap::intern(std::string text) { return *names_.insert(std::move(text)).first; }

Value ValueMap::returned(std::size_t proto) const { return protos_.at(proto).returns; }

void ValueMap::summarizeReturns(std::size_t index, bool skipUnknown) {
  const Prototype& p = chunk_.prototypes[index];
  std::optional<Value> common;
  for (int pc = 1; pc <= p.size(); ++pc) {
    const auto& ins = p.at(pc);
    if (isReturn(ins.op) && !protos_[index].before.find(pc)) continue;  // the pass never reached it
    Value v;
    if (isTailCall(ins.op)) {
      Value callee = at(index, pc, ins.a);
      if (callee.is(Kind::LibFunction) && callee.name == "setmetatable" && fixedArgs(ins) >= 2)
        v = objectOf(at(index, pc, argumentSlot(chunk_, ins, 0)), at(index, pc, argumentSlot(chunk_, ins, 1)));
      else if (callee.is(Kind::LibFunction))
        v = returnedFunction(callee.name);
      else
        v = cModuleResult(callee);  // return lpeg.P(x): a value of the module
    } else if (ins.op == Op::RET1) {
      v = at(index, pc, ins.a);
    } else if (ins.op == Op::RET && ins.d >= 3) {
      // `return nil, message` is Lua's error return: callers test the first
      // value before they use it, so what the other returns give stands.
      v = at(index, pc, ins.a);
      if (v.is(Kind::Nil)) continue;
    } else if (ins.op != Op::RET && ins.op != Op::RET0 && ins.op != Op::RETM) {
      continue;
    }
    if (skipUnknown && v.kind == Kind::Unknown) continue;
    if (common && !(*common == v)) {
      common = meetOf(*common, v);
      if (!common->known()) break;
      continue;
    }
    common = v;
  }
  setReturns(index, common.value_or(Value{}));
}

bool ValueMap::callsItself(std::size_t index) const {
  const Snapshots& kept = protos_[index].before;
  const Prototype& p = chunk_.prototypes[index];
  for (std::size_t k = 0; k < kept.pcs.size(); ++k) {
    const Instruction& ins = p.at(kept.pcs[k]);
    RegisterView regs = kept.state(k);
    if (isCall(ins.op) && ins.a < regs.size() && regs[ins.a].is(Kind::LuaFunction) && regs[ins.a].proto == index)
      return true;
  }
  return false;
}

// A recursive function's returns built from its own results (return seq(m)
// * seq(n - m), with return lpeg.Cc(c) at the bottom) are Unknown on the
// first pass, which knows nothing yet of what the calls return. Assume what
// the other returns give, pass over the function again, and keep the
// assumption when the returns then agree with it (a fixed point).
void ValueMap::summarizeRecursiveReturns(std::size_t index) {
  if (protos_[index].returns.kind != Kind::Unknown || !callsItself(index)) return;
  summarizeReturns(index, true);
  Value assumed = protos_[index].returns;
  if (!worthPropagating(assumed)) {
    setReturns(index, {});
    return;
  }
  resolve(index);
  summarizeReturns(index);
  if (protos_[index].returns == assumed) return;
  setReturns(index, {});
  resolve(index);
}

Value ValueMap::at(std::size_t proto, int pc, int slot) const {
  RegisterView regs = protos_.at(proto).before.find(pc);
  if (!regs || slot < 0 || static_cast<std::size_t>(slot) >= regs->size()) return {};
  const Value& v = (*regs)[static_cast<std::size_t>(slot)];
  return v.reassignable ? Value{} : resolveMethod(v);
}

bool ValueMap::reached(std::size_t proto, int pc) const {
  const Prototype& p = chunk_.prototypes.at(proto);
  if (pc < 1 || pc > p.size() || !keepsSnapshot(p.at(pc).op)) return true;
  return static_cast<bool>(protos_.at(proto).before.find(pc));
}

Value ValueMap::fieldReadAt(std::size_t proto, int pc, int slot) const {
  RegisterView regs = protos_.at(proto).before.find(pc);
  if (!regs || slot < 0 || static_cast<std::size_t>(slot) >= regs->size()) return {};
  const Value& v = (*regs)[static_cast<std::size_t>(slot)];
  return v.reassignable ? Value{} : v;
}

Value ValueMap::upvalue(std::size_t proto, int index) const {
  const auto& uvs = protos_.at(proto).upvalues;
  if (index < 0 || static_cast<std::size_t>(index) >= uvs.size()) return {};
  return resolveMethod(uvs[static_cast<std::size_t>(index)]);
}

std::string ValueMap::cModuleEvidence(std::string_view module) const {
  if (!cModules_) return {};
  return cModules_->evidence(module).value_or(std::string());
}

const CDeclarations& ValueMap::cDeclarations() const {
  if (!cDeclarations_) {
    cDeclarations_ = std::make_unique<CDeclarations>();
    // Prototypes in source order (the main chunk last in a dump): cdefs run
    // in the order the file runs them, roughly.
    for (std::size_t i = protos_.size(); i-- > 0;)
      for (std::string_view cdef : protos_[i].cdefs) cDeclarations_->add(cdef);
  }
  return *cDeclarations_;
}

void ValueMap::transfer(std::size_t index, const Instruction& ins, int pc, Registers& regs) {
  const Prototype& p = chunk_.prototypes[index];
  const ProtoValues& own = protos_[index];
  int framesize = static_cast<int>(regs.size());
  auto reg = [&](int s) -> Value {
    if (s < 0 || s >= framesize) return {};
    const Value& v = regs[static_cast<std::size_t>(s)];
    return v.reassignable ? Value{} : v;
  };
  auto isNumber = [&](int s) { return reg(s).is(Kind::Number); };
  Value result, second;  // second: a call's second result
  switch (ins.op) {
    case Op::MOV: result = reg(ins.d); break;
    case Op::NOT: result = Value::of(Kind::Boolean); break;
    case Op::ISTC: case Op::ISFC: result = reg(ins.d); break;  // the copy on the edge to the JMP
    case Op::KSHORT: result = Value::constantNumber(static_cast<std::int16_t>(ins.d)); break;
    case Op::KNUM:
      if (ins.d < p.num.size()) result = Value::constantNumber(p.num[ins.d].value());
      break;
    case Op::KSTR:
      if (const auto* s = p.stringConstant(ins.d)) result = Value::constantString(*s);
      break;
    case Op::KPRI: result = Value::of(ins.d == 0 ? Kind::Nil : Kind::Boolean); break;
    case Op::UNM:
      if (isNumber(ins.d)) result = Value::of(Kind::Number);
      else if (reg(ins.d).is(Kind::CModuleResult)) result = reg(ins.d);  // -p of an lpeg pattern
      break;
    case Op::LEN: {
      // A length, but for a userdata or cdata whose __len returns something
      // else (lpeg's #p is a pattern): none of a C module's, nor of what
      // another module returns. LuaJIT 2.1 ignores __len on tables.
      const Value& v = reg(ins.d);
      if (v.is(Kind::String) || v.is(Kind::Table) || (v.kind == Kind::Unknown && !v.reassignable))
        result = Value::of(Kind::Number);
      break;
    }
    case Op::ADDVV: case Op::SUBVV: case Op::MULVV: case Op::DIVVV: case Op::MODVV: case Op::POW:
      if (isNumber(ins.b) && isNumber(ins.c)) result = Value::of(Kind::Number);
      else result = cModuleArithmetic(reg(ins.b), reg(ins.c));
      break;
    case Op::CAT: {
      // The result keeps the text of its constant pieces: a pattern built
      // as "[" .. sep .. "]" has its special characters whatever sep is.
      // A string literal among the pieces makes the result a string, unless
      // another piece is an object whose __concat returns something else.
      bool strings = true, literal = false;
      std::string pieces;
      for (int s = ins.b; s <= ins.c; ++s) {
        Value v = reg(s);
        strings = strings && (v.is(Kind::String) || v.is(Kind::Number));
        literal = literal || v.isConstantString();
        if (v.is(Kind::String)) pieces += v.text();
      }
      if (strings || literal)
        result = Value::string(pieces.empty() ? std::string_view() : intern(std::move(pieces)));
      break;
    }
    case Op::GGET:
      if (const auto* s = p.stringConstant(ins.d)) {
        // A library name stays the library's: a chunk that redefines one
        // (prosody's `function require(...)`) keeps the original in a
        // local first, and reads before the redefinition runs get it.
        result = globalLibrary(*s) ? library(*s) : Value{};
        // Every LuaJIT build sets _VERSION to LUA_VERSION, "Lua 5.1" (lua.h,
        // lib_base.c): code behind `_VERSION == "Lua 5.3"` never runs.
        if (*s == "_VERSION") result = Value::constantString(kLuaVersion);
        auto defined = globalFunctions_.find(*s);
        if (!result.known() && defined != globalFunctions_.end()) result = Value::luaFunction(defined->second);
        if (!result.known()) result = Value::of(Kind::Global, *s);
      }
      break;
    case Op::TGETS:
      if (const auto* key = p.stringConstant(ins.c)) result = indexResult(reg(ins.b), *key);
      break;
    case Op::TGETV:
      // A constant string key reads the field TGETS would (a chunk with
      // more than 255 constants, audit 109).
      if (const Value key = reg(ins.c); key.isConstantString()) result = indexResult(reg(ins.b), std::string(key.text()));
      else result = elementOf(reg(ins.b));
      break;
    case Op::TGETB:
      result = elementOf(reg(ins.b));
      break;
    case Op::UGET:
      if (ins.d < own.upvalues.size()) result = own.upvalues[ins.d];
      break;
    case Op::FNEW:
      if (ins.d < p.gc.size() && p.gc[ins.d].kind == bytecode::GcConstant::Kind::Child)
        result = Value::luaFunction(p.gc[ins.d].child);
      break;
    case Op::TNEW: case Op::TDUP:
      result = Value::table(index, pc);
      break;
    case Op::CALL: case Op::CALLM:
      // B = 0 keeps every result (MULTRES): the first lands in slot A too,
      // where the call that takes them reads it (assert(io.open(p))).
      if (ins.b >= 2 || ins.b == 0) result = callResult(ins, regs);
      if (ins.b >= 3) second = protectedResult(ins, regs);
      break;
    default:
      if (isArithmeticWithConstant(ins.op) && isNumber(ins.b)) result = Value::of(Kind::Number);
      else if (isArithmeticWithConstant(ins.op)) result = cModuleArithmetic(reg(ins.b), Value::of(Kind::Number));
      break;
  }
  Writes w = writesOf(ins, framesize);
  // A call frame leaves garbage above its results.
  bool callFrame = ins.op == Op::CALL || ins.op == Op::CALLM || ins.op == Op::ITERC || ins.op == Op::ITERN ||
                   ins.op == Op::VARG;
  int clobberEnd = callFrame ? framesize - 1 : w.last;
  auto set = [&](int s, Value v) {
    if (s < 0 || s >= framesize) return;
    v.reassignable = regs[static_cast<std::size_t>(s)].reassignable;
    regs[static_cast<std::size_t>(s)] = v;
  };
  for (int s = std::max(w.first, 0); s <= clobberEnd && s < framesize; ++s) set(s, {});
  if (ins.op == Op::KNIL) {
    for (int s = w.first; s <= w.last; ++s) set(s, Value::of(Kind::Nil));
  } else if (ins.op == Op::FORI || ins.op == Op::JFORI || ins.op == Op::FORL || ins.op == Op::IFORL ||
             ins.op == Op::JFORL) {
    set(ins.a + 3, Value::of(Kind::Number));  // the visible loop variable
  } else if (ins.op == Op::ITERC && ins.a >= 3 && reg(ins.a - 3).is(Kind::LibFunction) &&
             reg(ins.a - 3).name == "string.gmatch_aux") {
    // What string.gmatch's iterator gives: its captures, or the whole match
    // (strings; a position capture `()` gives a number, which such a loop
    // seldom asks for).
    for (int s = w.first; s <= w.last; ++s) set(s, Value::of(Kind::String));
  } else if (w.last >= w.first && (w.first == w.last || ins.op == Op::CALL || ins.op == Op::CALLM)) {
    set(w.first, result);
    if ((ins.op == Op::CALL || ins.op == Op::CALLM) && ins.b >= 3) set(w.first + 1, second);
  }
  if (ins.op == Op::UCLO)  // the block's captured locals are closed: no closure reaches these slots
    for (int s = ins.a; s < framesize; ++s) regs[static_cast<std::size_t>(s)].reassignable = false;
  if (ins.op == Op::FNEW && result.is(Kind::LuaFunction)) {
    const auto& uvs = chunk_.prototypes[result.proto].upvalues;
    for (std::size_t u = 0; u < uvs.size(); ++u)
      if (uvs[u].parentLocal && !uvs[u].immutable && assignsUpvalue(result.proto, u) && uvs[u].index < regs.size())
        regs[uvs[u].index].reassignable = true;
  }
}

void ValueMap::resolve(std::size_t index) {
  resolveUpvalues(index);
  Pass replaced = keepPass(index, passOf(index));
  if (history_) keepReplaced(index, std::move(replaced));
}

// What each upvalue of a prototype's closures holds (capturedValue).
void ValueMap::resolveUpvalues(std::size_t index) {
  const Prototype& p = chunk_.prototypes[index];
  ProtoValues& out = protos_[index];
  out.upvalues.clear();
  for (const auto& uv : p.upvalues) out.upvalues.push_back(capturedValue(index, uv));
}

// What one upvalue holds: what the parent's slot held when this closure was
// created (immutable upvalues are never assigned again), or the parent's upvalue.
Value ValueMap::capturedValue(std::size_t index, const bytecode::UpvalueRef& uv) const {
  const Prototype& p = chunk_.prototypes[index];
  if (p.parent == SIZE_MAX) return {};
  const ProtoValues& parentValues = protos_[p.parent];
  // Only descriptors of a parent's local carry the immutable flag; one
  // that names a parent's upvalue inherits what the parent knows of it.
  if (!uv.parentLocal) return uv.index < parentValues.upvalues.size() ? parentValues.upvalues[uv.index] : Value{};
  // The FNEW that creates this closure, when the parent's pass reached it.
  int pc = index < creatingPc_.size() ? creatingPc_[index] : 0;
  RegisterView regs = pc > 0 ? parentValues.before.find(pc) : RegisterView{};
  if (!regs) return {};
  if (!uv.immutable) {
    // A mutable local of the parent: only a forward-declared function resolves.
    std::size_t f = forwardDeclaredFunction(chunk_, p.parent, pc, uv.index);
    if (f != SIZE_MAX && !capturedAndAssigned(p.parent, uv.index)) return Value::luaFunction(f);
    return {};
  }
  if (uv.index >= regs->size()) return {};
  // A local function that calls itself captures its own slot, which the
  // FNEW writes: the upvalue is the function itself.
  if (chunk_.prototypes[p.parent].at(pc).a == uv.index) return Value::luaFunction(index);
  const Value& v = (*regs)[uv.index];
  return v.reassignable ? Value{} : v;
}

ValueMap::TableUses::Mark ValueMap::TableUses::mark() const {
  return {metatableTargets.size(), escapingTables.size(), cdefs.size(),      jitOff.size(),
          fieldWrites.size(),      dynamicKeys.size(),    metatables.size(), reclassed.size(),
          moduleClasses.size(),    cModuleOperations.size(), moduleFieldWrites.size(), objectMethods.size(),
          modulesLoadedInPlace.size(), passedTables.size(), handedKeys.size(), tablesHandedTo.size(),
          namesPassed.size(), objectOperations.size(), unresolvedSetmetatable, reclassesAnyObject};
}

void ValueMap::TableUses::cutBackTo(const Mark& m) {
  metatableTargets.resize(m.metatableTargets);
  escapingTables.resize(m.escapingTables);
  cdefs.resize(m.cdefs);
  jitOff.resize(m.jitOff);
  fieldWrites.resize(m.fieldWrites);
  dynamicKeys.resize(m.dynamicKeys);
  metatables.resize(m.metatables);
  reclassed.resize(m.reclassed);
  moduleClasses.resize(m.moduleClasses);
  cModuleOperations.resize(m.cModuleOperations);
  objectOperations.resize(m.objectOperations);
  moduleFieldWrites.resize(m.moduleFieldWrites);
  objectMethods.resize(m.objectMethods);
  modulesLoadedInPlace.resize(m.modulesLoadedInPlace);
  passedTables.resize(m.passedTables);
  handedKeys.resize(m.handedKeys);
  tablesHandedTo.resize(m.tablesHandedTo);
  namesPassed.resize(m.namesPassed);
  unresolvedSetmetatable = m.unresolvedSetmetatable;
  reclassesAnyObject = m.reclassesAnyObject;
}

// Forward dataflow: one pass in pc order per round; the state at a jump
// target is the meet of its incoming edges. A target ahead of the pass is
// merged before the pass reaches it, so only a change at a target already
// passed (a loop's back edge) needs another round: code without loops
// takes one. A round after the first starts at the earliest loop head whose
// state changed: the code before it sees what it saw in the last round (a
// target there got no new state, and the meet of a state it already holds
// changes nothing), so it would find again what the last round found there.
// UNM, LEN, the 15 arithmetic forms and POW, next to each other (forwardPass).
static_assert(static_cast<int>(Op::POW) - static_cast<int>(Op::UNM) == 17);

ValueMap::Pass ValueMap::forwardPass(std::size_t index) {
  const Prototype& p = chunk_.prototypes[index];
  std::size_t framesize = static_cast<std::size_t>(std::max<int>(p.framesize, 1)) + 4;
  const auto slots = static_cast<std::size_t>(p.size()) + 2;
  // Every jump target and loop head is known before the pass (the pass
  // takes no edge flowOf does not give: truthyEdges only drops some): their
  // states live in two stores of whole frames, sized once.
  std::vector<int> targetSlot(slots, -1), headSlot(slots, -1);
  std::size_t targets = 0, headCount = 0, snapshots = 0;
  for (int pc = 1; pc <= p.size(); ++pc) {
    const auto& ins = p.at(pc);
    if (keepsSnapshot(ins.op)) ++snapshots;
    Flow flow = flowOf(ins, pc);
    for (int t : {flow.jump, flow.skip}) {
      if (t < 1 || t > p.size()) continue;
      const auto at = static_cast<std::size_t>(t);
      if (targetSlot[at] < 0) targetSlot[at] = static_cast<int>(targets++);
      if (t <= pc && headSlot[at] < 0) headSlot[at] = static_cast<int>(headCount++);
    }
  }
  std::vector<Value> targetStore(targets * framesize);  // the meet of the edges into each target so far
  std::vector<char> isTarget(slots, 0);                  // an edge into it was seen
  auto targetState = [&](std::size_t at) { return targetStore.data() + static_cast<std::size_t>(targetSlot[at]) * framesize; };
  // Where a round may start: the targets of backward edges, with what the
  // last round had found when it got there.
  struct LoopHead {
    bool reachable = false;  // and then its registers are in headStore
    TableUses::Mark uses;
    std::size_t escaping = 0;
  };
  std::vector<LoopHead> heads(headCount);
  std::vector<Value> headStore(headCount * framesize);
  auto headState = [&](std::size_t at) { return headStore.data() + static_cast<std::size_t>(headSlot[at]) * framesize; };
  Pass pass;
  pass.before.slotOf.assign(static_cast<std::size_t>(p.size()) + 1, -1);
  pass.before.store.reserve(snapshots * framesize);
  std::vector<std::size_t> lost;  // kept across rounds: a slot forgotten once stays Unknown
  Registers regs(framesize);
  regs[0] = receiverOf(index);
  if (hasBoundParameters(index)) {
    const std::vector<Value> entry = entryValues(index);
    std::copy(entry.begin(), entry.begin() + static_cast<std::ptrdiff_t>(std::min(entry.size(), regs.size())), regs.begin());
  }
  bool reachable = true;  // pc 1 is the entry
  int start = 1;
  for (int round = 0; round < 8; ++round) {
    int changedFrom = p.size() + 1;  // the earliest loop head given a new state
    for (int pc = start; pc <= p.size(); ++pc) {
      const auto here = static_cast<std::size_t>(pc);
      if (headSlot[here] >= 0) {
        LoopHead& head = heads[static_cast<std::size_t>(headSlot[here])];
        head.reachable = reachable;
        if (reachable) std::copy(regs.begin(), regs.end(), headState(here));
        head.uses = pass.uses.mark();
        head.escaping = pass.escaping.size();
      }
      if (isTarget[here]) {
        Value* target = targetState(here);
        if (reachable) meet(target, regs.data(), framesize, lost);  // merged here, before its use
        std::copy(target, target + framesize, regs.begin());
        reachable = true;
      }
      if (!reachable) continue;
      const auto& ins = p.at(pc);
      if (keepsSnapshot(ins.op)) pass.before.keep(pc, regs);  // overwrites an earlier round's state
      noteEscapes(p, ins, regs, pass.escaping, pass.uses);
      // The operators (UNM to POW in lj_bc.h's order, as Op's) are the only
      // instructions that may operate on a C module's object.
      if (ins.op >= Op::UNM && ins.op <= Op::POW) {
        noteCModuleOperation(p, ins, pc, regs, pass.uses);
        noteObjectOperation(ins, pc, regs, pass.uses);
      }
      Flow flow = truthyEdges(p, ins, flowOf(ins, pc), regs);
      auto propagate = [&](int t, const Registers& from) {
        if (t < 1 || t > p.size()) return;
        auto at = static_cast<std::size_t>(t);
        if (isTarget[at]) {
          if (meet(targetState(at), from.data(), framesize, lost) && t <= pc) changedFrom = std::min(changedFrom, t);
        } else {
          isTarget[at] = 1;
          std::copy(from.begin(), from.end(), targetState(at));
          if (t <= pc) changedFrom = std::min(changedFrom, t);
        }
      };
      bool stringTest = ins.op == Op::ISEQS || ins.op == Op::ISNES;  // few are: keep the others cheap
      TypeTest typeTest = stringTest ? typeTestOf(index, pc, pass.before) : TypeTest{};
      if (typeTest.slot >= 0 && !typeTest.matchesOnJump) {
        Registers narrowed = regs;
        narrowType(narrowed, typeTest);
        propagate(flow.skip, narrowed);
      } else {
        propagate(flow.skip, regs);  // a test that skips the next JMP changes nothing
      }
      transfer(index, ins, pc, regs);
      if (ins.op == Op::TDUP) noteTemplateFields(p, ins, index, pc, pass.uses);
      if (typeTest.slot >= 0 && typeTest.matchesOnJump) narrowType(regs, typeTest);  // on to the JMP
      propagate(flow.jump, regs);
      reachable = flow.fallsThrough;
    }
    if (changedFrom > p.size()) break;
    // Back to the loop head as the last round came to it.
    start = changedFrom;
    const auto at = static_cast<std::size_t>(start);
    const LoopHead& head = heads[static_cast<std::size_t>(headSlot[at])];
    reachable = head.reachable;
    if (reachable) std::copy(headState(at), headState(at) + framesize, regs.begin());
    pass.uses.cutBackTo(head.uses);
    pass.escaping.resize(head.escaping);
  }
  pass.escaping.insert(pass.escaping.end(), lost.begin(), lost.end());
  return pass;
}

// Keeps what a pass found for the queries, and the chunk's field map up to
// date; hands back what the prototype held before.
ValueMap::Pass ValueMap::keepPass(std::size_t index, Pass pass) {
  ProtoValues& out = protos_[index];
  const TableUses& uses = pass.uses;
  // The field map changes only when this prototype's stores do: added to
  // on a first pass, rebuilt when a second pass stores something else.
  bool first = out.fieldWrites.empty() && out.dynamicKeys.empty() && out.metatables.empty();
  bool same = uses.dynamicKeys == out.dynamicKeys && uses.metatables == out.metatables &&
              uses.fieldWrites.size() == out.fieldWrites.size() &&
              std::equal(uses.fieldWrites.begin(), uses.fieldWrites.end(), out.fieldWrites.begin(),
                         [](const auto& a, const auto& b) {
                           return a.table == b.table && a.key == b.key && a.value == b.value;
                         });
  std::swap(out.before, pass.before);
  std::swap(out.escaping, pass.escaping);
  const bool handedSame = uses.handedKeys == out.handedKeys && uses.tablesHandedTo == out.tablesHandedTo;
  std::swap(static_cast<TableUses&>(out), pass.uses);
  if (first) addFields(out);
  else if (!same || !handedSame) collectFields();
  if (!tablesHandedTo_.empty()) doubtHandedStores();  // the function may come after the call
  return pass;
}

std::vector<bool> ValueMap::escapingFunctions() const {
  std::vector<bool> escapes(protos_.size(), false);
  for (const auto& p : protos_)
    for (std::size_t e : p.escaping)
      if (e < escapes.size()) escapes[e] = true;
  return escapes;
}

}  // namespace ljcheck::flow
