// FFI calls the recorder refuses (lj_crecord.c), reported at the calling
// line: ffi.typeof of a string (NYIFFU:ffi.typeof, recff_ffi_typeof takes
// cdata only); a ctype string that defines a new struct, union or enum given
// to ffi.new/cast/istype/sizeof/alignof/offsetof (BADTYPE, argv2ctype); a
// call through ffi.C or an ffi.load library to a function whose declaration
// in this file's ffi.cdef passes or returns a struct, union or complex by
// value (NYICALL, crec_call); ffi.new or a ctype call that initializes a
// variable-length array/struct or a type over 128 bytes (NYICONV, crec_alloc);
// ffi.new of a ctype with one initializer that is a table (BADTYPE: crec_alloc
// initializes from a single value through crec_ct_tv, which converts only
// cdata, numbers, strings and pointers; a table falls to argv2cdata); a
// ctype whose `__new` metamethod does that, called (ctype_constructors.cpp).
#include <algorithm>

#include "flow/c_declarations.h"
#include "rules/ctype_constructors.h"
#include "flow/instruction_effects.h"
#include "rules/prediction_sink.h"
#include "rules/rule.h"
#include "rules/split_finding.h"

namespace ljcheck::rules {
namespace {

using bytecode::Op;
using flow::CPass;
using flow::Value;
using Kind = flow::Value::Kind;

constexpr std::size_t kMaxInitializedSize = 128;  // lj_crecord.c: crec_alloc

bool takesCType(std::string_view ff) {
  return ff == "ffi.new" || ff == "ffi.cast" || ff == "ffi.istype" || ff == "ffi.sizeof" || ff == "ffi.alignof" ||
         ff == "ffi.offsetof";
}

Finding abortAt(int pc, ReasonId reasonId, std::string callee, std::string message, std::string reasoning) {
  Finding f;
  f.pc = pc;
  f.reasonId = std::move(reasonId);
  f.construct = "call";
  f.callee = std::move(callee);
  f.message = std::move(message);
  f.reasoning = std::move(reasoning);
  f.aborts = true;
  return f;
}

// An allocation of `ctype` with `sizeArgs` arguments after the ctype: for a
// variable-length type the first is the length, the rest initialize.
std::string allocationRefusal(const flow::CType& type, int args, const std::string& spelling) {
  if (type.variableLength && args >= 2)
    return "the ctype \"" + spelling + "\" has a variable length, and the recorder cannot initialize one";
  if (!type.variableLength && type.size > kMaxInitializedSize && args >= 1)
    return "the ctype \"" + spelling + "\" takes " + std::to_string(type.size) +
           " bytes, and the recorder initializes only types up to 128 bytes";
  return {};
}

// A clause of evidence ahead of the reasoning ("...; "), or nothing.
std::string evidenceOf(const std::string& clause) { return clause.empty() ? clause : clause + "; "; }

// Why the declared signature cannot be called from a trace; empty if it can.
std::string signatureRefusal(const flow::CFunction& f) {
  auto byValue = [](const flow::CType& t) { return t.pass == CPass::Aggregate || t.pass == CPass::Complex; };
  if (byValue(f.result))
    return f.name + " returns " + f.result.spelling + " by value (declared in this file's ffi.cdef)";
  for (std::size_t i = 0; i < f.params.size(); ++i)
    if (byValue(f.params[i]))
      return f.name + " takes " + f.params[i].spelling + " by value as argument " + std::to_string(i + 1) +
             " (declared in this file's ffi.cdef)";
  return {};
}

// Reports what a rule finds at a tail call of the function `fn` views at
// each call of that function that is no tail call itself: where the abort
// lands, the frame of the tail call gone.
class TailCallLandingSink final : public PredictionSink {
 public:
  TailCallLandingSink(const FunctionView& fn, int pc, PredictionSink& to) : fn_(fn), pc_(pc), to_(to) {}
  void report(const FunctionView& fn, Finding finding) override {
    const std::string tail = functionName(fn_, fn_.index) + " tail-calls it at line " +
                             std::to_string(fn_.proto.at(pc_).line) +
                             ", and the tail call leaves no frame, so the abort lands at this call";
    for (const auto& [site, called] : tailCallLandings(fn_, fn_.index)) {
      if (site.protectedCall || !fn_.calls.runsHot(site.proto, site.pc)) continue;
      // Only a call of the Lua function itself: a ctype's call that runs its
      // `__new` is judged as such (ctype_constructors.h).
      if (!calleeAt(fn_.of(site.proto), site.pc).is(Kind::LuaFunction)) continue;
      Finding f = finding;
      f.proto = site.proto;
      f.pc = site.pc;
      f.reasoning = finding.reasoning + "; " + tail +
                    (called == fn_.index ? std::string() : " (through " + functionName(fn_, called) + ")");
      // Behind a branch of the function that can go around the tail call,
      // whether the calls reach it the data decides.
      if (!fn_.calls.onEveryCall(fn_.index, pc_)) {
        f.confidence = std::min(f.confidence, Confidence::Likely);
        f.most = std::min(f.most, Confidence::Likely);
      }
      to_.report(fn, std::move(f));
    }
  }

