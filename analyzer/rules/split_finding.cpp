// Shared helpers of the trace-split rules (see split_finding.h).
#include "rules/split_finding.h"

#include <algorithm>
#include <set>

#include "flow/instruction_effects.h"
#include "flow/module_member.h"
#include "flow/variables.h"
#include "rules/pattern_arguments.h"
#include "rules/prediction_sink.h"

namespace ljcheck::rules {

using bytecode::Op;
using Kind = flow::Value::Kind;

int argumentSlot(const FunctionView& fn, int pc, int k) { return flow::argumentSlot(fn.chunk, fn.proto.at(pc), k); }

bool isSelectIdiom(const FunctionView& fn, int pc) {
  if (pc + 1 > fn.proto.size()) return false;
  const auto& call = fn.proto.at(pc + 1);
  if (call.op != bytecode::Op::CALLM || call.b != 2 || call.c != 1) return false;
  flow::Value callee = calleeAt(fn, pc + 1);
  return callee.is(flow::Value::Kind::LibFunction) && callee.name == "select";
}

const FastFunctionDef* recordedCall(const FunctionView& fn, int pc) {
  const flow::Value callee = resolveCallee(fn, pc).value;
  if (!callee.is(flow::Value::Kind::LibFunction)) return nullptr;
  const FastFunctionDef* ff = fn.profile.fastFunction(callee.name);
  return ff && ff->recorded() && !refusedVariantCall(fn, pc) ? ff : nullptr;
}

std::string calledAs(const FunctionView& fn, const flow::CallSite& site) {
  return site.protectedCall ? "pcall" : functionName(fn, fn.index);
}

namespace {

// The pc of the TGETS that reads the callee of `obj:name(...)` at pc from
// the receiver the MOV before it copies into the first argument slot; 0
// for another call.
int methodLoadAt(const FunctionView& fn, int pc) {
  const auto& call = fn.proto.at(pc);
  if (!flow::isCall(call.op) || flow::fixedArgs(call) < 1) return 0;
  const int self = argumentSlot(fn, pc, 0);
  // Only the call's own evaluation is searched: it writes no slot below
  // the callee's, so the first such write ends the search.
  for (int q = pc - 1; q >= 2; --q) {
    const auto& ins = fn.proto.at(q);
    flow::Writes w = flow::writesOf(ins);
    if (w.last >= w.first && w.first < call.a) return 0;
    if (call.a < w.first || call.a > w.last) continue;
    const auto& copy = fn.proto.at(q - 1);
    return ins.op == Op::TGETS && copy.op == Op::MOV && copy.a == self && copy.d == ins.b ? q : 0;
  }
  return 0;
}

// Whether the call at pc, or for an iterator call the call that made its
// generator, is of a string method taken by its name alone written as a
// plain function call (`lib.str.gmatch(s, p)`; `for m in lib.str.gmatch(s,
// p)`): no method of a value the tracker takes for a string.
bool plainCallByName(const FunctionView& fn, int pc, const flow::Value& callee) {
  if (!callee.is(flow::Value::Kind::LibFunction)) return false;
  const auto& ins = fn.proto.at(pc);
  if (ins.op != Op::ITERC) return callee.takenByName() && methodLoadAt(fn, pc) == 0;
  const int maker = flow::lastWriteBefore(fn.proto, pc, ins.a - 3);
  if (maker == 0 || !flow::isCall(fn.proto.at(maker).op)) return false;
  const flow::Value generator = calleeAt(fn, maker);
  return generator.takenByName() && methodLoadAt(fn, maker) == 0;
}

}  // namespace

const std::string* methodCalledAt(const FunctionView& fn, int pc) {
  const int load = methodLoadAt(fn, pc);
  return load ? fn.proto.stringConstant(fn.proto.at(load).c) : nullptr;
}

std::vector<TailCallLanding> tailCallLandings(const FunctionView& fn, std::size_t proto) {
  std::vector<TailCallLanding> out;
  std::vector<std::size_t> work{proto};
  std::set<std::size_t> seen{proto};
  while (!work.empty()) {
    const std::size_t called = work.back();
    work.pop_back();
    for (const flow::CallSite& site : fn.calls.callers(called)) {
      if (site.protectedCall || !flow::isTailCall(fn.chunk.prototypes[site.proto].at(site.pc).op))
        out.push_back({site, called});
      else if (seen.insert(site.proto).second)
        work.push_back(site.proto);
    }
  }
  return out;
}

flow::Value callerArgument(const FunctionView& fn, const flow::CallSite& site, int parameter) {
  const auto& call = fn.chunk.prototypes[site.proto].at(site.pc);
  int argument = parameter + site.firstArgument;
  if (argument >= flow::fixedArgs(call)) return {};
  return fn.values.at(site.proto, site.pc, flow::argumentSlot(fn.chunk, call, argument));
}

// Register `slot` holds parameter `slot` as the function got it when read
// at `pc` (no instruction of the function writes it before; in a function
// with loops, none at all: one after the read may reach it round a loop;
// audit 80: `s = s:gsub("\n", "\r\n")` reads s before it writes it), and
// the function does not escape: every call of it is in this file.
bool parameterFromCallsHere(const FunctionView& fn, int slot, int pc) {
  if (slot >= fn.proto.numparams || fn.calls.escapes(fn.index) || fn.calls.externalCaller(fn.index)) return false;
  const int upTo = fn.loops.loops().empty() ? pc : fn.proto.size() + 1;
  for (int q = 1; q < upTo && q <= fn.proto.size(); ++q) {
    flow::Writes w = flow::writesOf(fn.proto.at(q));
    if (slot >= w.first && slot <= w.last) return false;
  }
  return true;
}

namespace {

// parameterFromCallsHere, and every call of the function passes a string there.
bool stringParameter(const FunctionView& fn, int slot, int pc) {
  if (!parameterFromCallsHere(fn, slot, pc)) return false;
  const auto& sites = fn.calls.callers(fn.index);
  return !sites.empty() && std::all_of(sites.begin(), sites.end(), [&](const flow::CallSite& site) {
    return callerArgument(fn, site, slot).is(flow::Value::Kind::String);
  });
}

// The clause for a receiver stringParameter found.
std::string parameterEvidence(const FunctionView& fn) {
  return "the receiver is a parameter of " + functionName(fn, fn.index) +
         " that every call of it, all in this file, passes a string in";
}

// The call at pc is `obj:name(...)`, the callee read from the receiver in
// the first argument slot (a MOV of the object there, a TGETS of it into
// the callee slot), and the value tracker does not know that object for a
// string, nor do the calls of a parameter it is: a string method it names
// is a guess by the name.
bool methodOfUnknownString(const FunctionView& fn, int pc, std::string* evidence) {
  const auto& call = fn.proto.at(pc);
  if (!flow::isCall(call.op) || flow::fixedArgs(call) < 1) return false;
  const int self = argumentSlot(fn, pc, 0);
  const flow::Value receiver = fn.values.at(fn.index, pc, self);
  if (receiver.is(flow::Value::Kind::String) && !receiver.takenByName()) return false;
  const int load = methodLoadAt(fn, pc);
  if (!load) return false;
  if (!stringParameter(fn, fn.proto.at(load - 1).d, load - 1)) return true;  // the MOV of the receiver
  *evidence = parameterEvidence(fn);
  return false;
}

// `obj:match(<string>, ...)` or `obj:find(<string>, ...)` on an object of
// unknown type: names only strings have with a pattern string (a literal,
// or a string built from literals: other objects' match or find methods
// rarely take one) are the string library's; so is a variable the
// evidence of pattern_arguments.h calls a pattern. The method call is a TGETS of
// the object into the callee slot and a MOV of it into the first argument
// slot.
Callee stringMethodOfUnknown(const FunctionView& fn, int pc) {
  const auto& call = fn.proto.at(pc);
  if (!flow::isCall(call.op)) return {};
  if (flow::fixedArgs(call) < 2) return {};
  const int self = argumentSlot(fn, pc, 0);
  flow::Value receiver = fn.values.at(fn.index, pc, self);
  if (receiver.known() && !receiver.is(flow::Value::Kind::String) && !receiver.is(flow::Value::Kind::Method)) return {};
  flow::Value pattern = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 1));
  PatternEvidence named;
  if (!pattern.known()) named = patternArgument(fn, pc, 1);
  bool literal = pattern.is(flow::Value::Kind::String) && !pattern.text().empty();
  if (!literal && !named.found) return {};
  bool specials = literal && hasPatternSpecials(pattern.text());
  const int load = methodLoadAt(fn, pc);
  if (!load) return {};
  const std::string* field = fn.proto.stringConstant(fn.proto.at(load).c);
  if (!field) return {};
  const std::string& key = *field;
  Callee c;
  c.inferredReceiver = true;
  c.patternWhy = !literal                      ? "a pattern: " + named.reasoning
                 : pattern.isConstantString() ? "a pattern literal"
                                              : "a string built from literals that may be a pattern";
  if (!literal) c.patternEvidence = named.reasoning;
  if (key == "match") c.value = flow::Value::of(flow::Value::Kind::LibFunction, "string.match");
  if (key == "find") c.value = flow::Value::of(flow::Value::Kind::LibFunction, "string.find");
  // A stronger guess with pattern characters, unless this file gives its
  // own objects a method of that name. A string built with other pieces
  // needs more than a '.' or a '-', which a subject has as often (audit
  // 51: lpeg's `pair:match("12." .. i)`). Still a guess: likely.
  const bool strong =
      pattern.isConstantString() || pattern.text().find_first_of("^$*+?([%") != std::string_view::npos;
  c.ownMethodOfName = fn.values.definesSelfMethod(key);
  c.patternReceiver = specials && strong && !c.ownMethodOfName;
  if (c.ownMethodOfName)
    c.patternWhy += ", though this file gives its own objects a " + key + " method, which the receiver may be one of";
  // A parameter every call passes a string in (the MOV of the receiver): no guess.
  if (stringParameter(fn, fn.proto.at(load - 1).d, load - 1)) {
    c.inferredReceiver = c.patternReceiver = c.ownMethodOfName = false;
    c.receiverEvidence = parameterEvidence(fn);
  }
  return c.value.known() ? c : Callee{};
}

}  // namespace

