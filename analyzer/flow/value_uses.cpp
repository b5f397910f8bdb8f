// What the value tracker records about how values are used (values.h):
// closures and tables that escape, tables given metatables, constant-key
// field stores, ffi.cdef strings and jit.off targets.
#include <algorithm>
#include <cctype>
#include <variant>
#include "flow/instruction_effects.h"
#include "flow/module_member.h"
#include "flow/values.h"

namespace ljcheck::flow {

using bytecode::Instruction;
using bytecode::Op;
using bytecode::Prototype;
using Kind = Value::Kind;

namespace {

// Whether a string may be a module name require() takes ("logger", "a.b").
bool mayNameModule(std::string_view s) {
  if (s.empty() || s.size() > 128) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '/')) return false;
  return true;
}

}  // namespace

// `setmetatable(t, mt)` at `ins` of `proto`, whose first argument (in slot
// `first`) the function is handed (a parameter it never assigns), with mt
// another module's class or a table whose __index is that or one the
// function cannot name (`setmetatable(cls, {__index = require("fastbase")})`,
// audit 73): a class handed over is re-parented, and any of its methods may
// be another. Not `setmetatable(o, {__index = Point})`, an object of its
// own class.
bool ValueMap::reparentsHandedTable(const Prototype& proto, const Instruction& ins, int first, const Value& metatable,
                                    const TableUses& tables) const {
  const std::size_t index = static_cast<std::size_t>(&proto - chunk_.prototypes.data());
  const int param = copiedParameter(proto, static_cast<int>(&ins - proto.code.data()) + 1, first);
  if (param < 0 || !keptParameter(index, param)) return false;
  if (metatable.is(Kind::Module) || metatable.is(Kind::ModuleMember)) return true;
  if (!metatable.is(Kind::Table) || metatable.pc == 0) return false;
  // Its __index as this pass stored it (a constructor `{__index = …}` just
  // before the call), else as the file does.
  const TableOrigin origin{metatable.proto, metatable.pc};
  auto stored = std::find_if(tables.fieldWrites.rbegin(), tables.fieldWrites.rend(),
                             [&](const auto& w) { return w.table == origin && w.key == "__index"; });
  const Value parent = stored != tables.fieldWrites.rend() ? stored->value : field(metatable, "__index");
  return parent.is(Kind::Module) || parent.is(Kind::ModuleMember) ||
         (parent.kind == Kind::Unknown && !parent.isMissingMember());
}

ValueMap::Metatable ValueMap::metatableOf(const Value& table) const {
  if (!table.is(Kind::Table) || table.pc == 0) return Metatable::Maybe;
  std::pair<std::size_t, int> origin{table.proto, table.pc};
  if (metatableTargets_.count(origin)) return Metatable::Maybe;
  if (!escapingTables_.count(origin)) return Metatable::None;
  return unresolvedSetmetatable_ ? Metatable::Maybe : Metatable::Unseen;
}

// Rebuilds the field map from every prototype's stores: a field stored
// twice with different values, or of a table with unnamed keys, is unknown.
void ValueMap::collectFields() {
  fields_.clear();
  dynamicKeys_.clear();
  methodOwner_.clear();
  ownerInDoubt_.clear();
  metatables_.clear();
  metatableInDoubt_.clear();
  reclassed_.clear();
  moduleClasses_.clear();
  objectMethods_.clear();
  modulesLoadedInPlace_.clear();
  passedTables_.clear();
  reclassesAnyObject_ = false;
  namesPassed_.clear();
  tablesHandedTo_.clear();
  for (const auto& p : protos_) addFields(p);
  doubtHandedStores();
}

// A table handed to a function of this file that stores into the table it
// is handed: the keys it stores under are in doubt (audit 74:
// `override(M, "update", fn)` before the loop that calls M.update).
void ValueMap::doubtHandedStores() {
  for (const auto& [table, callee] : tablesHandedTo_) {
    if (callee >= protos_.size()) continue;
    for (std::string_view key : protos_[callee].handedKeys) {
      if (key == kAnyMethod) dynamicKeys_.insert(table);
      else fields_[std::make_pair(table, key)] = Value{};
    }
  }
}

void ValueMap::addFields(const TableUses& uses) {
  dynamicKeys_.insert(uses.dynamicKeys.begin(), uses.dynamicKeys.end());
  for (const auto& w : uses.fieldWrites) {
    auto [it, inserted] = fields_.emplace(std::make_pair(w.table, w.key), w.value);
    if (!inserted && !(it->second == w.value)) it->second = Value{};
  }
  addClassFacts(uses);
}

