// Calls to fast functions that have a recorder, in a form the recorder
// refuses: it hands them to recff_nyi like an unrecorded function, so the
// trace splits (STITCH/RETURN with the same identity). From lj_ffrecord.c:
// table.insert with a position; select, tonumber and getfenv whose index,
// base or level is not the constant the recorder needs (select k, base 10,
// level 0) in the trace (but `select(i, ...)` in a loop of the vararg
// function itself is recorded, and so is an index computed from
// `select('#', ...)`, a constant in an inlined frame); string.find with a
// pattern that has special characters (and no plain flag, or a literal
// false one), or a pattern the bytecode does not show but a caller or the
// variable's name does (pattern_arguments.h); string.format
// whose %s/%q gets a known non-string, or with %p or an invalid specifier;
// tostring of a known table (without __tostring) or function; tonumber of
// a string whose result is tested for nil (a string that does not convert).
#include <algorithm>
#include <optional>

#include "flow/instruction_effects.h"
#include "flow/variables.h"
#include "rules/format_spec.h"
#include "rules/prediction_sink.h"
#include "rules/pattern_arguments.h"
#include "rules/rule.h"
#include "rules/split_finding.h"

namespace ljcheck::rules {
namespace {

using bytecode::Op;
using flow::Value;
using Kind = flow::Value::Kind;

// Why the recorder refuses a call form, and how sure that is; an empty
// `why` when it records the call.
struct Refusal {
  std::string why;
  Confidence confidence = Confidence::Certain;
  std::string reasoning;
};

std::string describe(const Value& v) {
  switch (v.kind) {
    case Kind::Number: return v.constant ? "a number constant" : "a number";
    case Kind::String: return v.constant ? "the constant \"" + std::string(v.text()) + "\"" : "a string";
    case Kind::Table: return "a table";
    case Kind::Instance: case Kind::Receiver: return "an object";
    case Kind::Nil: return "nil";
    case Kind::Boolean: return "a boolean";
    case Kind::LuaFunction: case Kind::LibFunction: case Kind::CFunction: return "a function";
    case Kind::CData: return v.name.empty() ? "a cdata" : "a cdata of the ctype \"" + std::string(v.name) + "\"";
    default: return "a value";
  }
}

// Whether the value in `slot` is a constant in the trace that records the
// call at pc: a literal loaded in the same loop body (or function body),
// an immutable upvalue holding one, or arithmetic on such constants is
// folded to a constant; a value from before the loop is loaded from the
// stack. So is `select('#', ...)` outside the function's own loops: a
// vararg function is never hot-counted, so that code runs on trace only in
// a frame entered on trace, where recff_select turns the count into
// lj_ir_kint(J, J->maxslot - 1). A parameter is as constant as what the
// hot callers pass.
enum class TraceConstant { Yes, No, Unknown };

// `select('#', ...)` of the function's own varargs at pc: a CALLM of
// select with '#' and the VARG just before it.
bool isVarargCount(const FunctionView& fn, std::size_t proto, int pc) {
  const auto& code = fn.chunk.prototypes[proto];
  const auto& call = code.at(pc);
  if (!code.isVararg() || pc < 2 || call.op != Op::CALLM || call.c != 1) return false;
  const auto& varg = code.at(pc - 1);
  if (varg.op != Op::VARG || varg.b != 0 || varg.a != flow::argumentSlot(fn.chunk, call, 1)) return false;
  Value callee = fn.values.at(proto, pc, call.a);
  Value what = fn.values.at(proto, pc, flow::argumentSlot(fn.chunk, call, 0));
  return callee.is(Kind::LibFunction) && callee.name == "select" && what.isConstantString() &&
         !what.text().empty() && what.text().front() == '#';
}

TraceConstant bothConstant(TraceConstant a, TraceConstant b) {
  if (a == TraceConstant::No || b == TraceConstant::No) return TraceConstant::No;
  return a == TraceConstant::Yes && b == TraceConstant::Yes ? TraceConstant::Yes : TraceConstant::Unknown;
}

TraceConstant traceConstant(const FunctionView& fn, std::size_t proto, int pc, int slot, int depth) {
  const auto& code = fn.chunk.prototypes[proto];
  const flow::Loop* loop = fn.calls.loopMap(proto).innermost(pc);
  int floor = loop ? loop->first : 1;
  for (int q = pc - 1; q >= floor; --q) {
    const auto& ins = code.at(q);
    flow::Writes w = flow::writesOf(ins);
    if (slot < w.first || slot > w.last) continue;
    switch (ins.op) {
      case Op::KSHORT: case Op::KNUM: case Op::KSTR: case Op::KPRI: case Op::KNIL:
        return TraceConstant::Yes;
      case Op::MOV: case Op::UNM:
        slot = ins.d;
        continue;
      case Op::ADDVV: case Op::SUBVV: case Op::MULVV: case Op::DIVVV: case Op::MODVV: case Op::POW:
        return bothConstant(traceConstant(fn, proto, q, ins.b, depth), traceConstant(fn, proto, q, ins.c, depth));
      case Op::UGET: {
        Value v = fn.values.upvalue(proto, ins.d);
        return v.isConstantNumber() || v.isConstantString() ? TraceConstant::Yes : TraceConstant::No;
      }
      case Op::CALLM:
        return !loop && isVarargCount(fn, proto, q) ? TraceConstant::Yes : TraceConstant::No;
      default:
        if (flow::isArithmeticWithConstant(ins.op)) {
          slot = ins.b;
          continue;
        }
        return TraceConstant::No;
    }
  }
  if (loop || slot >= code.numparams) return TraceConstant::No;
  if (depth > 1) return TraceConstant::Unknown;
  // A parameter: what the hot callers pass in that position.
  std::optional<TraceConstant> all;
  for (const auto& site : fn.calls.callers(proto)) {
    if (!fn.calls.runsHot(site.proto, site.pc)) continue;
    const auto& call = fn.chunk.prototypes[site.proto].at(site.pc);
    int argument = slot + site.firstArgument;
    if (argument >= flow::fixedArgs(call)) return TraceConstant::Unknown;
    TraceConstant t = traceConstant(fn, site.proto, site.pc, flow::argumentSlot(fn.chunk, call, argument), depth + 1);
    if (all && *all != t) return TraceConstant::Unknown;
    all = t;
  }
  return all.value_or(TraceConstant::Unknown);
}

// A refusal when the argument is not the trace constant `wanted` names.
Refusal unlessTraceConstant(const FunctionView& fn, int pc, int k, const std::string& why,
                            const std::string& wanted) {
  int slot = argumentSlot(fn, pc, k);
  TraceConstant t = traceConstant(fn, fn.index, pc, slot, 0);
  if (t == TraceConstant::Yes) return {};
  if (t == TraceConstant::No)
    return {why, Confidence::Certain,
            "the argument is not a constant in the trace (a literal, an immutable upvalue holding one, "
            "select('#', ...), or arithmetic on them), and the recorder needs " + wanted};
  return {why, Confidence::Likely,
          "the argument comes from the callers, which the analyzer cannot all see, and the recorder needs " + wanted};
}

// A value that is no string for sure: globals, FFI symbols and other
// modules' members may hold strings.
bool knownNonString(const Value& v) {
  return v.known() && !v.is(Kind::String) && v.kind != Kind::Global && v.kind != Kind::FfiSymbol &&
         v.kind != Kind::ModuleMember;
}

// The k-th argument of the call at pc is a parameter of this function
// that every call of it that runs hot fills with a value `fits` accepts:
// the clause that says so, and how sure (certain when no code elsewhere
// calls the function, so these are all its calls); empty when a call
// passes another value or one of unknown type. `other` names what code
// elsewhere might pass instead ("a string").
template <typename Fits>
std::pair<std::string, Confidence> fromCallers(const FunctionView& fn, int pc, int k, Fits fits,
                                               const std::string& other) {
  const int parameter = fn.isMain() ? -1 : flow::parameterIn(fn.proto, pc, argumentSlot(fn, pc, k));
  if (parameter < 0) return {};
  // Each call named with what it passes (a split that lands at the calls
  // of a function that tail-calls the builtin is reported at each of them:
  // naming only the first read as if the others passed its value).
  constexpr std::size_t kNamedCalls = 3;
  std::string passes;
  std::size_t calls = 0;
  int lastLine = 0;
  for (const auto& site : fn.calls.callers(fn.index)) {
    if (!fn.calls.runsHot(site.proto, site.pc)) continue;
    const Value v = callerArgument(fn, site, parameter);
    if (!fits(v)) return {};
    const int line = fn.chunk.prototypes[site.proto].at(site.pc).line;
    if (line == lastLine) continue;
    lastLine = line;
    if (++calls <= kNamedCalls)
      passes += (passes.empty() ? "" : ", and ") + std::string("the call at line ") + std::to_string(line) +
                " passes " + describe(v);
  }
  if (passes.empty()) return {};
  if (calls > kNamedCalls)
    passes += ", and " + std::to_string(calls - kNamedCalls) + " more call" +
              (calls - kNamedCalls > 1 ? "s pass" : " passes") + " such a value";
  const bytecode::VarInfo* var = flow::variableAt(fn.proto, 1, parameter);
  const std::string name = var ? var->name : "#" + std::to_string(parameter + 1);
  const bool allCalls = !fn.calls.escapes(fn.index) && fn.calls.callbacks(fn.index).empty() &&
                        !fn.calls.externalCaller(fn.index);
  return {"the parameter " + name + ", and " + passes +
              (allCalls ? " (as does every call of " + functionName(fn, fn.index) + " that runs hot)"
                        : " (as does every call in this file that runs hot; code elsewhere may pass " + other + ")"),
          allCalls ? Confidence::Certain : Confidence::Likely};
}

// ... a value that is no string.
std::pair<std::string, Confidence> nonStringFromCallers(const FunctionView& fn, int pc, int k) {
  return fromCallers(fn, pc, k, knownNonString, "a string");
}

Refusal formatRefusal(const FunctionView& fn, int pc, int args) {
  Value format = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0));
  if (!format.isConstantString()) return {};
  int k = 1;
  for (const FormatSpec& spec : parseFormat(format.text())) {
    std::string text(spec.text);
    if (spec.type == FormatSpec::Type::Error)
      return {"string.format with the invalid specifier '" + text + "'", Confidence::Certain,
              "the format \"" + std::string(format.text()) + "\" has a specifier the recorder cannot parse"};
    if (spec.type == FormatSpec::Type::Ptr)
      return {"string.format with %p", Confidence::Certain,
              "the format \"" + std::string(format.text()) + "\" uses %p, which the recorder does not compile"};
    if (spec.type == FormatSpec::Type::Str && k < args) {
      Value arg = fn.values.at(fn.index, pc, argumentSlot(fn, pc, k));
      if (knownNonString(arg))
        return {"string.format with '" + text + "' of a non-string", Confidence::Certain,
                "argument " + std::to_string(k + 1) + " is " + describe(arg) + ", and the recorder compiles '" +
                    text + "' only for strings"};
      if (!arg.known())
        if (auto [clause, sure] = nonStringFromCallers(fn, pc, k); !clause.empty())
          return {"string.format with '" + text + "' of a non-string", sure,
                  "argument " + std::to_string(k + 1) + " is " + clause + ", and the recorder compiles '" + text +
                      "' only for strings"};
    }
    ++k;
  }
  return {};
}

