// What each register holds at each instruction, as far as the bytecode shows:
// library tables and functions (string, string.gsub), FFI namespaces, symbols
// and ctypes (ffi.C, ffi.load(...), ffi.typeof("int[?]")), simple types of
// locals (number, string, table, nil, boolean; constants where they are
// literals; a string, number, boolean or nil where a `type(x) == "..."` test
// holds), aliases through locals, immutable upvalues and compatibility
// idioms (`unpack or table.unpack`), forward-declared local functions,
// constant-key fields of tables from constructors (M.f = function ...).
// Anything else is Unknown: an unresolved value never yields a prediction.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ljcheck/builtin_aliases.h"
#include "ljcheck/bytecode.h"
#include "ljcheck/c_modules.h"
#include "ljcheck/profile.h"

namespace ljcheck::flow {

class CDeclarations;  // flow/c_declarations.h
struct TypeTest;      // flow/type_tests.h

struct Value {
  enum class Kind : std::uint8_t {
    Unknown,      // name, when set: a missing library member (missingMember)
    Global,       // a global that is not a library: name
    LibTable,     // string, ffi, jit.util: name
    LibFunction,  // a fast function: its ffname
    CFunction,    // a plain C function (require): name
    String,       // constant: text(); otherwise the text of its constant pieces
    Number,       // constant: its integral value, in integer
    Nil,
    Boolean,
    Table,        // from a constructor: proto and pc of its TNEW/TDUP (pc 0: several)
    LuaFunction,  // proto: the prototype it instantiates
    FfiLibrary,   // ffi.C ("C") or an ffi.load(...) result (its argument, or "?")
    FfiSymbol,    // C.name or lib.name: name
    CType,        // ffi.typeof/ffi.metatype of a constant declaration: name
    Module,       // require("a.b") of a module that is no library of the profile: name "a.b"
    ModuleMember, // a field of such a module, M.f: name "a.b:f"; or a field of what
                  // one of its functions returns, obj.m: name "a.b:f():m"
    ModuleResult, // what a function of such a module returns, obj = M.f(): name "a.b:f()"
    // C modules (c_modules.h); `integer` is the length of the module's name,
    // which leads `name`:
    CModule,         // require("lpeg") of a C module: name "lpeg"
    CModuleFunction, // a C function of one: name "lpeg.match" (a member), or "lpeg.P():match"
                     // (a method of what a member returns; pc 1)
    CModuleResult,   // what a C function of a C module returns: name "lpeg.P()"
    // Objects and their methods (classes.cpp):
    Instance,     // setmetatable(t, M) of a t the tracker cannot name: proto and pc of M's constructor
    Receiver,     // `self` in a function defined as T:m or T.m = function(self): proto and pc of T
    Method,       // a field read from an Instance, a Receiver, or a table before any store
                  // to it was seen (name: the key): resolved when queried
    // C data: what ffi.new, ffi.cast and a ctype's call make (name: the
    // ctype as the code spells it, "" when not known). Its metatable is the
    // FFI's own (ffi.meta.*: C functions).
    CData,
  };
  static constexpr std::uint32_t kNoProto = UINT32_MAX;  // proto of a value that names none

  Kind kind = Kind::Unknown;
  bool constant = false;  // String: text() is all of its text; Number: integer holds its value
  // The slot belongs to a local that a closure may assign (a mutable
  // upvalue): whatever this function last wrote may have changed.
  bool reassignable = false;
  std::int32_t pc = 0;       // Table: the pc of its TNEW/TDUP (0: several)
  std::int32_t integer = 0;  // a constant Number: its value
  std::uint32_t proto = kNoProto;  // Table, LuaFunction: an index into Chunk::prototypes
  // Names point into the chunk's constants or the ValueMap's name pool, so
  // values copy cheaply (32 bytes in all). A String's text shares this
  // field (read it with text()): a second view would take 16 bytes more.
  std::string_view name;

  // A ModuleResult is not known: its type is not (a string, a number or an
  // object); only the methods called on it are looked up.
  bool known() const { return kind != Kind::Unknown && kind != Kind::ModuleResult && !reassignable; }
  bool is(Kind k) const { return kind == k && !reassignable; }
  bool isConstantString() const { return is(Kind::String) && constant; }
  bool isConstantNumber() const { return is(Kind::Number) && constant; }
  // A member of a library table that is not a fast or C function on this
  // profile (table.unpack, math.tointeger on 2.1): nil, a value such as
  // math.pi, or a builtin written in Lua (table.remove). Unknown to every
  // rule; it only lets `table.unpack or unpack` resolve to the function on
  // the other side.
  bool isMissingMember() const { return kind == Kind::Unknown && !name.empty(); }
  // A String's text: all of it when constant, else its constant pieces.
  std::string_view text() const { return name; }
  bool operator==(const Value& o) const {
    // Cheap fields first: most slots compare Unknown with Unknown.
    return kind == o.kind && constant == o.constant && reassignable == o.reassignable && pc == o.pc &&
           integer == o.integer && proto == o.proto && name.size() == o.name.size() &&
           (name.data() == o.name.data() || name == o.name);
  }

