// BADTYPE at the call of a ctype whose `__new` metamethod (ffi.metatype)
// returns ffi.new(ct, <table>): calling such a ctype does not allocate, the
// recorder tail-calls the metamethod (lj_crecord.c recff_cdata_call ->
// crec_tailcall), and a tail call to ffi.new with a table as the only
// initializer aborts in crec_ct_tv (argv2cdata of the table). Neither tail
// call leaves a Lua frame, so the abort lands on the line that called the
// ctype. The ctype may be this file's, one another project file's module
// table exports (require("types").point), or one a helper registered by
// name in a table of this file (t.point after addtype(types, "point", ...)).
#include "rules/ctype_constructors.h"

#include "flow/ctype_registrars.h"
#include "flow/instruction_effects.h"
#include "flow/module_member.h"
#include "rules/split_finding.h"

namespace ljcheck::rules {
namespace {

using flow::CtypeConstructor;
using flow::NewInitializer;
using Kind = flow::Value::Kind;

const CtypeConstructor* constructorOf(const FunctionView& fn, int pc, const flow::Value& callee) {
  // A name a helper registered in a table of this file, read from that table.
  if (!callee.known())
    return flow::registeredConstructorCalled(fn.values, fn.constructors.own, fn.index, pc,
                                             flow::calleeSlot(fn.proto.at(pc)));
  if (callee.is(Kind::CType)) return flow::findConstructor(fn.constructors.own, callee.name);
  if (callee.is(Kind::ModuleMember)) {
    auto it = fn.constructors.imported.find(std::string(callee.name));
    if (it != fn.constructors.imported.end()) return &it->second;
  }
  return nullptr;
}

// "`types.point` is the ctype `struct point`, which types.lua:4 gives a
// `__new` metamethod; `__new` returns ffi.new(ct, {...}) at line 3 of
// types.lua in a tail call".
std::string evidence(const flow::Value& callee, const CtypeConstructor& c) {
  std::string where = c.definedIn.empty() ? "line " + std::to_string(c.metatypeLine)
                                          : c.definedIn + ":" + std::to_string(c.metatypeLine);
  std::string name = "this call calls";
  if (!c.registeredKey.empty() && !callee.known()) {
    name = "this call reads `" + c.registeredKey + "` from a table of this file, which holds";
    where = c.registeredBy + "; that ctype has a `__new` metamethod";
    std::string init = c.initializer == NewInitializer::Table ? "a table constructor" : "its first argument";
    return name + " the ctype `" + c.spelling + "`: " + where + ", which ends in a tail call of ffi.new at line " +
           std::to_string(c.initializerLine) + " with " + init + " as the only initializer";
  }
  if (callee.is(Kind::ModuleMember)) {  // "types:point"
    auto [module, member] = flow::ModuleMemberName::parse(callee.name);
    name = "`require(\"" + std::string(module) + "\")." + std::string(member) + "` is";
  }
  std::string init = c.initializer == NewInitializer::Table ? "a table constructor" : "its first argument";
  return name + " the ctype `" + c.spelling + "`, which " + where + " gives a `__new` metamethod; `__new` ends in " +
         "a tail call of ffi.new at line " + std::to_string(c.initializerLine) +
         (c.definedIn.empty() ? "" : " of " + c.definedIn) + " with " + init + " as the only initializer";
}

}  // namespace

bool checkConstructorCall(const FunctionView& fn, int pc, const flow::Value& callee, PredictionSink& sink) {
  const CtypeConstructor* c = constructorOf(fn, pc, callee);
  if (!c) return false;
  const auto& ins = fn.proto.at(pc);
  if (c->initializer == NewInitializer::None || !runsHot(fn, pc)) return true;
  Finding f;
  f.pc = pc;
  f.reasonId = ReasonId::traceError("BADTYPE");
  f.construct = "call";
  f.callee = std::string(callee.is(Kind::ModuleMember) ? callee.name : std::string_view(c->spelling));
  f.message = "this ctype's __new metamethod initializes it from a table: the trace aborts (BADTYPE)";
  f.aborts = true;
  std::string tail = "; the recorder converts only cdata, numbers, strings and pointers into C data, and " +
                     std::string("neither tail call leaves a Lua frame, so the trace aborts on this line; ") +
                     whyHot(fn, pc);
  if (c->initializer == NewInitializer::Table) {
    f.reasoning = evidence(callee, *c) + tail;
  } else {
    flow::Value arg = flow::fixedArgs(ins) >= 1 ? fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0)) : flow::Value{};
    if (arg.is(Kind::Table)) {
      f.reasoning = evidence(callee, *c) + ", which is a table here" + tail;
    } else if (!arg.known()) {
      f.confidence = Confidence::Possible;
      f.reasoning = evidence(callee, *c) + ", which may be a table here (the analyzer cannot tell)" + tail;
    } else {
      return true;
    }
  }
  // The name is looked up in a table a helper filled at run time, which
  // other code may have changed since: never more than likely.
  if (!c->registeredKey.empty() && f.confidence == Confidence::Certain) f.confidence = Confidence::Likely;
  sink.report(fn, std::move(f));
  return true;
}

}  // namespace ljcheck::rules