Refusal tostringRefusal(const FunctionView& fn, int pc) {
  Value v = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0));

  if (v.is(Kind::LuaFunction) || v.is(Kind::LibFunction) || v.is(Kind::CFunction))
    return {"tostring of a function", Confidence::Certain,
            "the argument is a function, which the recorder cannot turn into a string"};
  // A parameter every hot call fills with a table that never gets a
  // metatable (audit 70: `tostring(obj)` in a logging helper given
  // request tables).
  if (!v.known()) {
    // None: it never gets one; Unseen: no setmetatable in this file reaches it.
    bool unseen = false;
    auto plainTable = [&](const Value& arg) {
      if (!arg.is(Kind::Table) || arg.pc == 0) return false;
      const flow::ValueMap::Metatable m = fn.values.metatableOf(arg);
      unseen = unseen || m == flow::ValueMap::Metatable::Unseen;
      return m != flow::ValueMap::Metatable::Maybe;
    };
    if (auto [clause, sure] = fromCallers(fn, pc, 0, plainTable, "a string or a number"); !clause.empty())
      return {"tostring of a table without __tostring", unseen ? Confidence::Likely : sure,
              "the argument is " + clause + ", a table " +
                  (unseen ? "no setmetatable in this file reaches" : "that never gets a metatable") +
                  ", and the recorder compiles tostring of a table only through __tostring"};
  }
  if (!v.is(Kind::Table)) return {};
  switch (fn.values.metatableOf(v)) {
    case flow::ValueMap::Metatable::None:
      return {"tostring of a table without __tostring", Confidence::Certain,
              "the argument is a table from the constructor at line " +
                  std::to_string(fn.chunk.prototypes[v.proto].at(v.pc).line) +
                  " that never gets a metatable, and the recorder compiles tostring of a table only through "
                  "__tostring"};
    case flow::ValueMap::Metatable::Unseen:
      return {"tostring of a table without __tostring", Confidence::Likely,
              "the argument is a table from the constructor at line " +
                  std::to_string(fn.chunk.prototypes[v.proto].at(v.pc).line) +
                  " and no setmetatable in this file reaches it, and the recorder compiles tostring of a table "
                  "only through __tostring"};
    default:
      return {};
  }
}

