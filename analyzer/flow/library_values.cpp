// What library functions and indexed reads yield, for the value tracker
// (values.h): library members and string methods, FFI namespaces, symbols
// and ctypes, and the types of what library calls return.
#include <unordered_set>

#include "flow/instruction_effects.h"
#include "flow/module_member.h"
#include "flow/values.h"

namespace ljcheck::flow {

using bytecode::Instruction;
using Kind = Value::Kind;

namespace {

// Fast functions whose first result is always a string or a number.
bool returnsString(std::string_view ff) {
  static const std::unordered_set<std::string_view> names = {
      "string.format", "string.sub",  "string.rep",   "string.lower", "string.upper", "string.reverse",
      "string.char",   "string.gsub", "string.dump",  "table.concat", "tostring",     "ffi.string",
      "type",          "bit.tohex",   "os.date"};
  return names.count(ff) > 0;
}


// The string buffer methods that return the buffer (lib_buffer.c).
bool returnsItsBuffer(std::string_view ff) {
  static const std::unordered_set<std::string_view> names = {
      "buffer.method.reset", "buffer.method.skip", "buffer.method.set",    "buffer.method.put",
      "buffer.method.putf",  "buffer.method.putcdata", "buffer.method.commit", "buffer.method.encode"};
  return names.count(ff) > 0;
}

bool returnsNumber(std::string_view ff) {
  if (ff.substr(0, 5) == "math." && ff != "math.randomseed") return true;
  if (ff.substr(0, 4) == "bit." && ff != "bit.tohex") return true;
  static const std::unordered_set<std::string_view> names = {"os.time", "os.clock", "os.difftime", "ffi.sizeof",
                                                             "ffi.alignof", "ffi.errno", "gcinfo"};
  return names.count(ff) > 0;
}

}  // namespace

bool onlyStringsHave(std::string_view key) {
  return key == "gmatch" || key == "gsub" || key == "byte" || key == "upper" || key == "lower" || key == "reverse" ||
         key == "rep";
}

bool keepsNoTable(std::string_view ff) {
  static const std::unordered_set<std::string_view> names = {
      "tostring", "type",     "pairs",        "ipairs",       "next",   "rawget", "rawequal",
      "select",   "unpack",   "table.concat", "table.sort",   "assert", "print",  "string.format",
      "io.write", "tonumber", "table.remove", "table.insert", "table.maxn"};
  return names.count(ff) > 0;
}


namespace {

bool profileKnows(const RecorderProfile& profile, const std::string& name) {
  return profile.cFunctions.count(name) || profile.fastFunction(name) || profile.isLibraryTable(name);
}

}  // namespace

// Classifies a dotted library name against the profile's fast functions.
// A name the profile does not know may be an alias of a builtin (`std`,
// `globals`): it resolves as that builtin, under the builtin's own name.
// One step only, to a name the profile knows: aliases cannot loop.
// The library table `require(name)` returns, by the name the profile
// knows it under, or empty: LuaJIT registers its string buffers as
// "string.buffer" (lib_buffer.c), and a module named "buffer" is a file
// of the project (audit 72: Buffer.new of a local buffer.lua was taken for
// the library's buffer.new). The tables of methods are no module at all.
std::string_view requiredLibrary(std::string_view name) {
  if (name == "string.buffer") return "buffer";
  if (name.substr(0, name.find('.')) == "buffer") return {};
  static constexpr std::string_view kMethodTables[] = {"io.method", "ffi.meta", "ffi.clib", "ffi.callback", "jit.opt"};
  for (std::string_view table : kMethodTables)
    if (name == table) return {};
  return name;
}

// Whether a global of that name is the library the profile names so: not
// the string buffers ("buffer"), which only require("string.buffer")
// returns, nor OpenResty's "thread" (require("thread.exdata")).
bool globalLibrary(std::string_view name) { return name != "buffer" && name != "thread"; }

Value ValueMap::library(std::string_view name) {
  auto cached = libraryCache_.find(name);
  if (cached != libraryCache_.end()) return cached->second;
  std::string_view key = intern(std::string(name));
  std::string builtin(name);
  if (aliases_ && !aliases_->empty() && !profileKnows(profile_, builtin))
    if (auto alias = aliases_->find(builtin); alias != aliases_->end() && profileKnows(profile_, alias->second))
      builtin = alias->second;
  Value v;
  if (profile_.cFunctions.count(builtin)) {
    v = Value::of(Kind::CFunction, intern(builtin));
  } else if (profile_.fastFunction(builtin)) {
    v = Value::of(Kind::LibFunction, intern(builtin));
  } else if (profile_.isLibraryTable(builtin)) {
    v = Value::of(Kind::LibTable, intern(builtin));
  }
  libraryCache_.emplace(key, v);
  return v;
}

// What a library function that returns a function returns: an ffname, or
// "C" for a plain C function.
Value ValueMap::returnedFunction(std::string_view callee) {
  auto it = profile_.returnsFunction.find(std::string(callee));
  if (it == profile_.returnsFunction.end()) return {};
  // A plain C function (io.lines' iterator): named for what made it, as the
  // findings show it ("call to the iterator of io.lines").
  if (it->second == "C") {
    std::string maker(callee);
    if (maker.rfind("io.method.", 0) == 0) maker = "file:" + maker.substr(10);  // f:lines()
    return Value::of(Kind::CFunction, intern("the iterator of " + maker));
  }
  return library(it->second);
}

// Tables and functions an indexed read yields: library members (or a
// missing member), string methods, FFI namespaces and their symbols.
Value ValueMap::indexResult(const Value& base, const std::string& key) {
  switch (base.kind) {
    case Kind::LibTable: {
      if (base.name == "ffi" && key == "C") return Value::of(Kind::FfiLibrary, "C");
      // A string buffer's tostring method is its __tostring (lib_buffer.c
      // copies the one into the other).
      if (base.name == "buffer.method" && key == "tostring") return library("buffer.method.__tostring");
      std::string name = std::string(base.name) + "." + key;
      Value member = library(name);
      return member.known() ? member : Value::missingMember(intern(std::move(name)));
    }
    case Kind::String:
      return base.takenByName() ? Value::takenByName(library("string." + key)) : library("string." + key);
    case Kind::Unknown: case Kind::Method:
      // A field of a table of this file read through another field
      // (`types.t.point` with `local t = types.t` captured by a closure):
      // the inner table, once the file's stores name it.
      if (base.kind == Kind::Method && !base.reassignable)
        if (Value inner = resolveMethod(base); inner.is(Kind::Table) && inner.pc != 0) return indexResult(inner, key);
      // On a value of unknown type (text:gmatch(...)) or a field of an
      // object the file does not resolve (self.name:gsub(...)).
      if (!base.reassignable && onlyStringsHave(key)) return Value::takenByName(library("string." + key));
      return {};
    case Kind::FfiLibrary:
      return Value::of(Kind::FfiSymbol, intern(key));
    case Kind::Module:
      return Value::of(Kind::ModuleMember, intern(std::string(base.name) + ":" + key));
    case Kind::ModuleMember:
      // A field of a table the module exports (require("som").Vector.new):
      // one level, as its file exports it (ValueMap::indirectExports).
      if (base.reassignable || ModuleMemberName::parse(base.name).member.find_first_of("(.") != std::string_view::npos)
        return {};
      return Value::of(Kind::ModuleMember, intern(std::string(base.name) + "." + key));
    case Kind::ModuleResult:
      // obj:m() on what M.f() returned: a method its module may export, or
      // a string method when the result is a string, unless its module
      // defines that method in Lua (audit 60: Matcher.new()'s gsub).
      if (!base.reassignable && onlyStringsHave(key) &&
          !(luaMethods_ && luaMethods_->count(std::string(base.name) + ":" + key)))
        return Value::takenByName(library("string." + key));
      return Value::of(Kind::ModuleMember, intern(std::string(base.name) + ":" + key));
    case Kind::CModule:
      // luaopen_* fills a C module's table with C functions.
      return Value::ofCModule(Kind::CModuleFunction, base.name, intern(std::string(base.name) + "." + key));
    case Kind::CModuleResult: {
      // obj:method() on what a C function returned (a pattern of lpeg.P,
      // a directory object of lfs.dir): a userdata whose metatable C code
      // filled with C functions, or a table of data where a call is rare.
      Value v = Value::ofCModule(Kind::CModuleFunction, base.cModuleName(),
                                 intern(std::string(base.name) + ":" + key));
      v.pc = 1;
      return v;
    }
    case Kind::Table: {
      // A field no store has been seen for yet (the file's stores are
      // collected prototype by prototype) is looked up when queried.
      Value known = field(base, key);
      if (known.kind != Kind::Unknown || base.pc == 0 || fields_.count({{base.proto, base.pc}, key})) return known;
      return Value::method(base, intern(key));
    }
    case Kind::Instance: case Kind::Receiver:
      return Value::method(base, intern(key));
    default:
      return {};
  }
}

// A 64-bit integer or a pointer read from C data comes back boxed, as a
// cdata; a smaller integer, a float or a double as a number (lj_cdata_get;
// audit 91: `tostring(ids[i])` of a `uint64_t[?]` stitches around
// ffi.meta.__tostring on both builds). One dimension, builtin types only:
// an element that is a struct is a reference the tracker does not follow.
Value ValueMap::elementOf(const Value& cdata) {
  if (!cdata.is(Kind::CData) || cdata.name.empty()) return {};
  auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    if (s.substr(0, 6) == "const ") s.remove_prefix(6);
    return s;
  };
  std::string_view type = trim(cdata.name), element;
  if (type.empty()) return {};
  if (type.back() == ']') {
    const std::size_t open = type.find('[');
    if (open == std::string_view::npos || type.find(']') != type.size() - 1) return {};  // one dimension
    element = trim(type.substr(0, open));
  } else if (type.back() == '*') {
    element = trim(type.substr(0, type.size() - 1));
  } else {
    return {};
  }
  if (element.empty()) return {};
  if (element.back() == '*') return Value::of(Kind::CData, intern(std::string(element)));
  static constexpr std::string_view kBoxed[] = {"int64_t", "uint64_t", "long long", "unsigned long long",
                                                "size_t", "ssize_t", "intptr_t", "uintptr_t", "ptrdiff_t",
                                                "long", "unsigned long"};
  static constexpr std::string_view kNumbers[] = {"double", "float", "int", "unsigned int", "unsigned", "short",
                                                  "unsigned short", "char", "unsigned char", "signed char",
                                                  "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t"};
  for (std::string_view boxed : kBoxed)
    if (element == boxed) return Value::of(Kind::CData, intern(std::string(element)));
  for (std::string_view number : kNumbers)
    if (element == number) return Value::of(Kind::Number);
  return {};
}

