// FFI calls the recorder refuses (lj_crecord.c), reported at the calling
// line: ffi.typeof of a string (NYIFFU:ffi.typeof, recff_ffi_typeof takes
// cdata only); a ctype string that defines a new struct, union or enum given
// to ffi.new/cast/istype/sizeof/alignof/offsetof (BADTYPE, argv2ctype); a
// call through ffi.C or an ffi.load library to a function whose declaration
// in this file's ffi.cdef passes or returns a struct, union or complex by
// value (NYICALL, crec_call); ffi.new or a ctype call that initializes a
// variable-length array/struct or a type over 128 bytes, an array of
// non-scalars or of more than 16 elements, or a struct with a member that is
// no number, pointer or enum (NYICONV, crec_alloc); ffi.new of a ctype with
// one initializer that is a table, or a string into an array (BADTYPE:
// crec_alloc initializes from a single value through crec_ct_tv, which
// converts only cdata, numbers and pointers, and strings into pointers; a
// table falls to argv2cdata); ffi.cast or ffi.new of a Lua function (a
// callback: BADTYPE); ffi.sizeof of a variable-length type (BADTYPE,
// recff_ffi_xof); a ctype whose `__new` metamethod initializes from a table,
// called (ctype_constructors.cpp); and another file's function that
// tail-calls one of these (refusedTailCall), at its calls.
#include <algorithm>

#include "flow/c_declarations.h"
#include "rules/ctype_constructors.h"
#include "flow/instruction_effects.h"
#include "flow/module_member.h"
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
constexpr std::size_t kMaxUnrolledElements = 16;  // lj_crecord.c: CREC_FILL_MAXUNROLL

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

// The arguments after the ctype of an allocation (ffi.new(ct, ...) or
// ct(...)): for a variable-length type the first is the length, the rest
// initialize.
struct Initializers {
  int count = 0;       // the fixed ones
  bool exact = true;   // false: a CALLM passes more after them
  Value first;         // the first, when there is one
};

// Why crec_alloc refuses to allocate and initialize `type` from `init`
// (lj_crecord.c), how sure, and the abort it raises; an empty `why` when it
// compiles the allocation. A single initializer that is no value (a table;
// a string, into an array: lj_cconv_multi_init) goes to crec_ct_tv, which
// converts numbers, cdata and pointers, and strings into pointers only; two
// or more, or one that is a number, nil or a boolean, initialize an array
// element by element (of numbers or pointers, at most 16 of them) and a
// struct member by member (numbers, pointers and enums only).
struct AllocationRefusal {
  std::string why;
  Confidence confidence = Confidence::Certain;
  std::string code = "NYICONV";
};