// The result of the call at pc is tested right away (`if tonumber(s) then`,
// `local n = tonumber(s) if not n then`, also after a copy into a local):
// the line of the test, or 0.
int resultTestLine(const bytecode::Prototype& proto, int pc) {
  const auto& call = proto.at(pc);
  if (call.op != Op::CALL || call.b < 2) return 0;
  int slot = call.a;
  for (int q = pc + 1; q <= std::min(proto.size(), pc + 3); ++q) {
    const auto& ins = proto.at(q);
    bool truth = (ins.op == Op::IST || ins.op == Op::ISF || ins.op == Op::ISTC || ins.op == Op::ISFC) && ins.d == slot;
    bool nil = (ins.op == Op::ISEQP || ins.op == Op::ISNEP) && ins.a == slot && ins.d == 0;
    if (truth || nil) return ins.line;
    if (ins.op == Op::MOV && ins.d == slot) {
      slot = ins.a;
      continue;
    }
    flow::Writes w = flow::writesOf(ins);
    if (slot >= w.first && slot <= w.last) return 0;
  }
  return 0;
}

// tonumber of a string that does not convert: recff_tonumber would need an
// inverted STRTO and stitches instead. Only a program that tests the
// result expects such strings, and only a known string argument makes the
// split likely: tonumber of a number, a table or nil is recorded (on the
// third-party corpus, arguments of unknown type were refuted 2 of 2).
Refusal tonumberRefusal(const FunctionView& fn, int pc) {
  Value v = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0));
  if (!v.is(Kind::String) || v.constant) return {};  // a constant converts or not on every run
  int test = resultTestLine(fn.proto, pc);
  if (test == 0) return {};
  return {"tonumber of a string that does not convert", Confidence::Likely,
          "the argument is a string and the result is tested for nil at line " + std::to_string(test) +
              ", so the program expects strings that do not convert, and the recorder stitches for those"};
}