std::vector<std::pair<std::string_view, std::size_t>> ValueMap::exportedFunctions(bool evenWithComputedKeys) const {
  std::vector<std::pair<std::string_view, std::size_t>> out;
  if (protos_.empty()) return out;
  Value module = returned(protos_.size() - 1);  // the main function is the last prototype
  // A module that returns a function (`return split`): the function itself.
  if (module.is(Kind::LuaFunction) && !module.reassignable && module.proto + 1 < protos_.size()) {
    out.emplace_back(kModuleItself, module.proto);
    return out;
  }
  if (!module.is(Kind::Table) || module.pc == 0) {
    // A module(...) file returns nothing, or its table as `return _M`.
    if (module.kind == Kind::Unknown || module.kind == Kind::Nil || (module.is(Kind::Global) && module.name == "_M"))
      return moduleFunctions_;
    return out;
  }
  TableOrigin origin{module.proto, module.pc};
  if (dynamicKeys_.count(origin) && !evenWithComputedKeys) return out;
  for (auto it = fields_.lower_bound(std::make_pair(origin, std::string_view())); it != fields_.end(); ++it) {
    if (it->first.first != origin) break;
    if (it->second.is(Kind::LuaFunction)) out.emplace_back(it->first.second, it->second.proto);
  }
  return out;
}

