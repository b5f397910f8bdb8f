// Objects and methods for the value tracker (values.h): which function
// `obj:m()` and `self:m()` call, through the class tables a file builds
// with the usual idioms:
//
//   local C = {}; C.__index = C                 -- or setmetatable(o, {__index = C})
//   function C.new() return setmetatable({}, C) end
//   function C:m() ... self:other() ... end
//   local D = setmetatable({}, {__index = C})   -- inheritance
//
// setmetatable(t, M) returns t: a table from a constructor keeps its
// identity, its metatable is on record, and a field it lacks is looked up
// in M.__index, then along the metatables of that table. Of a table the
// tracker cannot name, the result is an Instance of M. A Receiver is `self`
// in a function stored into exactly one table T: its methods are T's, unless
// a table that inherits from T defines the same name (the object may be of
// that subclass), in which case the call stays unresolved. So do the
// methods of objects some code gives another metatable after they were
// made (`return setmetatable(self, Chasing)` in a state's method), of every
// object of a file with a helper that gives any object any class, and
// methods whose name some code stores a function under into an object it
// cannot name (storedOnObjects).
#include <algorithm>

#include "flow/instruction_effects.h"
#include "flow/values.h"

namespace ljcheck::flow {

using Kind = Value::Kind;

namespace {
constexpr int kMaxInheritance = 8;  // chains longer than this stay unresolved (and cycles end)
}

void ValueMap::addClassFacts(const TableUses& uses) {
  for (const auto& w : uses.fieldWrites) {
    if (!w.value.is(Kind::LuaFunction)) continue;
    auto [it, inserted] = methodOwner_.emplace(w.value.proto, w.table);
    if (!inserted && it->second != w.table) ownerInDoubt_.insert(w.value.proto);
  }
  for (const auto& [table, metatable] : uses.metatables) {
    auto [it, inserted] = metatables_.emplace(table, metatable);
    if (!inserted && it->second != metatable) metatableInDoubt_.insert(table);
  }
  reclassed_.insert(uses.reclassed.begin(), uses.reclassed.end());
  moduleClasses_.insert(uses.moduleClasses.begin(), uses.moduleClasses.end());
  objectMethods_.insert(uses.objectMethods.begin(), uses.objectMethods.end());
  modulesLoadedInPlace_.insert(uses.modulesLoadedInPlace.begin(), uses.modulesLoadedInPlace.end());
  passedTables_.insert(uses.passedTables.begin(), uses.passedTables.end());
  namesPassed_.insert(uses.namesPassed.begin(), uses.namesPassed.end());
  tablesHandedTo_.insert(tablesHandedTo_.end(), uses.tablesHandedTo.begin(), uses.tablesHandedTo.end());
  reclassesAnyObject_ |= uses.reclassesAnyObject;
}

bool ValueMap::storedOnObjects(std::string_view key) const {
  auto in = [&](const auto& keys) { return keys.count(key) > 0 || keys.count(kAnyMethod) > 0; };
  return in(objectMethods_) || (storedElsewhere_ && in(*storedElsewhere_));
}

std::vector<std::string> ValueMap::methodsStoredOnObjects() const {
  std::vector<std::string> out(objectMethods_.begin(), objectMethods_.end());
  // A helper that gives objects another class changes every method of theirs.
  if (reclassesAnyObject_ && !objectMethods_.count(kAnyMethod)) out.emplace_back(kAnyMethod);
  return out;
}

std::vector<std::string> ValueMap::modulesLoadedInPlace() const {
  return {modulesLoadedInPlace_.begin(), modulesLoadedInPlace_.end()};
}

std::vector<std::pair<std::string, std::string>> ValueMap::namesPassed() const {
  std::vector<std::pair<std::string, std::string>> out(namesPassed_.begin(), namesPassed_.end());
  // Stubs this file stores under names it does not spell there: the keys
  // of its tables may be those names (audit 73: `for name, impl in
  // pairs(stubs) do package.loaded[name] = impl end`).
  // Only keys under which it stores a table it builds: a stub module.
  if (modulesLoadedInPlace_.count(kAnyMethod))
    for (const auto& [field, value] : fields_)
      if (value.is(Kind::Table) && value.pc != 0) out.emplace_back(std::string(), std::string(field.second));
  return out;
}

// Whether objects whose metatable is `metatable` may be given another one
// (TableUses::reclassed): by the metatable, or by the class its __index names.
bool ValueMap::reclassed(TableOrigin metatable) const {
  if (reclassesAnyObject_) return true;
  if (reclassed_.empty()) return false;
  if (reclassed_.count(metatable)) return true;
  auto cls = classOf(metatable);
  return cls && reclassed_.count(*cls);
}

// The table a metatable's __index names, when it is a table from a constructor.
std::optional<ValueMap::TableOrigin> ValueMap::classOf(TableOrigin metatable) const {
  Value index = field(Value::table(metatable.first, metatable.second), "__index");
  if (!index.is(Kind::Table) || index.pc == 0) return std::nullopt;
  return TableOrigin{index.proto, static_cast<int>(index.pc)};
}

// table[key] as the VM finds it: the table's own field, else through its
// metatable's __index table. Unknown when any step is in doubt.
Value ValueMap::lookup(TableOrigin table, std::string_view key, int depth) const {
  if (depth > kMaxInheritance || dynamicKeys_.count(table)) return {};
  auto own = fields_.find(std::make_pair(table, key));
  if (own != fields_.end()) return own->second;
  if (metatableInDoubt_.count(table)) return {};
  auto meta = metatables_.find(table);
  if (meta == metatables_.end() || reclassed(meta->second)) return {};
  auto base = classOf(meta->second);
  return base ? lookup(*base, key, depth + 1) : Value{};
}

// Whether some table that inherits from `base` (its metatable's __index is
// base, directly or further down) defines `key` itself.
bool ValueMap::overridden(TableOrigin base, std::string_view key) const {
  if (metatables_.empty()) return false;  // no table inherits from anything
  std::vector<TableOrigin> frontier{base};
  std::set<TableOrigin> seen{base};
  while (!frontier.empty()) {
    TableOrigin parent = frontier.back();
    frontier.pop_back();
    for (const auto& [table, metatable] : metatables_) {
      auto cls = classOf(metatable);
      if (!cls || *cls != parent || !seen.insert(table).second) continue;
      if (fields_.count(std::make_pair(table, key)) || dynamicKeys_.count(table)) return true;
      frontier.push_back(table);
    }
  }
  return false;
}

// Whether a table of another file that inherits from `cls`, the table
// this module returns, defines `key` itself (audit 65: Shape:sweep's
// `self:outline()` when Circle and Rect, each in its own file, define
// outline: Shape's never runs).
bool ValueMap::overriddenElsewhere(TableOrigin cls, std::string_view key) const {
  if (!overriddenElsewhere_) return false;
  const std::optional<TableOrigin> module = moduleTable();
  if (!module) return false;
  const TableOrigin origin = *module;
  if (origin == cls) return overriddenElsewhere_->count(key) > 0;
  // A class the module table holds (`return {Shape = Shape}`): "Shape.outline".
  for (auto it = fields_.lower_bound(std::make_pair(origin, std::string_view())); it != fields_.end(); ++it) {
    if (it->first.first != origin) break;
    const Value& held = it->second;
    if (held.is(Kind::Table) && TableOrigin{held.proto, held.pc} == cls &&
        overriddenElsewhere_->count(std::string(it->first.second) + "." + std::string(key)))
      return true;
  }
  return false;
}

std::vector<std::string> ValueMap::overridesOfOtherModules() const {
  std::vector<std::string> out;
  // "a.b:key" for a class of module a.b itself, "a.b:Shape.key" for one it holds.
  auto methodsOf = [&](TableOrigin table, const Value& base) {
    const std::string prefix = std::string(base.name) + (base.is(Kind::Module) ? ":" : ".");
    for (auto it = fields_.lower_bound(std::make_pair(table, std::string_view())); it != fields_.end(); ++it) {
      if (it->first.first != table) break;
      // A function, or what may be one (`Circle.outline = Outlines.double`, audit 73).
      const Value& v = it->second;
      if (v.is(Kind::LuaFunction) || v.kind == Kind::ModuleMember || v.kind == Kind::Global ||
          v.kind == Kind::LibFunction || v.kind == Kind::CFunction || (v.kind == Kind::Unknown && !v.isMissingMember()))
        out.push_back(prefix + std::string(it->first.second));
    }
  };
  for (const auto& [table, metatable] : metatables_) {  // setmetatable(Circle, {__index = Shape})
    const Value base = field(Value::table(metatable.first, metatable.second), "__index");
    if (base.is(Kind::Module) || base.is(Kind::ModuleMember)) methodsOf(table, base);
  }
  for (const auto& [table, name] : moduleClasses_)  // setmetatable(Circle, Shape)
    methodsOf(table, Value::of(name.find(':') == std::string_view::npos ? Kind::Module : Kind::ModuleMember, name));
  return out;
}

std::optional<ValueMap::TableOrigin> ValueMap::moduleTable() const {
  if (protos_.empty()) return std::nullopt;
  const Value& module = protos_.back().returns;  // the main function is the last prototype
  if (!module.is(Kind::Table) || module.pc == 0) return std::nullopt;
  return TableOrigin{module.proto, module.pc};
}

std::string ValueMap::baseOfModuleClass() const {
  const std::optional<TableOrigin> module = moduleTable();
  if (!module) return {};
  const TableOrigin origin = *module;
  auto prefix = [](const Value& base) { return std::string(base.name) + (base.is(Kind::Module) ? ":" : "."); };
  if (auto meta = metatables_.find(origin); meta != metatables_.end() && !metatableInDoubt_.count(origin)) {
    const Value base = field(Value::table(meta->second.first, meta->second.second), "__index");
    if (base.is(Kind::Module) || base.is(Kind::ModuleMember)) return prefix(base);
  }
  for (const auto& [table, name] : moduleClasses_)
    if (table == origin)
      return prefix(Value::of(name.find(':') == std::string_view::npos ? Kind::Module : Kind::ModuleMember, name));
  return {};
}

std::vector<std::string> ValueMap::makersOfModuleObjects() const {
  std::vector<std::string> out;
  const std::optional<TableOrigin> module = moduleTable();
  // A table handed to a function may get fields from it (a mixin): its
  // objects' methods are not all in view.
  if (!module || dynamicKeys_.count(*module) || passedTables_.count(*module)) return out;
  const TableOrigin origin = *module;
  for (const auto& [member, proto] : exportedFunctions()) {
    if (proto >= protos_.size()) continue;
    const Value& made = protos_[proto].returns;
    std::optional<TableOrigin> metatable;
    if (made.is(Kind::Instance)) {
      metatable = TableOrigin{made.proto, made.pc};
    } else if (made.is(Kind::Table) && made.pc != 0 && !metatableInDoubt_.count({made.proto, made.pc})) {
      if (auto it = metatables_.find({made.proto, made.pc}); it != metatables_.end()) metatable = it->second;
    }
    if (!metatable || reclassed(*metatable)) continue;
    if (auto cls = classOf(*metatable); cls && *cls == origin) out.emplace_back(member);
  }
  return out;
}

std::vector<std::string> ValueMap::moduleFieldNames() const {
  std::vector<std::string> out;
  const std::optional<TableOrigin> module = moduleTable();
  if (!module) return out;
  const TableOrigin origin = *module;
  for (auto it = fields_.lower_bound(std::make_pair(origin, std::string_view())); it != fields_.end(); ++it) {
    if (it->first.first != origin) break;
    out.emplace_back(it->first.second);
  }
  return out;
}

Value ValueMap::resolveMethod(const Value& method) const {
  if (method.kind != Kind::Method || method.reassignable) return method;
  TableOrigin origin{method.proto, method.pc};
  switch (method.integer) {
    case Value::kMethodOfReceiver:  // self: the table the method was defined on
      return overridden(origin, method.name) || overriddenElsewhere(origin, method.name) ||
                     reclassed_.count(origin) || reclassesAnyObject_ || storedOnObjects(method.name)
                 ? Value{}
                 : lookup(origin, method.name, 0);
    case Value::kMethodOfTable:  // an object's own field may be stored by code that cannot name it
      return metatables_.count(origin) && storedOnObjects(method.name) ? Value{} : lookup(origin, method.name, 0);
    default: {
      auto cls = classOf(origin);  // an Instance: its metatable's __index
      return cls && !reclassed(origin) && !storedOnObjects(method.name) ? lookup(*cls, method.name, 0) : Value{};
    }
  }
}

Value ValueMap::objectOf(const Value& table, const Value& metatable) {
  if (table.is(Kind::Table) && table.pc != 0) return table;
  if (metatable.is(Kind::Table) && metatable.pc != 0) return Value::object(Kind::Instance, metatable.proto, metatable.pc);
  return {};
}

bool ValueMap::isObject(const Value& v) const {
  if (v.reassignable) return false;
  if (v.kind == Kind::Instance) return true;
  return v.kind == Kind::Table && v.pc != 0 && metatables_.count({v.proto, v.pc}) > 0;
}

Value ValueMap::indexMetamethod(const Value& object) const { return metamethod(object, "__index"); }

void ValueMap::noteObjectOperation(const bytecode::Instruction& ins, int pc, const Registers& regs, TableUses& uses) {
  // LEN takes a table's length without __len in LuaJIT 2.1 (Lua 5.1).
  Value left, right;
  if (ins.op == bytecode::Op::LEN || !operandsOf(ins, regs, left, right)) return;
  // ADDNV ... MODNV: the number constant is the left operand.
  if (ins.op >= bytecode::Op::ADDNV && ins.op <= bytecode::Op::MODNV) {
    right = left;
    left = Value::of(Kind::Number);
  }
  if (ObjectOperation::isObject(left) || ObjectOperation::isObject(right)) uses.objectOperations.push_back({pc, left, right});
}

Value ValueMap::metamethod(const Value& object, std::string_view name) const {
  if (object.reassignable) return {};
  std::optional<TableOrigin> metatable;
  if (object.is(Kind::Instance)) {
    metatable = TableOrigin{object.proto, object.pc};
  } else if (object.is(Kind::Table) && object.pc != 0) {
    const TableOrigin origin{object.proto, object.pc};
    if (metatableInDoubt_.count(origin)) return {};
    if (auto it = metatables_.find(origin); it != metatables_.end()) metatable = it->second;
  }
  if (!metatable || reclassed(*metatable)) return {};
  const Value function = field(Value::table(metatable->first, metatable->second), name);
  return function.is(Kind::LuaFunction) ? function : Value{};
}

const std::vector<std::size_t>& ValueMap::indexMetamethods() const {
  if (!indexMetamethods_) {
    std::vector<std::size_t> protos;
    for (const auto& [key, value] : fields_)
      if (key.second == "__index" && value.is(Kind::LuaFunction)) protos.push_back(value.proto);
    std::sort(protos.begin(), protos.end());
    protos.erase(std::unique(protos.begin(), protos.end()), protos.end());
    indexMetamethods_ = std::move(protos);
  }
  return *indexMetamethods_;
}

Value ValueMap::tableReadAt(std::size_t proto, int pc) const {
  using bytecode::Op;
  const bytecode::Prototype& p = chunk_.prototypes.at(proto);
  if (pc < 1 || pc > p.size()) return {};
  const bytecode::Instruction& read = p.at(pc);
  if (read.op != Op::TGETS && read.op != Op::TGETV && read.op != Op::TGETB) return {};
  const int table = read.b;
  if (read.a == table) return {};  // `t = t.k`: the read itself overwrites it
  for (int q = pc + 1; q <= p.size(); ++q) {
    const bytecode::Instruction& ins = p.at(q);
    if (keepsSnapshot(ins.op)) return at(proto, q, table);
    const Flow f = flowOf(ins, q);
    if (!f.fallsThrough || f.jump != 0 || f.skip != 0 || writesSlot(ins, p.framesize, table)) return {};
  }
  return {};
}

// `self` on entry to a prototype stored as a field of exactly one table,
// when its first parameter is named self (function T:m() ... end): a
// Receiver of that table. Unknown in a stripped dump.
Value ValueMap::receiverOf(std::size_t proto) const {
  const auto& p = chunk_.prototypes[proto];
  if (p.numparams < 1 || p.vars.empty() || p.vars[0].name != "self" || p.vars[0].startpc != 0) return {};
  if (ownerInDoubt_.count(proto)) return {};
  auto owner = methodOwner_.find(proto);
  if (owner == methodOwner_.end()) return {};
  return Value::object(Kind::Receiver, owner->second.first, owner->second.second);
}

std::vector<std::string> ValueMap::resolvedMethodNames() const {
  std::set<std::string_view> keys;
  for (std::size_t i = 0; i < protos_.size(); ++i) {
    const Snapshots& kept = protos_[i].before;
    for (std::size_t k = 0; k < kept.pcs.size(); ++k) {
      const auto& ins = chunk_.prototypes[i].at(kept.pcs[k]);
      if (!isCall(ins.op)) continue;
      const RegisterView regs = kept.state(k);
      if (ins.a >= regs.size() || regs[ins.a].kind != Kind::Method) continue;
      if (resolveMethod(regs[ins.a]).is(Kind::LuaFunction)) keys.insert(regs[ins.a].name);
    }
  }
  return {keys.begin(), keys.end()};
}

bool ValueMap::definesSelfMethod(std::string_view key) const {
  return selfMethods().count(key) > 0;
}

const std::set<std::string, std::less<>>& ValueMap::selfMethods() const {
  if (!selfMethods_) {
    selfMethods_.emplace();
    for (const auto& proto : chunk_.prototypes)
      for (int pc = 2; pc <= proto.size(); ++pc) {
        const auto& ins = proto.at(pc);
        if (ins.op != bytecode::Op::TSETS) continue;
        const std::string* field = proto.stringConstant(ins.c);
        // The closure made right before the store.
        const auto& made = proto.at(pc - 1);
        if (!field || made.op != bytecode::Op::FNEW || made.a != ins.a || made.d >= proto.gc.size() ||
            proto.gc[made.d].kind != bytecode::GcConstant::Kind::Child)
          continue;
        const std::size_t child = proto.gc[made.d].child;
        if (child >= chunk_.prototypes.size()) continue;
        const auto& method = chunk_.prototypes[child];
        if (method.numparams > 0 && !method.vars.empty() && method.vars.front().name == "self")
          selfMethods_->insert(*field);
      }
  }
  return *selfMethods_;
}

}  // namespace ljcheck::flow