// `x = select(k, ...)` in a loop of the vararg function itself: the loop's
// trace starts in the vararg frame, where the recorder reads the varargs
// straight from the frame for this idiom (lj_record.c: rec_varg,
// select_detect) and takes any index, not only a constant one. Only an
// inlined vararg frame passes the call on to recff_select.
bool selectOfOwnVarargsInLoop(const FunctionView& fn, int pc) {
  const auto& call = fn.proto.at(pc);
  if (!fn.proto.isVararg() || pc < 2 || !fn.loops.inLoop(pc)) return false;
  const auto& varg = fn.proto.at(pc - 1);
  return call.op == Op::CALLM && call.b == 2 && call.c == 1 && varg.op == Op::VARG && varg.b == 0;
}

// The recorded builtins with call forms their recorder refuses (below).
constexpr std::string_view kVariantBuiltins[] = {"table.insert", "select",   "string.find", "string.format",
                                                 "tostring",     "tonumber", "getfenv"};

// Why the recorder refuses this call form; empty when it records it.
Refusal refusedVariant(const FunctionView& fn, int pc, std::string_view name) {
  const auto& call = fn.proto.at(pc);
  int args = flow::fixedArgs(call);
  bool variableArgs = call.op == Op::CALLM || call.op == Op::CALLMT;
  if (name == "table.insert" && args == 3 && !variableArgs)
    return {"table.insert with a position", Confidence::Certain,
            "three arguments insert in the middle, which the recorder does not compile (only appends)"};
  if (name == "select" && args >= 1) {
    Value k = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0));
    if (k.isConstantString()) return {};
    if (selectOfOwnVarargsInLoop(fn, pc)) return {};
    return unlessTraceConstant(fn, pc, 0, "select with a non-constant index",
                               "a constant index in a vararg frame entered on trace (recff_select)");
  }
  if (name == "string.find" && args >= 2 && !variableArgs) {
    if (args >= 4 && !isFalseLiteral(fn, pc, 3)) return {};  // a plain flag: recorded when true
    Value pattern = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 1));
    if (!pattern.known()) {
      // The recorder specializes the trace to the pattern it sees
      // (recff_string_find): a pattern with special characters stitches.
      PatternEvidence evidence = patternArgument(fn, pc, 1);
      if (!evidence.found) return {};
      return {"string.find with a pattern (not a plain search)", Confidence::Likely,
              evidence.reasoning + ", and the recorder compiles only plain searches"};
    }
    if (!pattern.is(Kind::String) || !hasPatternSpecials(pattern.text())) return {};
    std::string text = pattern.constant ? "the pattern \"" + std::string(pattern.text()) + "\""
                                        : "the pattern, concatenated from \"" + std::string(pattern.text()) + "\",";
    return {"string.find with a pattern (not a plain search)", Confidence::Certain,
            text + " has special characters, and the recorder compiles only plain searches"};
  }
  if (name == "string.format" && args >= 1 && !variableArgs) return formatRefusal(fn, pc, args);
  if (name == "tostring" && args == 1 && !variableArgs) return tostringRefusal(fn, pc);
  if (name == "tonumber" && args == 1 && !variableArgs) return tonumberRefusal(fn, pc);
  if (name == "tonumber" && args >= 2 && !variableArgs) {
    Value base = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 1));
    if (base.is(Kind::Nil)) return {};
    if (base.isConstantNumber() && base.integer != 10)
      return {"tonumber with a base other than 10", Confidence::Certain,
              "the base is " + std::to_string(base.integer) +
                  ", and the recorder compiles only base 10"};
    return unlessTraceConstant(fn, pc, 1, "tonumber with a base that is not the constant 10", "the constant 10");
  }
  if (name == "getfenv" && !variableArgs) {
    if (args == 0)
      return {"getfenv without a level", Confidence::Certain, "the recorder compiles only getfenv(0)"};
    Value level = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0));
    if (level.isConstantNumber() && level.integer != 0)
      return {"getfenv with a non-zero level", Confidence::Certain, "the recorder compiles only getfenv(0)"};
    if (level.is(Kind::LuaFunction))
      return {"getfenv of a function", Confidence::Certain, "the recorder compiles only getfenv(0)"};
    if (!level.is(Kind::Number)) return {};
    return unlessTraceConstant(fn, pc, 0, "getfenv with a level that is not the constant 0", "the constant 0");
  }
  return {};
}