bool hasPatternSpecials(std::string_view pattern) { return pattern.find_first_of("^$*+?.([%-") != std::string_view::npos; }

namespace {

Callee calleeOf(const FunctionView& fn, int pc) {
  const auto& ins = fn.proto.at(pc);
  Callee c;
  c.value = calleeAt(fn, pc);
  if (!c.value.known()) return stringMethodOfUnknown(fn, pc);
  // A string method taken by its name alone, called as a plain function
  // (`lib.str.gmatch(s, p)`, not `x:gmatch(p)`): a field of a table of
  // this file, a shim of the library's own function (audit 75: a Lua
  // ngx.re.gmatch over string.gmatch, certain at its call).
  if (plainCallByName(fn, pc, c.value)) return {};
  // `o:gsub(...)` on a value the tracker does not know, which it takes for
  // a string by the name alone (flow::onlyStringsHave): an object may have
  // a gsub method of its own (audit 62: a parameter, `self.buf:find`).
  if (c.value.is(flow::Value::Kind::LibFunction) && c.value.name.substr(0, 7) == "string." &&
      methodOfUnknownString(fn, pc, &c.receiverEvidence))
    c.receiverByName = true;
  // obj:find(pattern) on what another module's function returned: taken
  // for a string method by its pattern, as on a value of unknown type.
  // Not when that module defines the method in Lua (audit 52: pat.new()'s
  // P:match, taken for string.match, certain).
  if (c.value.is(flow::Value::Kind::ModuleMember) && flow::ModuleMemberName::parse(c.value.name).isMethodOfResult() &&
      !(fn.luaMethods && fn.luaMethods->count(c.value.name)))
    if (Callee s = stringMethodOfUnknown(fn, pc); s.value.known()) return s;
  if (c.value.is(flow::Value::Kind::LibFunction) && (c.value.name == "pcall" || c.value.name == "xpcall") &&
      ins.op != Op::ITERC) {
    c.value = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0));
    c.protectedCall = true;
    c.slot = argumentSlot(fn, pc, 0);
  } else {
    c.slot = flow::calleeSlot(ins);
  }
  // tostring of a cdata hands over to the __tostring of the FFI's own
  // metatable, a C function without a recorder (recff_tostring ->
  // recff_metacall; `-jv` on both builds: "stitch ffi.meta.__tostring" for a
  // struct, an int64_t and a pointer): that is the call a trace splits at.
  if (!c.protectedCall && c.value.is(flow::Value::Kind::LibFunction) && c.value.name == "tostring" &&
      ins.op != Op::CALLT && ins.op != Op::CALLMT && flow::fixedArgs(ins) >= 1)
    if (const flow::Value arg = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0)); arg.is(flow::Value::Kind::CData)) {
      c.value = flow::Value::of(flow::Value::Kind::LibFunction, "ffi.meta.__tostring");
      c.receiverEvidence = "tostring calls it: the argument is a cdata" +
                           (arg.name.empty() ? std::string() : " of the ctype \"" + std::string(arg.name) + "\"") +
                           ", and every cdata's metatable is the FFI's";
    }
  return c;
}

}  // namespace