// rawget(_G, "loadstring"), rawget(table, "unpack"): a library table
// has no metatable, so a raw read is the plain one; only library values
// of the globals table are known.
Value ValueMap::rawMember(const Value& table, std::string_view key) {
  if (table.is(Kind::LibTable)) return indexResult(table, std::string(key));
  if (table.is(Kind::Global) && table.name == "_G") return library(key);
  return {};
}

// What known callees return: functions from string.gmatch, io.lines,
// coroutine.wrap; the file methods of what io.open returns; strings and
// numbers from library functions; FFI namespaces and ctypes; what a Lua
// function of this file always returns; a standard library table from
// require; library members through rawget; C modules from require, and what
// their functions return.
Value ValueMap::callResult(const Instruction& ins, const Registers& regs) {
  auto reg = [&](int s) -> Value {
    if (s < 0 || static_cast<std::size_t>(s) >= regs.size()) return {};
    const Value& v = regs[static_cast<std::size_t>(s)];
    return v.reassignable ? Value{} : v;
  };
  Value callee = reg(ins.a);
  Value arg0 = fixedArgs(ins) >= 1 ? reg(argumentSlot(chunk_, ins, 0)) : Value{};
  Value arg1 = fixedArgs(ins) >= 2 ? reg(argumentSlot(chunk_, ins, 1)) : Value{};
  switch (callee.kind) {
    case Kind::LibFunction: {
      if (callee.name == "rawget" && arg1.isConstantString()) return rawMember(arg0, arg1.text());
      if (callee.name == "setmetatable") return objectOf(arg0, arg1);
      // assert(v, ...) returns v when it returns (local f = assert(io.open(path))):
      // with CALLM and no fixed argument, v is the first result of the call before.
      if (callee.name == "assert")
        return fixedArgs(ins) >= 1 || ins.op != bytecode::Op::CALLM ? arg0 : reg(argumentSlot(chunk_, ins, 0));
      Value fn = returnedFunction(callee.name);
      if (fn.known()) return fn;
      if (callee.name == "ffi.load")
        return Value::of(Kind::FfiLibrary, arg0.isConstantString() ? arg0.text() : std::string_view("?"));
      if (callee.name == "ffi.typeof" || callee.name == "ffi.metatype") {
        if (arg0.isConstantString()) return Value::of(Kind::CType, arg0.text());
        if (arg0.is(Kind::CType)) return arg0;
        return {};
      }
      // C data, of the ctype the call spells when it does; ffi.gc returns
      // the cdata it is given.
      if (callee.name == "ffi.new" || callee.name == "ffi.cast")
        return Value::of(Kind::CData, arg0.isConstantString() || arg0.is(Kind::CType) ? arg0.name : std::string_view());
      if (callee.name == "ffi.gc" && arg0.is(Kind::CData)) return arg0;
      // A string buffer: its methods are the buffer.method.* fast
      // functions; those that write into it return it, for chains.
      if (callee.name == "buffer.new" || returnsItsBuffer(callee.name)) {
        Value methods = library("buffer.method");
        if (methods.is(Kind::LibTable)) return methods;
      }
      // A file (or nil): its methods are the io.method.* fast functions.
      if (callee.name == "io.open" || callee.name == "io.popen" || callee.name == "io.tmpfile") {
        Value methods = library("io.method");
        if (methods.is(Kind::LibTable)) return methods;
      }
      if (returnsString(callee.name))
        return callee.takenByName() ? Value::takenByName(Value::of(Kind::String)) : Value::of(Kind::String);
      if (returnsNumber(callee.name)) return Value::of(Kind::Number);
      return {};
    }
    case Kind::LuaFunction:
      return callee.proto < protos_.size() ? protos_[callee.proto].returns : Value{};
    case Kind::CType:  // allocates one, or calls its `__new`, which makes one as a rule
      return Value::of(Kind::CData, callee.name);
    case Kind::ModuleMember:
      // A library function M.f returns, as its file says (a gmatch or
      // coroutine.wrap iterator); else an object M.f() returns, whose
      // methods are looked up in M's file (ValueMap::indirectExports). One
      // level: obj:m() returns Unknown.
      if (callee.name.find('(') != std::string_view::npos) return {};
      if (importedReturns_)
        if (auto it = importedReturns_->find(callee.name); it != importedReturns_->end())
          if (Value fn = library(it->second); fn.is(Kind::LibFunction)) return fn;
      return Value::of(Kind::ModuleResult, intern(std::string(callee.name) + "()"));
    case Kind::Method: {
      Value f = resolveMethod(callee);
      return f.is(Kind::LuaFunction) && f.proto < protos_.size() ? protos_[f.proto].returns : Value{};
    }
    case Kind::CFunction:
      if (callee.name == "require" && arg0.isConstantString()) {
        Value lib = library(requiredLibrary(arg0.text()));
        if (lib.known()) return lib;
        std::string_view name = intern(std::string(arg0.text()));
        if (cModules_ && cModules_->evidence(name)) return Value::ofCModule(Kind::CModule, name, name);
        return Value::of(Kind::Module, name);
      }
      return {};
    case Kind::CModuleFunction: {
      // A C function returns no Lua function it did not get: what it
      // returns is C data, a C closure, or Lua data (cjson.decode).
      return cModuleResult(callee);
    }
    default:
      return {};
  }
}

// ok, v = pcall(f, ...): v is what f returns, for the functions whose
// results the tracker knows without their arguments (this file's Lua
// functions, C module functions: pcall(lfs.dir, path)).
Value ValueMap::protectedResult(const Instruction& ins, const Registers& regs) {
  auto reg = [&](int s) -> Value {
    if (s < 0 || static_cast<std::size_t>(s) >= regs.size()) return {};
    const Value& v = regs[static_cast<std::size_t>(s)];
    return v.reassignable ? Value{} : v;
  };
  Value callee = reg(ins.a);
  if (!callee.is(Kind::LibFunction) || callee.name != "pcall" || fixedArgs(ins) < 1) return {};
  Value f = reg(argumentSlot(chunk_, ins, 0));
  if (f.is(Kind::LuaFunction)) return f.proto < protos_.size() ? protos_[f.proto].returns : Value{};
  return cModuleResult(f);
}

}  // namespace ljcheck::flow