// A call of a recorded builtin in a form its recorder refuses, with the
// refusal's confidence capped at likely when the receiver is only inferred
// to be a string. Unrecorded builtins are call-splits' business.
struct RefusedCall {
  Callee callee;
  const FastFunctionDef* builtin;
  Refusal refusal;
};

std::optional<RefusedCall> refusedCall(const FunctionView& fn, int pc) {
  Callee callee = resolveCallee(fn, pc);
  if (!callee.value.is(Kind::LibFunction) || callee.protectedCall) return std::nullopt;
  const FastFunctionDef* ff = fn.profile.fastFunction(callee.value.name);
  if (!ff || !ff->recorded()) return std::nullopt;
  Refusal refusal = refusedVariant(fn, pc, ff->name);
  if (refusal.why.empty()) return std::nullopt;
  if (callee.inferredReceiver && !callee.patternReceiver)
    refusal.confidence = std::min(refusal.confidence, Confidence::Likely);
  if (std::string bound = boundCalleeWhy(fn, pc, callee); !bound.empty())
    refusal.reasoning = bound + "; " + refusal.reasoning;
  return RefusedCall{std::move(callee), ff, std::move(refusal)};
}

class RecordedVariantRule final : public Rule {
 public:
  std::string_view name() const override { return "recorded-variants"; }
  std::vector<ReasonId> reasons(const RecorderProfile&) const override {
    std::vector<ReasonId> ids;
    for (SplitKind kind : {SplitKind::Stitch, SplitKind::Return})
      for (std::string_view builtin : kVariantBuiltins) ids.push_back(ReasonId::split(kind, builtin));
    return ids;
  }