Callee resolveCallee(const FunctionView& fn, int pc) {
  if (!fn.callees || fn.index >= fn.callees->byProto.size() || pc < 1 || pc > fn.proto.size())
    return calleeOf(fn, pc);
  auto& byPc = fn.callees->byProto[fn.index];
  if (byPc.empty()) byPc.resize(static_cast<std::size_t>(fn.proto.size()) + 1);
  std::optional<Callee>& kept = byPc[static_cast<std::size_t>(pc)];
  if (!kept) kept = calleeOf(fn, pc);
  return *kept;
}

std::string boundParameterWhy(const FunctionView& fn, int pc, int slot) {
  if (!fn.values.hasBoundParameters(fn.index)) return {};
  // The callee is the parameter itself (MOV) or a field of it (TGETS:
  // lib.gsub with lib the string table).
  const int q = flow::lastWriteBefore(fn.proto, pc, slot);
  if (q == 0) return {};
  const auto& load = fn.proto.at(q);
  const bool field = load.op == Op::TGETS;
  if (load.op != Op::MOV && !field) return {};
  const int parameter = field ? load.b : load.d;
  const bytecode::VarInfo* var = flow::variableAt(fn.proto, q, parameter);
  if (!var || var->startpc != 0 || parameter >= fn.proto.numparams) return {};
  // Never assigned in the function: what it holds at the load is what it got.
  if (flow::assignsSlot(fn.proto, parameter)) return {};
  flow::ValueMap::BoundParameters bound = fn.values.boundParameter(fn.index, parameter);
  if (bound.values.empty() || (!field && !(bound.values[0] == fn.values.at(fn.index, pc, slot)))) return {};
  const flow::Value& v = bound.values[0];
  std::string what(v.name);
  if (v.is(Kind::LuaFunction)) what = functionName(fn, v.proto);
  else if (v.is(Kind::FfiLibrary)) what = v.name == "C" ? "ffi.C" : "the library ffi.load(\"" + what + "\") gives";
  else if (v.is(Kind::LibTable) && v.name == "io.method") what = "a file of the io library";
  else if (v.is(Kind::CType)) what = "the ctype \"" + what + "\"";
  else if (v.is(Kind::Module)) what = "the module " + what;
  else if (v.is(Kind::CModule)) what = "the C module " + what;
  std::string calls = bound.calls == 1 ? "its one call in this file, at line " + std::to_string(bound.line)
                                       : "each of its " + std::to_string(bound.calls) +
                                             " calls in this file, the first at line " + std::to_string(bound.line);
  return "the parameter " + var->name + " is " + what + " at " + calls + ", and only this file's code calls " +
         functionName(fn, fn.index);
}