  static Value of(Kind k, std::string_view n = {}) {
    Value v;
    v.kind = k;
    v.name = n;
    return v;
  }
  static Value missingMember(std::string_view dottedName) { return of(Kind::Unknown, dottedName); }
  // A string known by the text of its constant pieces (a concatenation).
  static Value string(std::string_view text) { return of(Kind::String, text); }
  static Value constantString(std::string_view text) {
    Value v = string(text);
    v.constant = true;
    return v;
  }
  // Integral constants are kept (indices, bases, levels); others are just numbers.
  static Value constantNumber(double n) {
    Value v = of(Kind::Number);
    if (n >= -2147483648.0 && n <= 2147483647.0 && static_cast<double>(static_cast<std::int32_t>(n)) == n) {
      v.constant = true;
      v.integer = static_cast<std::int32_t>(n);
    }
    return v;
  }
  // A value of the C module `module`, named `name` (which starts with it).
  static Value ofCModule(Kind k, std::string_view module, std::string_view name) {
    Value v = of(k, name);
    v.integer = static_cast<std::int32_t>(module.size());
    return v;
  }
  std::string_view cModuleName() const { return name.substr(0, static_cast<std::size_t>(integer)); }
  static Value luaFunction(std::size_t proto) {
    Value v = of(Kind::LuaFunction);
    v.proto = static_cast<std::uint32_t>(proto);
    return v;
  }
  static Value table(std::size_t proto, int pc) {
    Value v = of(Kind::Table);
    v.proto = static_cast<std::uint32_t>(proto);
    v.pc = pc;
    return v;
  }
  // An object of a table from a constructor: Instance (origin: its
  // metatable) or Receiver (origin: the table the method is defined on).
  static Value object(Kind k, std::size_t proto, int pc) {
    Value v = table(proto, pc);
    v.kind = k;
    return v;
  }
  // obj.key, self.key or T.key before the file's stores are all known:
  // `integer` keeps what it was read from (kMethodOf...).
  static constexpr std::int32_t kMethodOfInstance = 0, kMethodOfReceiver = 1, kMethodOfTable = 2;
  // The `integer` of a LibFunction, a string method taken by its name alone
  // on a receiver of unknown type (o:gsub(...)), and of the String it
  // returns: o may be an object with a gsub of its own, so what it returns
  // is a string only as far as that guess goes (audit 68: `doc =
  // doc:gsub(...)` on a Lua object, then doc:match(...) certain).
  static constexpr std::int32_t kTakenByName = 1;
  static Value takenByName(Value v) {
    if (v.kind == Kind::LibFunction || v.kind == Kind::String) v.integer = kTakenByName;
    return v;
  }
  bool takenByName() const { return (kind == Kind::LibFunction || kind == Kind::String) && integer == kTakenByName; }
  static Value method(const Value& object, std::string_view key) {
    Value v = of(Kind::Method, key);
    v.proto = object.proto;
    v.pc = object.pc;
    v.integer = object.kind == Kind::Receiver ? kMethodOfReceiver
                : object.kind == Kind::Table  ? kMethodOfTable
                                              : kMethodOfInstance;
    return v;
  }
};
static_assert(sizeof(Value) == 32, "a Value is copied for every slot at every kept instruction");

// An operator applied to a value a C module's function returned (lpeg's
// p * q, p / "", -p, #p): when the value is a userdata of the module, the
// operator calls one of its metamethods, C code of the module
// (c_module_values.cpp).
struct CModuleOperation {
  int pc = 0;
  Value object;  // the operand that comes from the C module
  // The other operand cannot be a number (a table, a function, a string
  // that is no numeral): only a metamethod of `object` makes the operator
  // work, so `object` is no number.
  bool needsMetamethod = false;
};

// An arithmetic operator or UNM applied to a table the tracker knows (an
// Instance, or a table from a constructor): when its metatable holds a Lua
// function for the operator, the operator calls it through a metamethod
// frame (rules/metamethod_returns.cpp). `left` is the operand LuaJIT looks
// the metamethod up on first (a Number for a constant on the left, 2 * v);
// `right` is Unknown for UNM and a constant on the right.
struct ObjectOperation {
  int pc = 0;
  Value left, right;
  // An operand whose class the tracker knows: an Instance, or a table
  // from a constructor.
  static bool isObject(const Value& v) {
    return v.is(Value::Kind::Instance) || (v.is(Value::Kind::Table) && v.pc != 0);
  }
};

// The metamethod an arithmetic, UNM or LEN instruction calls on an object
// ("__mul"), and its operator as written ("*"); empty for other instructions.
std::string_view metamethodOf(bytecode::Op op);
std::string_view operatorOf(bytecode::Op op);

// Library functions that may take a table argument without keeping it or
// giving it a metatable (library_values.cpp).
bool keepsNoTable(std::string_view ff);

// The library table `require(name)` returns, by the name the profile knows
// it under ("string.buffer": "buffer"), or empty when that name loads a
// file of the project (library_values.cpp).
std::string_view requiredLibrary(std::string_view name);
// Whether a global of that name is the library the profile names so.
bool globalLibrary(std::string_view name);

// Methods only strings have: other objects rarely define these names, so
// obj:gsub(...) on a value of unknown type is taken for string.gsub
// (library_values.cpp).
bool onlyStringsHave(std::string_view key);

// Names of module members ("a.b:f", "a.b:f():m") or of methods ("draw"),
// as the project passes them between files, looked up by view.
using MemberNames = std::set<std::string, std::less<>>;

// Values of every prototype of a chunk; prototypes are resolved parent first
// so that upvalues see the values their parent's locals were given.
class ValueMap {
 public:
  // `aliases`: builtins under other names (builtin_aliases.h); null for
  // none, else it must outlive the map.
  // `cModules`: which require names load C modules; null for none, else it
  // must outlive the map.
  // `history`: what the last map of the same document computed
  // (value_history.h); this map takes over the passes whose inputs are
  // unchanged and, when destroyed, leaves its own for the next one. Null
  // for none, else it must outlive the map.
  struct History;
  // `importedReturns`: the library function other modules' functions
  // return, by "module:member" ("iter:lines" -> "string.gmatch_aux"): what
  // a call of require("iter").lines(...) yields. Null for none.
  using ImportedReturns = std::map<std::string, std::string, std::less<>>;
  // `luaMethods`: methods of objects other modules' functions return that
  // those modules define in Lua, by "module:f():m": obj:gsub(...) on one is
  // that method, not string.gsub. Null for none.
  // `overriddenElsewhere`: the members of the table this module returns
  // that tables of other files which inherit from it define again
  // (overridesOfOtherModules there): `self:m()` in a method of this table
  // may call theirs. Null for none.
  // `storedElsewhere`: method names of this file's classes that other files
  // store functions under into objects (methodsStoredOnObjects there): an
  // object's own field of that name stands in for its class's method. Null
  // for none.
  ValueMap(const bytecode::Chunk& chunk, const RecorderProfile& profile, const BuiltinAliases* aliases = nullptr,
           const CModules* cModules = nullptr, History* history = nullptr,
           const ImportedReturns* importedReturns = nullptr, const MemberNames* luaMethods = nullptr,
           const MemberNames* overriddenElsewhere = nullptr, const MemberNames* storedElsewhere = nullptr);
  ~ValueMap();
  ValueMap(const ValueMap&) = delete;
  ValueMap& operator=(const ValueMap&) = delete;
  // The recorder profile the values were resolved against.
  const RecorderProfile& profile() const { return profile_; }
  // False when the instruction at pc keeps a state (a call, a return, a
  // closure) and no path the tracker takes reaches it: a test of a value
  // whose truth it knows skips it (`if cls then require(cls) end` where
  // every call leaves cls out).
  bool reached(std::size_t proto, int pc) const;
  // The value in `slot` just before the instruction at `pc` runs. Kept for
  // calls, returns and closure creations; Unknown at other instructions.
  Value at(std::size_t proto, int pc, int slot) const;
  // As at(), but a field read from a table of this file that no store of
  // the file names stays a Method (its table and key) instead of Unknown:
  // what a name registered at run time (ctype_registrars.h) is looked up by.
  Value fieldReadAt(std::size_t proto, int pc, int slot) const;
  // The value of upvalue `index` of a prototype.
  Value upvalue(std::size_t proto, int index) const;
  // What a prototype returns when every return hands back one known value
  // (return coroutine.wrap(...), return string.gmatch(...)); else Unknown.
  Value returned(std::size_t proto) const;
  // The functions the main chunk returns in its module table (`return M`
  // with `M.f = function ...` or `function M.f()`), by field name: what
  // other files reach with require(...).f. In a Lua 5.1 `module(...)` file
  // that returns no table, the functions it assigns to globals after the
  // call (`function f() ... end`, module_environment.h).
  // None when the table also gets stores under computed keys
  // (`M[alias] = M[name]`), which may replace any of them; with
  // `evenWithComputedKeys`, the functions stored under a constant name all
  // the same (what the file defines, whatever may replace it later).
  std::vector<std::pair<std::string_view, std::size_t>> exportedFunctions(bool evenWithComputedKeys = false) const;
  // What other files reach through those functions and tables, by name:
  //   "T.f"         a function of a table the module table holds
  //                 (return {T = T}; require(...).T.f);
  //   "f()"         the closure f returns (g = require(...).f(); g(x));
  //   "f():m"       the method m of the object f returns
  //                 (o = require(...).new(); o:m(), with new returning setmetatable({}, C)).
  // "T.f()" and "T.f():m" likewise, one level down.
  std::vector<std::pair<std::string, std::size_t>> indirectExports() const;
  // Per prototype: whether a closure of it escapes (stored in a table or a
  // global or an upvalue, returned, or passed as an argument).
  std::vector<bool> escapingFunctions() const;