  void check(const FunctionView& fn, PredictionSink& sink) const override {
    for (int pc = 1; pc <= fn.proto.size(); ++pc) {
      const auto& ins = fn.proto.at(pc);
      if (ins.op == Op::CALLT) checkTailCall(fn, pc, sink);
      if (ins.op != Op::CALL && ins.op != Op::CALLM) continue;
      if (!runsHot(fn, pc)) continue;
      std::optional<RefusedCall> refused = refusedCall(fn, pc);
      if (!refused) continue;
      const auto& [callee, ff, refusal] = *refused;
      bool ends = nextFeedsVariableCount(fn.proto, pc);
      Finding f = splitFinding(pc, SIZE_MAX, ff->name, ff->name, ends, whyEnds(false, false));
      f.message = refusal.why + " is not compiled: " + (ends ? "the trace ends here" : "the trace is stitched around it");
      f.most = callee.mostClaimed();
      f.confidence = refusal.confidence;
      f.reasoning = refusal.reasoning + "; " + whyHot(fn, pc);
      if (callee.patternReceiver) {
        f.reasoning += "; the receiver is taken for a string because its find method gets a Lua pattern";
      } else if (callee.inferredReceiver) {
        // string.find's refusal already names the pattern argument: not twice.
        bool named = !callee.patternEvidence.empty() && refusal.reasoning.find(callee.patternEvidence) != std::string::npos;
        f.reasoning += "; the receiver is taken for a string because the method gets " +
                       (named ? std::string("that pattern") : callee.patternWhy);
      } else if (callee.receiverByName) {
        f.reasoning += "; the receiver, whose type the bytecode does not show, is taken for a string by the "
                       "method's name";
      } else if (!callee.receiverEvidence.empty()) {
        f.reasoning += "; " + callee.receiverEvidence;
      }
      sink.report(fn, std::move(f));
    }
  }