std::string boundCalleeWhy(const FunctionView& fn, int pc, const Callee& callee) {
  return callee.slot < 0 ? std::string() : boundParameterWhy(fn, pc, callee.slot);
}

bool nextFeedsVariableCount(const bytecode::Prototype& proto, int pc) {
  if (pc >= proto.size()) return false;
  Op next = proto.at(pc + 1).op;
  return next == Op::CALLM || next == Op::CALLMT || next == Op::RETM || next == Op::TSETM;
}

std::string whyEnds(bool neverStitches, bool protectedCall) {
  if (neverStitches) return "it never stitches";
  if (protectedCall) return "it is called through pcall";
  return "its results feed a variable-count operation";
}

std::string stitchBeforeWhy(const std::string& function, const std::string& callee, int line,
                            const std::string& where) {
  return "every path in " + function + " to its tail call runs through the call of " + callee + " at line " +
         std::to_string(line) + where +
         ", which stitches: the trace that reaches the tail call starts right after it, inside " + function +
         ", and has no frame below it to stitch back into, so the tail call ends it";
}

const char* const kAfterStitchEnds = "the trace that reaches the tail call started after a stitch, with no frame below it";
const char* const kAfterLoopEnds =
    "the trace that reaches the tail call started at the exit of a loop of the function, with no frame below it";