AllocationRefusal allocationRefusal(const flow::CType& type, const Initializers& init, const std::string& spelling) {
  const std::string ctype = "the ctype \"" + spelling + "\"";
  if (type.variableLength && init.count >= 2)
    return {ctype + " has a variable length, and the recorder cannot initialize one"};
  if (!type.variableLength && type.size > kMaxInitializedSize && init.count >= 1)
    return {ctype + " takes " + std::to_string(type.size) + " bytes, and the recorder initializes only types up to 128 bytes"};
  if (type.variableLength || type.size == 0 || init.count < 1) return {};
  const bool single = init.count == 1 && init.exact;
  const Value& v = init.first;
  const bool values = init.count >= 2 || (single && (v.is(Kind::Number) || v.is(Kind::Boolean) || v.is(Kind::Nil)));
  if (type.shape == flow::CShape::Array) {
    if (single && v.is(Kind::String))
      return {"the initializer of " + ctype + " is a string, and the recorder does not copy a string into an array",
              Confidence::Certain, "BADTYPE"};
    if (single && !v.known() && type.elementSize == 1)
      return {ctype + " is a byte array with one initializer whose type the bytecode does not show: a string (the usual "
                      "initializer of a byte buffer) or a table is not compiled into an array, only a number or a "
                      "cdata of the same type",
              Confidence::Likely, "BADTYPE"};
    const flow::CShape e = type.elementShape;
    if (values && (e == flow::CShape::Enum || e == flow::CShape::Array || e == flow::CShape::Record))
      return {ctype + " is an array of " + (e == flow::CShape::Enum ? "enums" : e == flow::CShape::Array ? "arrays"
                                                                                                      : "structs") +
              ", and the recorder initializes only arrays of numbers or pointers"};
    if (values && type.elementSize > 0 && type.elementSize * kMaxUnrolledElements < type.size)
      return {ctype + " has " + std::to_string(type.size / type.elementSize) +
              " elements, and the recorder initializes arrays of at most 16 elements (larger ones it only zero-fills)"};
  }
  if (type.shape == flow::CShape::Record && !type.isUnion && type.membersKnown && !type.uninitializableMember.empty() &&
      (values || (single && v.is(Kind::String))))
    return {ctype + " has the member " + type.uninitializableMember +
            ", and the recorder initializes only members that are numbers, pointers or enums"};
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
      if (callee.is(Kind::ModuleMember)) {
        if (!tail && runsHot(fn, pc)) checkImportedTailCall(fn, pc, callee, sink);
        continue;
      }
      if (!runsHot(fn, pc)) continue;
      checkCall(fn, pc, callee, to);
    }
  }

  // The checks of the call at pc of `callee`, whatever its heat.
  static void checkCall(const FunctionView& fn, int pc, const Value& callee, PredictionSink& sink) {
    if (callee.is(Kind::FfiSymbol)) checkCCall(fn, pc, callee, sink);
    else if (callee.is(Kind::CType)) checkCtypeCall(fn, pc, callee, sink);
    else if (callee.is(Kind::LibFunction) && callee.name.substr(0, 4) == "ffi.") checkLibrary(fn, pc, callee.name, sink);
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
    // The size of a variable-length type, or of a cdata of one: the
    // recorder takes sizes of fixed-size types only (recff_ffi_xof; audit
    // 91: `ffi.sizeof(buf)` of a `uint8_t[?]`, `-jv` "bad argument type" 11
    // times on both builds).
    if (ff == "ffi.sizeof" && (ctype.isConstantString() || ctype.is(Kind::CType) || ctype.is(Kind::CData)) &&
        !ctype.name.empty() && fn.values.cDeclarations().typeOf(ctype.name).variableLength) {
      const std::string spelling(ctype.name);
      sink.report(fn, abortAt(pc, ReasonId::traceError("BADTYPE"), callee,
                              "ffi.sizeof of a variable-length type is not compiled (BADTYPE)",
                              origin + (ctype.is(Kind::CData) ? "the argument is a cdata of the ctype \"" + spelling + "\""
                                                              : "the ctype \"" + spelling + "\"") +
                                  ", which has a variable length, and the recorder takes the size of fixed-size "
                                  "types only; " +
                                  whyHot(fn, pc)));
      return;
    }
    // A Lua function to convert: a callback, which the recorder does not
    // make (crec_ct_tv takes it to argv2cdata; audit 91: `ffi.cast("tick_fn",
    // on_tick)` in a loop, `-jv` "bad argument type" 11 times on both builds).
    if ((ff == "ffi.cast" || ff == "ffi.new") && args == 2) {
      const Value value = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 1));
      if (value.is(Kind::LuaFunction) && !closureArgumentAbortsFirst(fn, pc)) {
        sink.report(fn, abortAt(pc, ReasonId::traceError("BADTYPE"), callee,
                                callee + " of a Lua function (a callback) is not compiled (BADTYPE)",
                                origin + "the value is the Lua function " + functionName(fn, value.proto) +
                                    ", and the recorder converts only cdata, numbers and pointers into C data (and "
                                    "strings into pointers): it does not make callbacks; " +
                                    whyHot(fn, pc)));
        return;
      }
    }
    // Exactly one initializer: CALLM passes more after the fixed ones.
    const bool oneInitializer = args == 2 && isExact(fn, pc);
    if (ff == "ffi.new" && oneInitializer && fn.values.at(fn.index, pc, argumentSlot(fn, pc, 1)).is(Kind::Table)) {
      reportTableInitializer(fn, pc, ctype, origin, "ffi.new", sink);
      return;
    }
    if (ff == "ffi.new") {
      const Initializers init{args - 1, isExact(fn, pc),
                              args >= 2 ? fn.values.at(fn.index, pc, argumentSlot(fn, pc, 1)) : Value{}};
      if (ctype.isConstantString()) checkAllocation(fn, pc, ctype.text(), init, callee, sink);
      else if (ctype.is(Kind::CType)) checkAllocation(fn, pc, ctype.name, init, callee, sink, origin);
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
    const Initializers table{1, true, Value::of(Kind::Table)};
    if (known &&
        !allocationRefusal(fn.values.cDeclarations().typeOf(ctype.name), table, std::string(ctype.name)).why.empty()) {
      checkAllocation(fn, pc, ctype.name, table, callee, sink, origin);
      return;
    }
    std::string what = known ? "the initializer of the ctype \"" + std::string(ctype.name) + "\" is a table"
                             : "the initializer is a table (the ctype is not resolved in this file: a type over 128 "
                               "bytes or of variable length would abort with NYICONV instead)";
    Finding f = abortAt(pc, ReasonId::traceError("BADTYPE"), callee,
                        callee == "ffi.new" ? "ffi.new with a table initializer is not compiled (BADTYPE)"
                                            : "a ctype called with a table initializer is not compiled (BADTYPE)",
                        origin + what +
                            ", and the recorder converts only cdata, numbers and pointers into C data (and strings "
                            "into pointers); " +
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
  static void checkAllocation(const FunctionView& fn, int pc, std::string_view spelling, const Initializers& init,
                              const std::string& callee, PredictionSink& sink, const std::string& origin = {}) {
    flow::CType type = fn.values.cDeclarations().typeOf(spelling);
    AllocationRefusal refusal = allocationRefusal(type, init, std::string(spelling));
    if (refusal.why.empty()) return;
    Finding f = abortAt(pc, ReasonId::traceError(refusal.code), callee,
                        "this cdata initializer is not compiled: the trace aborts (" + refusal.code + ")",
                        origin + refusal.why + "; " + whyHot(fn, pc));
    f.confidence = std::min(f.confidence, refusal.confidence);
    sink.report(fn, std::move(f));
  }

  // A call of another file's function whose tail call aborts every trace
  // (refusedTailCall): the tail call leaves no frame of that function, so
  // the abort lands here (audit 91: `bytes.zeroed(32)`, which returns
  // `ffi.new("uint8_t[?]", n, 0)`; `-jv` shows NYICONV at the calling line,
  // from the loop's start and the helper's entry, on both builds).
  static void checkImportedTailCall(const FunctionView& fn, int pc, const Value& callee, PredictionSink& sink) {
    if (!fn.tailCalls) return;
    auto it = fn.tailCalls->find(callee.name);
    if (it == fn.tailCalls->end() || it->second.abortCode.empty()) return;
    const flow::TailCalledBuiltin& via = it->second;
    Finding f = abortAt(pc, ReasonId::traceError(via.abortCode), via.builtin, via.abortMessage,
                        flow::ModuleMemberName::parse(callee.name).asWritten() + " tail-calls " + via.builtin +
                            " at line " + std::to_string(via.line) + " of " + via.definedIn + ", where " + via.abortWhy +
                            "; the tail call leaves no frame, so the abort lands at this call; " + whyHot(fn, pc));
    if (via.behindBranch) {
      f.confidence = Confidence::Likely;
      f.most = Confidence::Likely;
      f.reasoning += "; a branch of it can go around the tail call, so whether the hot calls get there the data decides";
    }
    sink.report(fn, std::move(f));
  }

  // The call at pc passes exactly its fixed arguments (not a CALLM).
  static bool isExact(const FunctionView& fn, int pc) {
    const Op op = fn.proto.at(pc).op;
    return op == Op::CALL || op == Op::CALLT;
  }

  // ct(...) of a ctype without a `__new` metamethod allocates as ffi.new(ct, ...) does.
  static void checkCtypeCall(const FunctionView& fn, int pc, const Value& ctype, PredictionSink& sink) {
    const auto& ins = fn.proto.at(pc);
    const std::string origin = evidenceOf(boundParameterWhy(fn, pc, flow::calleeSlot(ins)));
    const bool oneInitializer = flow::fixedArgs(ins) == 1 && isExact(fn, pc);
    const Value first = flow::fixedArgs(ins) >= 1 ? fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0)) : Value{};
    if (oneInitializer && first.is(Kind::Table))
      reportTableInitializer(fn, pc, ctype, origin, "ctype call", sink);
    else
      checkAllocation(fn, pc, ctype.name, {flow::fixedArgs(ins), isExact(fn, pc), first}, "ctype call", sink, origin);
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

// The first certain abort the checks find.
class CertainAbortSink final : public PredictionSink {
 public:
  void report(const FunctionView&, Finding finding) override {
    if (!found && finding.aborts && finding.confidence == Confidence::Certain) found = std::move(finding);
  }
  std::optional<Finding> found;
};

}  // namespace