  // What the file shows about a table's metatable: None when no
  // setmetatable in the file can reach it and it never leaves its function;
  // Unseen when it leaves its function (code elsewhere might set one) but no
  // setmetatable in this file can reach it; Maybe otherwise.
  enum class Metatable { None, Unseen, Maybe };
  Metatable metatableOf(const Value& table) const;

  // Prototypes passed to jit.off somewhere in this chunk: calls to them
  // abort with CJITOFF, and their own code is never traced.
  bool jitDisabled(std::size_t proto) const { return jitOff_.count(proto) > 0; }
  bool anyJitDisabled() const { return !jitOff_.empty(); }
  // "module:member" (or "module:T.f") for each field of a required
  // module's table, or a table it holds, that this chunk assigns: `codec.encode
  // = function(x) ... end` replaces what codec.lua defines for every caller.
  const std::set<std::string>& assignedModuleMembers() const { return assignedModuleMembers_; }
  // The methods this file's classes define again over another module's
  // class they inherit from (`setmetatable(Circle, {__index = Shape})` with
  // Shape = require("shapes.base"), then `function Circle:outline()`), as
  // "module:member" ("shapes.base:outline"); classes.cpp.
  std::vector<std::string> overridesOfOtherModules() const;
  // The other module's class the table this module returns inherits from,
  // as overridesOfOtherModules names its members ("shapes.base:" or
  // "geometry:Shape."); empty for none. A method a subclass of this one
  // defines again in a third file is defined again over that class too.
  std::string baseOfModuleClass() const;
  // The exported functions that return objects of the class the module
  // table is (`function Echo.new() return setmetatable(Base.new(), Echo)
  // end`): a method those objects lack is their base class's.
  std::vector<std::string> makersOfModuleObjects() const;
  // The keys the file stores into its module table, sorted; with stores
  // under keys it does not name, none (and no makers either).
  std::vector<std::string> moduleFieldNames() const;
  // The keys under which this file stores functions into objects it cannot
  // name: a parameter, `self`, an Instance, or what another module's
  // function returned (`s.paint = function ... end` in a helper given a
  // sprite; `function SpecialAccount:withdraw()` on SpecialAccount =
  // Account:new(), Programming in Lua's subclasses). Any object's method of
  // that name may be such a function instead of its class's (classes.cpp).
  std::vector<std::string> methodsStoredOnObjects() const;
  // The key of a store whose key the bytecode does not name, among those:
  // any method.
  static constexpr std::string_view kAnyMethod = "*";
  // The module names this file stores a value under in package.loaded or
  // package.preload (`package.loaded["logger"] = stub`, audit 69): a
  // require of one may load that value, never its file.
  std::vector<std::string> modulesLoadedInPlace() const;
  // Constant strings passed to other modules' functions: {"testkit",
  // "logger"} for testkit.stub("logger", …) (TableUses::namesPassed); and
  // {"", key} for the keys this file stores tables under, when it stores
  // into package.loaded under a name it does not spell (a loop over stubs).
  std::vector<std::pair<std::string, std::string>> namesPassed() const;
  // The names of the methods this file's calls resolve to its own Lua
  // functions (`self:m()`, `obj:m()`), sorted: the only ones whose
  // resolution what other files store could change.
  std::vector<std::string> resolvedMethodNames() const;
  // The pc of the FNEW in its parent that creates a prototype (the first,
  // if several do); 0 for the main chunk or when none does.
  int creatingPc(std::size_t proto) const { return proto < creatingPc_.size() ? creatingPc_[proto] : 0; }