 private:
  const FunctionView& fn_;
  int pc_;
  PredictionSink& to_;
};

class FfiCallRule final : public Rule {
 public:
  std::string_view name() const override { return "ffi-calls"; }
  std::vector<ReasonId> reasons(const RecorderProfile&) const override {
    return {ReasonId::refusedFastFunction("ffi.typeof"), ReasonId::traceError("BADTYPE"),
            ReasonId::traceError("NYICONV"), ReasonId::traceError("NYICALL")};
  }

  void check(const FunctionView& fn, PredictionSink& sink) const override {
    for (int pc = 1; pc <= fn.proto.size(); ++pc) {
      const auto& ins = fn.proto.at(pc);
      const bool tail = ins.op == Op::CALLT || ins.op == Op::CALLMT;
      if (ins.op != Op::CALL && ins.op != Op::CALLM && !tail) continue;
      Value callee = calleeAt(fn, pc);
      // A tail call leaves no frame: the abort lands at each call of this
      // function (audit 75: `return ffi.new("uint8_t[?]", n, 0)`, `-jv`
      // at the calling line).
      TailCallLandingSink landing(fn, pc, sink);
      PredictionSink& to = tail ? static_cast<PredictionSink&>(landing) : sink;
      // A ctype with a `__new` metamethod is not allocated by its call: the
      // metamethod runs instead.
      if (!tail && checkConstructorCall(fn, pc, callee, sink)) continue;
      if (!callee.is(Kind::LibFunction) && !callee.is(Kind::FfiSymbol) && !callee.is(Kind::CType)) continue;
      if (callee.is(Kind::LibFunction) && callee.name.substr(0, 4) != "ffi.") continue;  // checkLibrary's are all ffi.*
      if (!runsHot(fn, pc)) continue;
      if (callee.is(Kind::FfiSymbol)) checkCCall(fn, pc, callee, to);
      else if (callee.is(Kind::CType)) checkCtypeCall(fn, pc, callee, to);
      else checkLibrary(fn, pc, callee.name, to);
    }
  }

 private:
  static void checkLibrary(const FunctionView& fn, int pc, std::string_view ff, PredictionSink& sink) {
    int args = flow::fixedArgs(fn.proto.at(pc));
    if (args < 1) return;
    Value ctype = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0));
    std::string callee(ff);
    // In a `__new` metamethod, the first parameter is the ctype being made.
    std::string origin;
    if (!ctype.known())
      if (const auto* c = flow::constructedType(fn.chunk, fn.constructors.own, fn.index, pc, argumentSlot(fn, pc, 0))) {
        ctype = Value::of(Kind::CType, c->spelling);
        origin = "this function is the `__new` metamethod that the ffi.metatype call at line " +
                 std::to_string(c->metatypeLine) + " gives its ctype, so its first parameter is that ctype; ";
      }
    if (ff == "ffi.typeof") {
      if (!ctype.is(Kind::String)) return;
      sink.report(fn, abortAt(pc, ReasonId::refusedFastFunction("ffi.typeof"), callee,
                              "ffi.typeof of a string is not compiled: the trace aborts (NYIFFU)",
                              "the argument is a string, and the recorder compiles ffi.typeof only of cdata; " +
                                  whyHot(fn, pc)));
      return;
    }
    if (!takesCType(ff)) return;
    if (origin.empty()) origin = evidenceOf(boundParameterWhy(fn, pc, argumentSlot(fn, pc, 0)));
    if (ctype.isConstantString() && flow::definesNewType(ctype.text())) {
      sink.report(fn, abortAt(pc, ReasonId::traceError("BADTYPE"), callee,
                              callee + " with a ctype string that defines a new type is not compiled (BADTYPE)",
                              "the ctype \"" + std::string(ctype.text()) +
                                  "\" declares a struct, union or enum, and the recorder refuses to parse new "
                                  "type definitions; " + whyHot(fn, pc)));
      return;
    }
    // Exactly one initializer: CALLM passes more after the fixed ones.
    bool oneInitializer = args == 2 && (fn.proto.at(pc).op == Op::CALL || fn.proto.at(pc).op == Op::CALLT);
    if (ff == "ffi.new" && oneInitializer && fn.values.at(fn.index, pc, argumentSlot(fn, pc, 1)).is(Kind::Table)) {
      reportTableInitializer(fn, pc, ctype, origin, "ffi.new", sink);
      return;
    }
    if (ff == "ffi.new") {
      if (ctype.isConstantString()) checkAllocation(fn, pc, ctype.text(), args - 1, callee, sink);
      else if (ctype.is(Kind::CType)) checkAllocation(fn, pc, ctype.name, args - 1, callee, sink, origin);
    }
  }