std::unique_ptr<Rule> makeFfiCallRule() { return std::make_unique<FfiCallRule>(); }

bool refusedFfiCall(const FunctionView& fn, int pc) {
  CertainAbortSink sink;
  FfiCallRule::checkCall(fn, pc, calleeAt(fn, pc), sink);
  return sink.found.has_value();
}

std::optional<flow::TailCalledBuiltin> refusedTailCall(const FunctionView& fn) {
  for (int pc = 1; pc <= fn.proto.size(); ++pc) {
    const auto& ins = fn.proto.at(pc);
    if (ins.op != Op::CALLT && ins.op != Op::CALLMT) continue;
    const Value callee = calleeAt(fn, pc);
    if (!callee.is(Kind::LibFunction) && !callee.is(Kind::CType)) continue;
    CertainAbortSink sink;
    FfiCallRule::checkCall(fn, pc, callee, sink);
    if (!sink.found) continue;
    flow::TailCalledBuiltin out{callee.is(Kind::CType) ? "a call of the ctype " + std::string(callee.name)
                                                       : std::string(callee.name),
                                false, ins.line};
    out.behindBranch = !fn.calls.onEveryCall(fn.index, pc);
    out.abortCode = sink.found->reasonId.code();
    out.abortMessage = sink.found->message;
    // Its reasoning without the clause on its heat, which the calling file gives.
    std::string why = std::move(sink.found->reasoning);
    if (const std::string hot = "; " + whyHot(fn, pc); why.size() > hot.size() &&
                                                       why.compare(why.size() - hot.size(), hot.size(), hot) == 0)
      why.resize(why.size() - hot.size());
    out.abortWhy = std::move(why);
    return out;
  }
  return std::nullopt;
}

}  // namespace ljcheck::rules