  // What the calls of a function give its parameters, when only this
  // file's code calls it and every call passes the same callee or
  // namespace in one's place (parameter_values.cpp): `values` by
  // parameter (Unknown where the calls show none), how many calls there
  // are, and the line of the first.
  struct BoundParameters {
    std::vector<Value> values;
    std::size_t calls = 0;
    int line = 0;
  };
  // The one parameter in `slot` of `proto`: `values` holds it alone, or
  // nothing when no binding holds it.
  BoundParameters boundParameter(std::size_t proto, int slot) const;
  bool hasBoundParameters(std::size_t proto) const {
    return proto < parameters_.size() && !parameters_[proto].values.empty();
  }

  // A Method value resolved through the class tables this file builds
  // (classes.cpp): the function `obj:key()` or `self:key()` calls, or
  // Unknown when a class, a metatable or an overriding subclass is in doubt.
  Value resolveMethod(const Value& method) const;
  // Whether a function of the chunk that takes `self` is stored in a field
  // named `key` (`function Obj:match(p)`): an object of this file may have a
  // method of that name. Found on the first question, for all names.
  bool definesSelfMethod(std::string_view key) const;
  // What setmetatable(t, mt) returns: t when it is a table from a
  // constructor (its metatable is on record), else an Instance of mt.
  static Value objectOf(const Value& table, const Value& metatable);
  // A table this file gives a metatable, or an Instance: an object whose
  // methods resolve (worth a second pass of its callers when returned).
  bool isObject(const Value& v) const;
  // The Lua function an object's metatable holds under __index (`__index
  // = function(t, k) ... end`): a read of a key the object lacks calls it.
  // Unknown when there is none, or the metatable is in doubt.
  Value indexMetamethod(const Value& object) const;
  // The same for any metamethod (`name` such as "__add").
  Value metamethod(const Value& object, std::string_view name) const;
  // The Lua functions tables of this file hold under __index, in
  // prototype order (found on the first question): a read from a table
  // the tracker cannot name may call one.
  const std::vector<std::size_t>& indexMetamethods() const;
  // The table a field read (TGETS, TGETV, TGETB) at pc reads from, as the
  // register state at the next kept instruction shows it, when the code
  // between runs straight on and leaves the table's register alone;
  // Unknown otherwise.
  Value tableReadAt(std::size_t proto, int pc) const;