std::vector<std::pair<std::string, std::size_t>> ValueMap::nestedExports() const {
  std::vector<std::pair<std::string, std::size_t>> out;
  if (protos_.empty()) return out;
  Value module = returned(protos_.size() - 1);
  if (!module.is(Kind::Table) || module.pc == 0 || dynamicKeys_.count({module.proto, module.pc})) return out;
  TableOrigin origin{module.proto, module.pc};
  for (auto it = fields_.lower_bound(std::make_pair(origin, std::string_view())); it != fields_.end(); ++it) {
    if (it->first.first != origin) break;
    const Value& table = it->second;
    if (!table.is(Kind::Table) || table.pc == 0 || dynamicKeys_.count({table.proto, table.pc})) continue;
    TableOrigin inner{table.proto, table.pc};
    for (auto f = fields_.lower_bound(std::make_pair(inner, std::string_view())); f != fields_.end(); ++f) {
      if (f->first.first != inner) break;
      if (f->second.is(Kind::LuaFunction))
        out.emplace_back(std::string(it->first.second) + "." + std::string(f->first.second), f->second.proto);
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::size_t>> ValueMap::indirectExports() const {
  std::vector<std::pair<std::string, std::size_t>> out = nestedExports();
  std::vector<std::pair<std::string, std::size_t>> members(out);
  for (const auto& [member, proto] : exportedFunctions()) members.emplace_back(std::string(member), proto);
  // The names some table of this file holds a function under: the methods an object can have.
  std::set<std::string_view> keys;
  for (const auto& [field, value] : fields_)
    if (value.is(Kind::LuaFunction)) keys.insert(field.second);
  for (const auto& [member, proto] : members) {
    if (proto >= protos_.size()) continue;
    const Value& returns = protos_[proto].returns;
    if (returns.is(Kind::LuaFunction)) out.emplace_back(member + "()", returns.proto);
    if (!isObject(returns)) continue;
    for (std::string_view key : keys) {
      Value method = resolveMethod(Value::method(returns, key));
      if (method.is(Kind::LuaFunction)) out.emplace_back(member + "():" + std::string(key), method.proto);
    }
  }
  return out;
}

Value ValueMap::field(const Value& table, std::string_view key) const {
  if (!table.is(Kind::Table) || table.pc == 0) return {};
  TableOrigin origin{table.proto, table.pc};
  if (dynamicKeys_.count(origin)) return {};
  auto it = fields_.find(std::make_pair(origin, key));
  return it == fields_.end() ? Value{} : it->second;
}

void ValueMap::noteTemplateFields(const Prototype& proto, const Instruction& ins, std::size_t index, int pc,
                                  TableUses& tables) {
  if (ins.d >= proto.gc.size() || proto.gc[ins.d].kind != bytecode::GcConstant::Kind::Table) return;
  for (const auto& [key, value] : proto.gc[ins.d].table.hash) {
    // Strings only: a pattern, a name, a format. A `false` or a number is
    // most often a placeholder a store replaces (`writecallback = false`,
    // then `t.writecallback = function ... end`), and two different values
    // for one field leave it unknown.
    const std::string* name = std::get_if<std::string>(&key);
    const std::string* text = std::get_if<std::string>(&value);
    if (name && text) tables.fieldWrites.push_back({{index, pc}, *name, Value::constantString(*text)});
  }
}

void ValueMap::noteEscapes(const Prototype& proto, const Instruction& ins, const Registers& regs,
                           std::vector<std::size_t>& out, TableUses& tables) const {
  auto valueAt = [&](int slot) -> Value {
    if (slot < 0 || static_cast<std::size_t>(slot) >= regs.size()) return {};
    const Value& v = regs[static_cast<std::size_t>(slot)];
    return v.reassignable ? Value{} : v;
  };
  auto note = [&](int slot) {
    Value v = valueAt(slot);
    if (v.kind == Kind::LuaFunction) out.push_back(v.proto);
    if (v.kind == Kind::Table) tables.escapingTables.push_back({v.proto, v.pc});
  };
  switch (ins.op) {
    case Op::TSETS: case Op::TSETV: {
      Value table = valueAt(ins.b);
      // A table of this file read from another's field (`M.layer = {}`, then
      // `function M.layer.consume()`): the inner table, once the file's
      // stores name it (audit 83: a Knot Resolver module's layer table).
      if (table.kind == Kind::Method && !table.reassignable && table.integer == Value::kMethodOfTable) {
        Value inner = resolveMethod(table);
        // Stored earlier in this prototype: the stores it made so far.
        if (!inner.is(Kind::Table)) {
          const TableOrigin outer{table.proto, table.pc};
          int writes = 0;
          for (const auto& w : tables.fieldWrites)
            if (w.table == outer && w.key == table.name && ++writes == 1) inner = w.value;
          if (writes != 1) inner = {};
        }
        if (inner.is(Kind::Table) && inner.pc != 0) table = inner;
      }
      // Not named: empty. A constant string in the key's slot names it as
      // TSETS would: a chunk with more than 255 constants stores its later
      // fields so (audit 109: a module table of 128 functions and more).
      std::optional<std::string_view> key;
      if (ins.op == Op::TSETS) {
        if (const std::string* k = proto.stringConstant(ins.c)) key = *k;
      } else if (const Value k = valueAt(ins.c); k.isConstantString()) {
        key = k.text();
      }
      // Into another module's table, or into an object one of its functions
      // returned (`mode.render = fn` on Widget.new()'s object, audit 65): a
      // call of that member, or method, may call what is stored.
      // A key the bytecode does not name may be any member: "*"; a number
      // key names an array slot of an object, no method.
      if (table.is(Kind::Module) || table.is(Kind::ModuleMember) ||
          (table.is(Kind::ModuleResult) && !(ins.op == Op::TSETV && valueAt(ins.c).is(Kind::Number)))) {
        tables.moduleFieldWrites.emplace_back(table.name, key ? std::string_view(*key) : std::string_view("*"));
      }
      // A function stored into an object the tracker cannot name (a
      // parameter, self, an Instance): that object's method of the name is
      // this function (audit 67); a function the caller passes may be one
      // too, under a key it passes ("*": any; `obj[name] = fn`, audit 69).
      // Another module's object (`function Special:withdraw()` on Special
      // = Account:new()) is a module field write above, which names its maker.
      const std::size_t index = static_cast<std::size_t>(&proto - chunk_.prototypes.data());
      const Value stored = valueAt(ins.a);
      const bool closure = stored.is(Kind::LuaFunction);
      const bool unnamed = table.kind == Kind::Unknown && !table.isMissingMember();
      // Into the very table the function is handed (a parameter it never
      // assigns), whatever may be a function counts: a field of another
      // table (`cls.access = impl.access`), a value a pairs loop copies (a
      // mixin's `cls[k] = v`, audit 73). Not into a table read from
      // somewhere (`self.maxIds[tv] = id`, inspect.lua: a map, no class).
      const bool handed = unnamed && keptParameter(index, ins.b);
      const bool mayBeFunction =
          closure || keptParameter(index, ins.a) ||
          (handed && (!stored.known() || stored.is(Kind::ModuleMember) || stored.is(Kind::Global) ||
                      stored.is(Kind::LibFunction) || stored.is(Kind::CFunction)));
      // A new __index for a metatable the function is handed, whatever it
      // is (`getmetatable(Echo).__index = Fast`, audit 73): any method.
      if (unnamed && key && *key == "__index") {
        tables.objectMethods.push_back(kAnyMethod);
      } else if (mayBeFunction && (unnamed || table.is(Kind::Receiver) || table.is(Kind::Instance))) {
        if (key) {
          tables.objectMethods.push_back(*key);
        } else if (ins.op == Op::TSETV && !valueAt(ins.c).is(Kind::Number)) {
          // Into a table it is handed, any key; into another the function
          // cannot name, a name the caller passes or a string; into this
          // file's objects, only with a closure made here:
          // `self[self.n] = v`, a list's push, stores an element (the
          // accuracy workloads' List). A number key is an array slot.
          const bool named = valueAt(ins.c).is(Kind::String) || keptParameter(index, ins.c);
          if (handed || (named && (unnamed || closure))) tables.objectMethods.push_back(kAnyMethod);
        }
        if (handed && !(ins.op == Op::TSETV && valueAt(ins.c).is(Kind::Number)))
          tables.handedKeys.push_back(key ? std::string_view(*key) : kAnyMethod);
      }
      // package.loaded["logger"] = stub, package.preload.logger = loader.
      // Not `package.loaded[name] = nil`, which unloads: require runs the file again.
      if (table.isMissingMember() && (table.name == "package.loaded" || table.name == "package.preload") &&
          !valueAt(ins.a).is(Kind::Nil)) {
        if (key) tables.modulesLoadedInPlace.push_back(*key);
        else if (valueAt(ins.c).isConstantString()) tables.modulesLoadedInPlace.push_back(valueAt(ins.c).text());
        else tables.modulesLoadedInPlace.push_back(kAnyMethod);  // a name it is handed: namesPassed
      }
      if (table.is(Kind::Table) && table.pc != 0) {
        if (key) tables.fieldWrites.push_back({{table.proto, table.pc}, *key, valueAt(ins.a)});
        else if (!valueAt(ins.c).is(Kind::Number)) tables.dynamicKeys.push_back({table.proto, table.pc});
      }
      note(ins.a);
      break;
    }
    case Op::GSET: case Op::TSETB: case Op::TSETR: case Op::RET1: note(ins.a); break;
    case Op::USETV: note(ins.d); break;
    // An operand of an operator goes to a metamethod when the other is an
    // object (an lpeg pattern / function keeps the function as a capture).
    case Op::ADDVV: case Op::SUBVV: case Op::MULVV: case Op::DIVVV: case Op::MODVV: case Op::POW:
      note(ins.b);
      note(ins.c);
      break;
    case Op::RET:
      for (int s = ins.a; s < ins.a + ins.d - 1; ++s) note(s);
      break;
    case Op::RETM:  // `return f, ...`: the fixed results before the multres
      for (int s = ins.a; s < ins.a + ins.d; ++s) note(s);
      break;
    case Op::ITERC:  // `for x in iter, state, control`: the iterator gets the other two
      note(ins.a - 2);
      note(ins.a - 1);
      break;
    case Op::CALL: case Op::CALLM: case Op::CALLT: case Op::CALLMT: {
      Value callee = valueAt(ins.a);
      bool setsMetatable = callee.is(Kind::LibFunction) &&
                           (callee.name == "setmetatable" || callee.name == "debug.setmetatable");
      int first = argumentSlot(chunk_, ins, 0), count = fixedArgs(ins);
      if (setsMetatable && count >= 1) {
        Value target = valueAt(first);
        if (target.is(Kind::Table) && target.pc != 0) tables.metatableTargets.push_back({target.proto, target.pc});
        else if (!target.known() || target.is(Kind::Table)) tables.unresolvedSetmetatable = true;
        Value metatable = count >= 2 ? valueAt(first + 1) : Value{};
        if (target.is(Kind::Table) && target.pc != 0 && metatable.is(Kind::Table) && metatable.pc != 0)
          tables.metatables.push_back({{target.proto, target.pc}, {metatable.proto, metatable.pc}});
        // A nil metatable takes the methods away (an object pool's release): no other class's run.
        const bool toClass = count >= 2 && !metatable.is(Kind::Nil);
        if ((target.is(Kind::Receiver) || target.is(Kind::Instance)) && target.pc != 0 && toClass)
          tables.reclassed.push_back({target.proto, target.pc});
        // Neither named: a helper that gives whatever object it is handed
        // whatever class (`transition(self, Chasing)`, audit 67). A class
        // of its own (`setmetatable(o, C)`) or `self` (Programming in
        // Lua's `Account:new(o)`) is no such helper.
        if (toClass && target.kind == Kind::Unknown && !target.isMissingMember() && metatable.kind == Kind::Unknown &&
            !metatable.isMissingMember())
          tables.reclassesAnyObject = true;
        if (toClass && target.kind == Kind::Unknown && !target.isMissingMember() &&
            reparentsHandedTable(proto, ins, first, metatable, tables))
          tables.objectMethods.push_back(kAnyMethod);
        // Another module's object given a class of this file (audit 67), or
        // its class table given another parent (`setmetatable(Echo, {__index
        // = Fast})`, audit 73): any of its methods may be another.
        if ((target.is(Kind::ModuleResult) || target.is(Kind::Module) || target.is(Kind::ModuleMember)) && toClass)
          tables.moduleFieldWrites.emplace_back(target.name, "*");
        // This file's class inheriting from another module's, `setmetatable(Circle, Shape)`
        // with Shape = require("shape") (audit 67): its methods may stand in for Shape's.
        if (target.is(Kind::Table) && target.pc != 0 && (metatable.is(Kind::Module) || metatable.is(Kind::ModuleMember)))
          tables.moduleClasses.push_back({{target.proto, target.pc}, metatable.name});
      }
      if (callee.is(Kind::LibFunction) && callee.name == "ffi.cdef" && count >= 1 && valueAt(first).isConstantString())
        tables.cdefs.push_back(valueAt(first).text());
      // rawset(M, "f", v) stores as M.f = v does (audit 62): into another
      // module's table, or into one of this file's.
      if (callee.is(Kind::LibFunction) && callee.name == "rawset" && count >= 2) {
        const Value table = valueAt(first), key = valueAt(first + 1);
        if (table.is(Kind::Module) || table.is(Kind::ModuleMember) || table.is(Kind::ModuleResult))
          tables.moduleFieldWrites.emplace_back(table.name,
                                                key.isConstantString() ? key.text() : std::string_view("*"));
        if (table.is(Kind::Table) && table.pc != 0) {
          if (key.isConstantString())
            tables.fieldWrites.push_back({{table.proto, table.pc}, key.text(), count >= 3 ? valueAt(first + 2) : Value{}});
          else if (!key.is(Kind::Number))
            tables.dynamicKeys.push_back({table.proto, table.pc});
        }
      }
      if (callee.is(Kind::LibFunction) && callee.name == "jit.off" && count >= 1 && valueAt(first).is(Kind::LuaFunction))
        tables.jitOff.push_back(valueAt(first).proto);
      bool libraryCall = callee.is(Kind::LibFunction) && keepsNoTable(callee.name);
      // pcall(f, ...) and xpcall(f, h, ...) call f once, now, with the
      // arguments in view (the call graph links f to the call): f does not
      // leave. xpcall's handler does: the error is its argument.
      const bool protectedCall = callee.is(Kind::LibFunction) && (callee.name == "pcall" || callee.name == "xpcall");
      const bool otherModule = callee.is(Kind::ModuleMember);
      for (int s = first; s < first + count; ++s) {
        Value v = valueAt(s);
        if (v.kind == Kind::LuaFunction && !(protectedCall && s == first)) out.push_back(v.proto);  // callbacks
        if (v.kind == Kind::Table && !libraryCall && !setsMetatable) {
          tables.escapingTables.push_back({v.proto, v.pc});
          if (v.pc != 0) tables.passedTables.push_back({v.proto, v.pc});
          if (v.pc != 0 && callee.is(Kind::LuaFunction)) tables.tablesHandedTo.push_back({{v.proto, v.pc}, callee.proto});
        }
        if (otherModule && v.isConstantString() && mayNameModule(v.text()))
          tables.namesPassed.emplace_back(ModuleMemberName::parse(callee.name).module, v.text());
      }
      break;
    }
    case Op::FNEW:  // a closure that may assign the local can pass the table anywhere
      if (ins.d < proto.gc.size() && proto.gc[ins.d].kind == bytecode::GcConstant::Kind::Child) {
        for (const auto& uv : chunk_.prototypes[proto.gc[ins.d].child].upvalues)
          if (uv.parentLocal && !uv.immutable) note(uv.index);
      }
      break;
    default: break;
  }
}

}  // namespace ljcheck::flow