// The last loop every path to pc runs through (split_finding.h).
const flow::LoopTrips* loopBeforeTailCall(const FunctionView& fn, int pc) {
  const flow::LoopTrips* found = nullptr;
  for (const flow::Loop& loop : fn.loops.loops()) {
    if (loop.last >= pc || flow::jumpAround(fn.proto, loop.first, loop.last, pc) != 0) continue;
    const flow::LoopTrips* trips = fn.calls.evidenceAt(fn.index, loop.last).loop;
    if (trips && trips->first == loop.first && (!found || trips->last > found->last)) found = trips;
  }
  return found;
}

void explainLoopBeforeTailCall(const FunctionView& fn, const flow::LoopTrips& loop, Finding& f) {
  const std::string self = functionName(fn, fn.index);
  f.reasoning += "; every path in " + self + " to its tail call runs through its loop at line " +
                 std::to_string(loop.line) + ", where the callers' traces stop (they link to the loop's own trace, or abort "
                 "there: LINNER): "
                 "the trace that reaches the tail call is the side trace from the loop's exit, which starts in " +
                 self + "'s frame and has no frame below it to stitch back into, so the tail call ends it";
  // Sure only when the loop turns more often than a caller's trace
  // unrolls: a loop that may not turn lets a caller's trace run through
  // it, and so does one of a few turns, which a caller's trace unrolls once
  // the loop's own traces keep leaving it (audit 87: a loop of 3 turns,
  // then `return unpack(t)`: `stitch unpack` in most runs).
  const long unrolled = fn.profile.param("loopunroll", 15) + 1;
  if (!loop.known || loop.leavesAt) {
    f.reasoning += "; but how many times that loop turns the bytecode does not show, and on calls where it turns "
                   "once or not at all a caller's trace runs on to the tail call and stitches there, so likely";
    f.confidence = std::min(f.confidence, Confidence::Likely);
  } else if (loop.count <= unrolled) {
    f.reasoning += "; but that loop turns " + std::to_string(loop.count) + " times, few enough for a caller's trace "
                   "to unroll it (at most " + std::to_string(unrolled) + " turns) once its own traces keep leaving "
                   "it, and that trace stitches at the tail call instead, so likely";
    f.confidence = std::min(f.confidence, Confidence::Likely);
  }
}

Finding splitFinding(int pc, std::size_t proto, const std::string& subject, const std::string& callee, bool ends,
                     const std::string& why) {
  Finding f;
  f.pc = pc;
  f.proto = proto;
  f.reasonId = ReasonId::split(ends ? SplitKind::Return : SplitKind::Stitch, subject);
  f.construct = "call";
  f.callee = callee;
  f.message = ends ? "call to " + callee + " ends the trace: it is not compiled and " + why
                   : "call to " + callee + " is not compiled: the trace is stitched around it";
  // The catalog's advice for RETURN is about results forwarded to another
  // call; the other causes ask for something else.
  if (ends && why == whyEnds(true, false))
    f.advice = callee == "error" ? "Nothing to change while this error path stays rare; where it runs often, "
                                   "return nil and a message instead of raising an error."
                                 : "Keep this call out of hot code: no trace continues past it.";
  else if (ends && why == whyEnds(false, true))
    f.advice = "Call the function directly where it cannot fail, or put one pcall around the whole loop "
               "instead of one on every pass.";
  return f;
}

Confidence errorConfidence(const FunctionView& fn, std::size_t proto) {
  return fn.calls.underHotPcall(proto) ? Confidence::Likely : Confidence::Possible;
}

}  // namespace ljcheck::rules