  // The one value this file stores under a constant key of a table from a
  // constructor ({__new = function ... end}, M.f = ...); Unknown when the
  // file stores several, or keys the analyzer cannot name.
  Value field(const Value& table, std::string_view key) const;

  // The C declarations of every ffi.cdef call with a constant string in
  // this chunk (parsed on first use).
  const CDeclarations& cDeclarations() const;
  // Why `module` is a C module, as a sentence (c_modules.h); empty when it is not.
  std::string cModuleEvidence(std::string_view module) const;
  // The operators a prototype applies to values of C modules, in pc order.
  const std::vector<ObjectOperation>& objectOperations(std::size_t proto) const {
    return protos_.at(proto).objectOperations;
  }
  const std::vector<CModuleOperation>& cModuleOperations(std::size_t proto) const {
    return protos_.at(proto).cModuleOperations;
  }
  // Why this file's values of C module `module` are taken for objects
  // (userdata with C methods and metamethods), as a clause naming the first
  // use that shows it ("`:match` is called on one at line 216"); empty
  // without such a use.
  std::string cModuleObjectEvidence(std::string_view module) const;

 private:
  std::vector<std::pair<std::string, std::size_t>> nestedExports() const;  // the "T.f" of indirectExports
  using Registers = std::vector<Value>;
  using TableOrigin = std::pair<std::size_t, int>;  // proto, pc of the constructor
  // One kept register state: a view into Snapshots' store, valid until the
  // next keep(). Reads like a pointer to Registers (`if (!regs)`, `(*regs)[i]`,
  // `regs->size()`) and like Registers itself.
  class RegisterView {
   public:
    RegisterView() = default;
    RegisterView(const Value* data, std::size_t n) : data_(data), n_(n) {}
    explicit operator bool() const { return data_ != nullptr; }
    const RegisterView& operator*() const { return *this; }
    const RegisterView* operator->() const { return this; }
    std::size_t size() const { return n_; }
    const Value& operator[](std::size_t i) const { return data_[i]; }