  // ffi.new(ct, {...}): a known ctype of at most 128 bytes aborts with BADTYPE
  // (crec_ct_tv: argv2cdata of the table); a larger or variable-length one with
  // NYICONV (checkAllocation). A ctype the file cannot resolve aborts with one
  // of the two, so BADTYPE is only possible there.
  // `callee`: "ffi.new", or "ctype call" for ct({...}) (recff_cdata_call allocates through crec_alloc too).
  static void reportTableInitializer(const FunctionView& fn, int pc, const Value& ctype, const std::string& origin,
                                     const std::string& callee, PredictionSink& sink) {
    bool known = ctype.isConstantString() || ctype.is(Kind::CType);
    if (known && !allocationRefusal(fn.values.cDeclarations().typeOf(ctype.name), 1, std::string(ctype.name)).empty()) {
      checkAllocation(fn, pc, ctype.name, 1, callee, sink, origin);
      return;
    }
    std::string what = known ? "the initializer of the ctype \"" + std::string(ctype.name) + "\" is a table"
                             : "the initializer is a table (the ctype is not resolved in this file: a type over 128 "
                               "bytes or of variable length would abort with NYICONV instead)";
    Finding f = abortAt(pc, ReasonId::traceError("BADTYPE"), callee,
                        callee == "ffi.new" ? "ffi.new with a table initializer is not compiled (BADTYPE)"
                                            : "a ctype called with a table initializer is not compiled (BADTYPE)",
                        origin + what +
                            ", and the recorder converts only cdata, numbers, strings and pointers into C data; " +
                            whyHot(fn, pc));
    if (!known) f.confidence = Confidence::Possible;
    if (known && callee != "ffi.new") {
      // A call of a ctype runs its `__new` metamethod instead, when one is set.
      f.confidence = std::min(f.confidence, Confidence::Likely);
      f.reasoning += "; no ffi.metatype in this file gives the ctype a __new metamethod, which the call would run "
                     "instead (one in another file is not seen)";
    }
    sink.report(fn, std::move(f));
  }

  // `origin`: how the analyzer knows the ctype, when the call does not spell it.
  static void checkAllocation(const FunctionView& fn, int pc, std::string_view spelling, int args,
                              const std::string& callee, PredictionSink& sink, const std::string& origin = {}) {
    flow::CType type = fn.values.cDeclarations().typeOf(spelling);
    std::string why = allocationRefusal(type, args, std::string(spelling));
    if (why.empty()) return;
    sink.report(fn, abortAt(pc, ReasonId::traceError("NYICONV"), callee,
                            "this cdata initializer is not compiled: the trace aborts (NYICONV)",
                            origin + why + "; " + whyHot(fn, pc)));
  }

  // ct(...) of a ctype without a `__new` metamethod allocates as ffi.new(ct, ...) does.
  static void checkCtypeCall(const FunctionView& fn, int pc, const Value& ctype, PredictionSink& sink) {
    const auto& ins = fn.proto.at(pc);
    const std::string origin = evidenceOf(boundParameterWhy(fn, pc, flow::calleeSlot(ins)));
    const bool oneInitializer = flow::fixedArgs(ins) == 1 && (ins.op == Op::CALL || ins.op == Op::CALLT);
    if (oneInitializer && fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0)).is(Kind::Table))
      reportTableInitializer(fn, pc, ctype, origin, "ctype call", sink);
    else
      checkAllocation(fn, pc, ctype.name, flow::fixedArgs(ins), "ctype call", sink, origin);
  }

  static void checkCCall(const FunctionView& fn, int pc, const Value& symbol, PredictionSink& sink) {
    const flow::CFunction* decl = fn.values.cDeclarations().function(symbol.name);
    if (!decl) return;
    std::string why = signatureRefusal(*decl);
    if (why.empty()) return;
    sink.report(fn, abortAt(pc, ReasonId::traceError("NYICALL"), std::string(symbol.name),
                            "call to C function " + std::string(symbol.name) +
                                " is not compiled: it passes a struct, union or complex by value (NYICALL)",
                            evidenceOf(boundParameterWhy(fn, pc, flow::calleeSlot(fn.proto.at(pc)))) + why +
                                ", which the recorder cannot call; " + whyHot(fn, pc)));
  }
};

}  // namespace

std::unique_ptr<Rule> makeFfiCallRule() { return std::make_unique<FfiCallRule>(); }

}  // namespace ljcheck::rules