 private:
  // `return tonumber(s, 16)`: the tail call leaves no frame, so the split
  // lands at each hot call of this function (as call_splits.cpp does for
  // unrecorded builtins); after a stitch on every path it ends the trace,
  // and so does this function's own trace when two calls in one loop make
  // its entry hot (ownTraceReturn).
  static void checkTailCall(const FunctionView& fn, int pc, PredictionSink& sink) {
    std::optional<RefusedCall> refused = refusedCall(fn, pc);
    if (!refused) return;
    const auto& [callee, ff, refusal] = *refused;
    const StitchBefore before = stitchBeforeTailCall(fn, pc);
    if (before.abortLine) return;  // no trace gets to the tail call
    if (traceEndsBefore(fn, pc)) return;  // nor past a sure RETURN on every path
    const std::string self = functionName(fn, fn.index);
    const auto ownAfter = before.line > 0 ? ownTraceAfterStitch(fn) : std::nullopt;
    const flow::LoopTrips* loopBefore = loopBeforeTailCall(fn, pc);
    for (const auto& site : fn.calls.callers(fn.index)) {
      if (!fn.calls.runsHot(site.proto, site.pc)) continue;
      const auto& caller = fn.chunk.prototypes[site.proto];
      bool ends = site.protectedCall || nextFeedsVariableCount(caller, site.pc);
      bool afterStitch = !ends && before.line > 0;
      if (afterStitch && ownAfter && ownAfter->landsElsewhere(site)) continue;
      const bool afterLoop = !ends && !afterStitch && loopBefore;
      Finding f = splitFinding(site.pc, site.proto, ff->name, ff->name, ends || afterStitch || afterLoop,
                               afterStitch ? kAfterStitchEnds
                               : afterLoop ? kAfterLoopEnds
                                           : whyEnds(false, site.protectedCall));
      f.endsTrace = ends || afterStitch || afterLoop;  // the caller's trace ends at this call
      f.calledAs = calledAs(fn, site);
      f.message = refusal.why + " is not compiled: " +
                  (f.endsTrace ? "the trace ends here" : "the trace is stitched around it");
      f.confidence = refusal.confidence;
      f.most = callee.mostClaimed();
      f.reasoning = self + " tail-calls " + ff->name + ": " + refusal.reasoning +
                    "; the tail call leaves no frame, so the split lands at this call; " +
                    whyHot(fn.of(site.proto), site.pc);
      if (afterStitch) {
        f.reasoning += "; " + stitchBeforeWhy(self, before.callee, before.line, "");
        f.confidence = std::min(f.confidence, before.confidence);
        if (ownAfter) ownAfter->explain(f, site, self);
      }
      if (afterLoop) explainLoopBeforeTailCall(fn, *loopBefore, f);
      sink.report(fn, std::move(f));
    }
    if (before.line > 0) return;  // every trace through it already ends at the tail call
    std::optional<Finding> own = ownTraceReturn(fn, ff->name, ff->name, refusal.reasoning);
    if (!own) return;
    own->confidence = std::min(own->confidence, refusal.confidence);
    own->most = callee.mostClaimed();
    own->message = refusal.why + " is not compiled: the trace ends here";
    sink.report(fn, std::move(*own));
  }
};

}  // namespace

std::optional<Confidence> refusedVariantCall(const FunctionView& fn, int pc) {
  std::optional<RefusedCall> refused = refusedCall(fn, pc);
  if (!refused) return std::nullopt;
  return refused->refusal.confidence;
}

std::unique_ptr<Rule> makeRecordedVariantRule() { return std::make_unique<RecordedVariantRule>(); }

}  // namespace ljcheck::rules