   private:
    const Value* data_ = nullptr;
    std::size_t n_ = 0;
  };
  // Register states kept at some pcs, found by pc in constant time. Every
  // state of a pass has the frame's width: they share one store, so keeping
  // one copies registers and allocates nothing once the store has grown.
  struct Snapshots {
    std::vector<int> slotOf;  // by pc: index of its state, -1 for none
    std::vector<int> pcs;     // the pcs that have a state, in the order first kept
    std::size_t width = 0;    // registers per state
    std::vector<Value> store;  // the states, `width` apiece, by index
    void keep(int pc, const Registers& regs) {
      if (pc >= static_cast<int>(slotOf.size())) slotOf.resize(static_cast<std::size_t>(pc) + 1, -1);
      int& slot = slotOf[static_cast<std::size_t>(pc)];
      if (pcs.empty()) width = regs.size();  // the first state sets the width
      const auto n = static_cast<std::ptrdiff_t>(std::min(width, regs.size()));
      if (slot < 0) {  // a new state: copied in as the store grows
        slot = static_cast<int>(pcs.size());
        pcs.push_back(pc);
        store.insert(store.end(), regs.begin(), regs.begin() + n);
        store.resize(static_cast<std::size_t>(slot + 1) * width);
        return;
      }
      std::copy(regs.begin(), regs.begin() + n,
                store.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(slot) * width));
    }
    RegisterView state(std::size_t k) const { return {store.data() + k * width, width}; }
    RegisterView find(int pc) const {
      if (pc < 0 || pc >= static_cast<int>(slotOf.size()) || slotOf[static_cast<std::size_t>(pc)] < 0) return {};
      return state(static_cast<std::size_t>(slotOf[static_cast<std::size_t>(pc)]));
    }
  };
  struct TableUses {
    std::vector<TableOrigin> metatableTargets;  // passed to setmetatable
    std::vector<TableOrigin> escapingTables;    // stored, returned or passed on
    bool unresolvedSetmetatable = false;        // setmetatable of a table the analyzer cannot name
    std::vector<std::string_view> cdefs;        // constant strings passed to ffi.cdef
    std::vector<std::size_t> jitOff;            // prototypes passed to jit.off
    // Constant-key stores into tables from constructors (M.f = function ...),
    // and tables that get stores with keys the analyzer cannot name.
    struct FieldWrite {
      TableOrigin table;
      std::string_view key;
      Value value;
    };
    std::vector<FieldWrite> fieldWrites;
    std::vector<TableOrigin> dynamicKeys;
    // setmetatable(T, M) with both from constructors: {T, M}.
    std::vector<std::pair<TableOrigin, TableOrigin>> metatables;
    // setmetatable(self, M) in a method of T, or setmetatable(o, M) of an
    // Instance: T, or the Instance's metatable. Objects of that class may
    // change class (an enemy's state machine, audit 65): their methods are
    // in doubt.
    std::vector<TableOrigin> reclassed;
    // setmetatable(T, M) of a table from a constructor, with M another
    // module's table or one it holds: {T, "a.b" or "a.b:M"}.
    std::vector<std::pair<TableOrigin, std::string_view>> moduleClasses;
    std::vector<CModuleOperation> cModuleOperations;
    std::vector<ObjectOperation> objectOperations;
    // Constant-key stores into another module's table, a table it holds, or
    // an object one of its functions returned: {"a.b", "a.b:T" or
    // "a.b:new()", key} (assignedModuleMembers).
    std::vector<std::pair<std::string_view, std::string_view>> moduleFieldWrites;
    // Constant keys of functions stored into objects the tracker cannot
    // name (methodsStoredOnObjects).
    std::vector<std::string_view> objectMethods;
    // Module names this file stores a value under in package.loaded or
    // package.preload (a test's stub): require(name) does not run that
    // module's file then (modulesLoadedInPlace).
    std::vector<std::string_view> modulesLoadedInPlace;
    // Tables from constructors passed to a function (not a library one
    // that keeps none, nor setmetatable): it may store into them
    // (`mixin.include(Echo, Logging)`, audit 73).
    std::vector<TableOrigin> passedTables;
    // setmetatable(o, mt) with neither named, nor mt nil or `self`: a
    // helper that gives any object any class (`transition(self, Chasing)`,
    // audit 67). Every object of the file may change class.
    bool reclassesAnyObject = false;
    // The keys (kAnyMethod for one it does not name) under which this
    // function stores what may be a function into a table it is handed,
    // and the tables from constructors passed to a function of this file:
    // `override(M, "update", fn)` may replace M.update (audit 74).
    std::vector<std::string_view> handedKeys;
    std::vector<std::pair<TableOrigin, std::size_t>> tablesHandedTo;
    // Constant strings passed to calls of another module's function
    // ({"testkit", "logger"}): the names a helper that stores into
    // package.loaded under a name it is handed may stub (namesPassed, audit 73).
    std::vector<std::pair<std::string_view, std::string_view>> namesPassed;
    // How far a pass had got: every list's length, and the flag (a field
    // added above needs its place here). A pass only appends (and sets the
    // flag), so cutting back to a mark undoes what it found after it
    // (ValueMap::forwardPass starts a round from a loop head).
    struct Mark {
      std::size_t metatableTargets = 0, escapingTables = 0, cdefs = 0, jitOff = 0, fieldWrites = 0, dynamicKeys = 0,
                  metatables = 0, reclassed = 0, moduleClasses = 0, cModuleOperations = 0, moduleFieldWrites = 0,
                  objectMethods = 0, modulesLoadedInPlace = 0, passedTables = 0, handedKeys = 0, tablesHandedTo = 0,
                  namesPassed = 0, objectOperations = 0;
      bool unresolvedSetmetatable = false, reclassesAnyObject = false;
    };
    Mark mark() const;
    void cutBackTo(const Mark& m);
  };
  struct ProtoValues : TableUses {
    Snapshots before;  // at calls, returns and FNEW
    std::vector<Value> upvalues;
    Value returns;
    std::vector<std::size_t> escaping;  // prototypes whose closures escape from here
  };
  void noteEscapes(const bytecode::Prototype& proto, const bytecode::Instruction& ins, const Registers& regs,
                   std::vector<std::size_t>& out, TableUses& tables) const;
  // The string fields a TDUP's template gives its table (`{ pattern =
  // "^/a/(%d+)$" }`), as stores the constructor makes.
  static void noteTemplateFields(const bytecode::Prototype& proto, const bytecode::Instruction& ins, std::size_t index,
                                 int pc, TableUses& tables);
  // The operands of an arithmetic instruction, UNM or LEN as the registers
  // hold them (Unknown where a closure may have assigned the local); `right`
  // Unknown for UNM, LEN and an operator with a number constant. False for
  // other instructions.
  static bool operandsOf(const bytecode::Instruction& ins, const Registers& regs, Value& left, Value& right);
  static void noteObjectOperation(const bytecode::Instruction& ins, int pc, const Registers& regs, TableUses& tables);
  static void noteCModuleOperation(const bytecode::Prototype& proto, const bytecode::Instruction& ins, int pc,
                                   const Registers& regs, TableUses& tables);
  void transfer(std::size_t index, const bytecode::Instruction& ins, int pc, Registers& regs);
  Value callResult(const bytecode::Instruction& ins, const Registers& regs);
  // The second result of pcall(f, ...): what f returns first.
  Value protectedResult(const bytecode::Instruction& ins, const Registers& regs);
  Value indexResult(const Value& base, const std::string& key);
  // An element of a cdata array, or what a cdata pointer points to, read
  // with [ ] (library_values.cpp); Unknown for anything else.
  Value elementOf(const Value& cdata);
  Value rawMember(const Value& table, std::string_view key);
  // A library table or function by dotted name, or Unknown (cached).
  Value library(std::string_view name);
  std::string_view intern(std::string text);
  Value returnedFunction(std::string_view callee);
  // What calling a function of a C module (not a method) returns: a value of the module.
  Value cModuleResult(const Value& function);
  // A type test at pc of a local against `type(x)` (type_tests.h), and the
  // narrowing of the local on the edge where the test holds.
  TypeTest typeTestOf(std::size_t proto, int pc, const Snapshots& before) const;
  static void narrowType(Registers& regs, const TypeTest& test);
  // What one forward pass over a prototype's code finds.
  struct Pass {
    Snapshots before;
    TableUses uses;
    std::vector<std::size_t> escaping;
  };
  // Resolves a prototype in three steps: its upvalues from its parent, a
  // forward pass over its code, then keeping what the pass found.
  void resolve(std::size_t proto);
  void resolveUpvalues(std::size_t proto);
  // The pass of a prototype: the last map's when its inputs are the same
  // (value_history.cpp), else a forward pass.
  Pass passOf(std::size_t proto);
  void setReturns(std::size_t proto, Value returns);
  void keepReplaced(std::size_t proto, Pass replaced);
  void startHistory();
  void findGlobalFunctions();
  void leaveHistory();
  History* history_ = nullptr;
  Value capturedValue(std::size_t proto, const bytecode::UpvalueRef& upvalue) const;
  std::vector<int> creatingPc_;  // per prototype: the pc of the FNEW in its parent that creates it (0: none)
  // Globals this chunk assigns once, with a closure it creates there
  // (`function name() ... end` outside a module table): by name, the
  // prototype. A read of the global (not a library name) is that function.
  std::map<std::string, std::size_t, std::less<>> globalFunctions_;
  // Those of them that are fields of a `module(...)` file's module table, by name.
  std::vector<std::pair<std::string_view, std::size_t>> moduleFunctions_;
  Pass forwardPass(std::size_t proto);
  // Returns what the prototype held before (the pass it replaces).
  Pass keepPass(std::size_t proto, Pass pass);
  // skipUnknown: the meet of the returns that give a known value.
  void summarizeReturns(std::size_t proto, bool skipUnknown = false);
  void summarizeRecursiveReturns(std::size_t proto);
  bool callsItself(std::size_t proto) const;

  const bytecode::Chunk& chunk_;
  mutable std::optional<std::set<std::string, std::less<>>> selfMethods_;  // definesSelfMethod
  mutable std::optional<std::vector<std::size_t>> indexMetamethods_;
  const std::set<std::string, std::less<>>& selfMethods() const;
  const RecorderProfile& profile_;
  const BuiltinAliases* aliases_;
  const CModules* cModules_;
  const ImportedReturns* importedReturns_;
  const MemberNames* luaMethods_ = nullptr;
  const MemberNames* overriddenElsewhere_ = nullptr;
  const MemberNames* storedElsewhere_ = nullptr;
  std::vector<ProtoValues> protos_;
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string_view, Value> libraryCache_;
  // Over the whole chunk: tables passed to setmetatable, tables that leave
  // the function that made them, and whether some setmetatable call takes a
  // table the analyzer cannot name.
  std::set<TableOrigin> metatableTargets_, escapingTables_;
  bool unresolvedSetmetatable_ = false;
  std::set<std::size_t> jitOff_;
  std::set<std::string> assignedModuleMembers_;
  // Fields of tables from constructors that this chunk stores exactly one
  // known value into (module functions: M.f = function ...).
  std::map<std::pair<TableOrigin, std::string_view>, Value> fields_;
  std::set<TableOrigin> dynamicKeys_;
  // Classes (classes.cpp): the one table each prototype is stored into as a
  // field (T.m = function ..., function T:m()), and each table's metatable
  // when one setmetatable in the file gives it one.
  std::map<std::size_t, TableOrigin> methodOwner_;
  std::set<std::size_t> ownerInDoubt_;
  std::map<TableOrigin, TableOrigin> metatables_;
  std::set<TableOrigin> metatableInDoubt_;
  std::set<TableOrigin> reclassed_;  // TableUses::reclassed, of every prototype
  std::set<std::pair<TableOrigin, std::string_view>> moduleClasses_;  // TableUses::moduleClasses, of every prototype
  std::set<std::string_view> objectMethods_;  // TableUses::objectMethods, of every prototype
  std::set<std::string_view> modulesLoadedInPlace_;  // TableUses::modulesLoadedInPlace, of every prototype
  std::set<std::pair<std::string_view, std::string_view>> namesPassed_;  // TableUses::namesPassed, of every prototype
  std::vector<std::pair<TableOrigin, std::size_t>> tablesHandedTo_;      // TableUses::tablesHandedTo, of every prototype
  void doubtHandedStores();
  bool reparentsHandedTable(const bytecode::Prototype& proto, const bytecode::Instruction& ins, int first,
                            const Value& metatable, const TableUses& tables) const;
  std::set<TableOrigin> passedTables_;               // TableUses::passedTables, of every prototype
  bool reclassesAnyObject_ = false;           // TableUses::reclassesAnyObject, of any prototype
  // Whether an object's method `key` may be a function stored into the
  // object itself, here or in another file (storedElsewhere_).
  bool storedOnObjects(std::string_view key) const;
  void addClassFacts(const TableUses& uses);
  std::optional<TableOrigin> classOf(TableOrigin metatable) const;
  Value lookup(TableOrigin table, std::string_view key, int depth) const;
  bool overridden(TableOrigin base, std::string_view key) const;
  bool reclassed(TableOrigin metatable) const;
  bool overriddenElsewhere(TableOrigin cls, std::string_view key) const;
  // The table the main function returns, when it is one from a constructor.
  std::optional<TableOrigin> moduleTable() const;
  Value receiverOf(std::size_t proto) const;
  // Per prototype, its parameters from its calls (BoundParameters; no
  // values for none). Set after the first passes, read by every later pass
  // of the prototype.
  std::vector<BoundParameters> parameters_;
  // A parameter whose binding a later round contradicted: never bound again
  // (any known value marks it), so the rounds cannot go back and forth.
  std::vector<std::vector<Value>> droppedParameters_;
  // Binds parameters after the first passes; again after the second round
  // (`afterReturns`), when calls pass the objects other functions return
  // (`scan(Chars.new(s))`), from the bindings found so far.
  void bindParameters(bool afterReturns);
  // A call whose callee is a Lua function of this file, by the value in the
  // callee's slot, or the function pcall/xpcall calls.
  struct LocalCall {
    std::size_t caller = 0;
    int pc = 0;
    std::size_t callee = 0;
    int firstArgument = 0;  // the call's argument that is the callee's first parameter (pcall: 1, xpcall: 2)
  };
  std::vector<LocalCall> callsOfLocalFunctions() const;
  std::vector<BoundParameters> parametersFromCalls(const std::vector<LocalCall>& calls, const std::vector<bool>& escapes,
                                                   bool withOwnCalls, const std::vector<std::vector<Value>>& dropped) const;
  bool within(std::size_t inner, std::size_t outer) const;
  // The registers a pass over `proto` starts with, from slot 0: `self` and the parameters.
  std::vector<Value> entryValues(std::size_t proto) const;
  void collectFields();
  void addFields(const TableUses& uses);
  // Per prototype, a bit for each of its first 64 parameters that no
  // instruction writes: the value a slot holds is what the caller passed.
  std::vector<std::uint64_t> keptParameters_;
  bool keptParameter(std::size_t proto, int slot) const {
    return slot >= 0 && slot < 64 && proto < keptParameters_.size() && ((keptParameters_[proto] >> slot) & 1U) != 0;
  }
  // Per prototype, the upvalues its code (or a nested closure's) assigns.
  std::vector<std::vector<bool>> assignedUpvalues_;
  bool assignsUpvalue(std::size_t proto, std::size_t index) const;
  bool capturedAndAssigned(std::size_t parent, int slot) const;
  mutable std::unique_ptr<CDeclarations> cDeclarations_;
  // Per C module, the clause of cModuleObjectEvidence (found on first use).
  mutable std::unique_ptr<std::map<std::string, std::string, std::less<>>> cModuleObjects_;
  void findCModuleObjects() const;
};

}  // namespace ljcheck::flow
