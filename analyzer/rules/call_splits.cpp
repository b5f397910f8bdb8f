// STITCH:<name> and RETURN:<name>: a call to a function the profile says has
// no recorder (or a plain C function, STITCH:C) splits the trace. The trace
// is stitched around the call, unless the results feed a variable-count
// operation (the next instruction is CALLM, CALLMT, RETM or TSETM), the call
// is made through pcall, or the callee never stitches (error, debug.sethook,
// jit.flush): then the trace just ends there (RETURN). A tail call leaves no
// frame behind, so its split is reported where the tail-calling function is
// called; a helper called from two or more sites of one loop also starts a
// trace at its own entry, which ends at the tail call (RETURN), unless it
// stitches on every path before the tail call: that trace ends at the
// stitch, and the RETURN of its continuation lands at one calling site,
// which a certain one ends the caller's trace at (what follows is masked).
// A call whose arguments come from such a RETURN just before it is never
// recorded.
// Operators on objects of C modules call C metamethods: RETURN:C
// (c_metamethods.cpp).
#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "flow/instruction_effects.h"
#include "flow/module_member.h"
#include "flow/refused_bytecodes.h"
#include "rules/masking.h"
#include "rules/prediction_sink.h"
#include "rules/rule.h"
#include "rules/split_finding.h"

namespace ljcheck::rules {
namespace {

using flow::Value;

// The fast-function name (or "C") of an unrecorded callee; empty otherwise.
std::string unrecordedName(const FunctionView& fn, const Value& v) {
  if (v.is(Value::Kind::CFunction) || v.is(Value::Kind::CModuleFunction) || v.is(Value::Kind::CModuleResult))
    return std::string(kPlainCSubject);
  if (!v.is(Value::Kind::LibFunction)) return {};
  const FastFunctionDef* ff = fn.profile.fastFunction(v.name);
  return ff && !ff->recorded() ? ff->name : std::string();
}

std::string unrecordedWhy(const std::string& subject) {
  return subject == kPlainCSubject ? "a plain C function the recorder cannot compile"
                        : "a fast function without a recorder in this profile";
}

// A function of a C module: what shows it is C, and how sure that is. A
// member of the module's table is C (luaopen_* fills it with C functions);
// a method of a value one returns, or a function one returns, is C when the
// value is a userdata or a closure made in C, which the code does not show.
bool fromCModule(const Value& v) { return v.is(Value::Kind::CModuleFunction) || v.is(Value::Kind::CModuleResult); }

void addCModuleEvidence(const FunctionView& fn, const Value& v, Finding& f) {
  if (!fromCModule(v)) return;
  std::string module(v.cModuleName());
  f.reasoning += "; " + module + " is a C module: " + fn.values.cModuleEvidence(module);
  if (v.is(Value::Kind::CModuleResult)) {
    f.confidence = std::min(f.confidence, Confidence::Likely);
    f.reasoning += "; the function called is one a C function returned, taken for a C closure";
  } else if (v.pc == 1) {
    // A method of a value a C function returned: a userdata's C method when
    // the file shows the module's values are objects, else taken for one.
    std::string objects = fn.values.cModuleObjectEvidence(module);
    if (objects.empty()) {
      f.confidence = std::min(f.confidence, Confidence::Likely);
      f.reasoning += "; the receiver is a value a C function returned, taken for a userdata with C methods";
    } else {
      f.reasoning += "; the receiver is a value a C function returned, and " + module + " values are objects here (" +
                     objects + "): its methods are C functions of the module";
    }
  }
}

// The call's last argument is the results of an unrecorded call made just
// before it (`os.time(os.date("*t"))`): that call ends the trace, because
// its results feed a variable-count call (RETURN), and no trace starts
// between the two, so this call only ever runs in the interpreter.
bool afterTraceEndingCall(const FunctionView& fn, int pc) {
  const auto& call = fn.proto.at(pc);
  if ((call.op != bytecode::Op::CALLM && call.op != bytecode::Op::CALLMT) || pc < 2) return false;
  const auto& inner = fn.proto.at(pc - 1);
  if ((inner.op != bytecode::Op::CALL && inner.op != bytecode::Op::CALLM) || inner.b != 0) return false;
  return !unrecordedName(fn, resolveCallee(fn, pc - 1).value).empty();
}

// A call of another file's module function that tail-calls an unrecorded
// library function: for splits, a call of that library function here.
const flow::TailCalledBuiltin* importedTailCall(const FunctionView& fn, const Value& v) {
  if (!fn.tailCalls || !v.is(Value::Kind::ModuleMember)) return nullptr;
  auto it = fn.tailCalls->find(v.name);
  return it == fn.tailCalls->end() ? nullptr : &it->second;
}

// "lib:words" as the code spells it, "lib.words"; "lib:open():read" as "lib.open():read".
std::string memberAsWritten(std::string_view name) { return flow::ModuleMemberName::parse(name).asWritten(); }

// "tail-calls string.gmatch at line 17 of lib.lua, a fast function without a recorder …"
std::string tailCallsWhy(const flow::TailCalledBuiltin& via, const std::string& subject) {
  return "tail-calls " + via.builtin + " at line " + std::to_string(via.line) + " of " + via.definedIn + ", " +
         unrecordedWhy(subject);
}

// Whether every return of the function that a path reaches is a tail call
// of `builtin` (`if utc then return os.time(t) else return os.time() end`):
// each call makes one of them, so no branch goes around the split (audit
// 67: "a branch can go around" there was false; `-jv` stitches on every call).
bool everyReturnTailCalls(const FunctionView& fn, std::string_view builtin) {
  for (int pc = 1; pc <= fn.proto.size(); ++pc) {
    const bytecode::Op op = fn.proto.at(pc).op;
    const bool plainReturn =
        op == bytecode::Op::RET || op == bytecode::Op::RET0 || op == bytecode::Op::RET1 || op == bytecode::Op::RETM;
    if (plainReturn && fn.values.reached(fn.index, pc)) return false;
    if (flow::isTailCall(op) && resolveCallee(fn, pc).value.name != builtin) return false;
  }
  return true;
}

// A tail call a branch of its function can go around, where the heat is
// known: the data decides whether hot calls get there (audits 50, 64, 67),
// so likely at most. One that ends the trace still masks what follows its
// calling site on the passes that reach it: only the claim is capped
// (Finding::most). `clause` names the branch for the reasoning.
void capBehindBranch(Finding& f, bool ends, const std::string& clause) {
  if (ends) f.most = Confidence::Likely;
  else f.confidence = std::min(f.confidence, Confidence::Likely);
  f.reasoning += "; " + clause;
}

// Why the error path is that sure (errorConfidence).
std::string errorPathWhy(const FunctionView& fn, std::size_t proto) {
  if (fn.calls.underHotPcall(proto)) return "; it runs under a pcall of this file that runs hot, which catches the error";
  if (fn.calls.underPcall(proto))
    return "; it runs under a pcall of this file, but none that runs hot: an error path rarely runs hot";
  return "; an error path rarely runs hot";
}

// The hot call sites of a function that share one loop, in pc order: each
// turn of the loop enters the function once per site.
std::vector<flow::CallSite> hotSitesInOneLoop(const FunctionView& fn) {
  std::map<std::pair<std::size_t, int>, std::vector<flow::CallSite>> byLoop;
  for (const auto& site : fn.calls.callers(fn.index)) {
    if (!fn.calls.runsHot(site.proto, site.pc)) continue;
    const flow::LoopTrips* loop = fn.calls.evidenceAt(site.proto, site.pc).loop;
    if (loop) byLoop[{site.proto, loop->first}].push_back(site);
  }
  std::vector<flow::CallSite> most;
  for (auto& [loop, sites] : byLoop)
    if (sites.size() > most.size()) most = std::move(sites);
  std::sort(most.begin(), most.end(), [](const auto& a, const auto& b) { return a.pc < b.pc; });
  return most;
}

// The RETURN of an unrecorded builtin's tail call in a helper's own trace
// (ownTraceReturn, split_finding.h).
void reportOwnTraceReturn(const FunctionView& fn, const std::string& subject, const Callee& callee,
                          PredictionSink& sink) {
  std::optional<Finding> f = ownTraceReturn(fn, subject, std::string(callee.value.name), unrecordedWhy(subject));
  if (!f) return;
  f->most = callee.mostClaimed();
  addCModuleEvidence(fn, callee.value, *f);
  sink.report(fn, std::move(*f));
}

}  // namespace

std::optional<Finding> ownTraceReturn(const FunctionView& fn, const std::string& subject, const std::string& name,
                                      const std::string& why) {
  if (fn.proto.isVararg()) return std::nullopt;
  std::vector<flow::CallSite> sites = hotSitesInOneLoop(fn);
  if (sites.size() < 2) return std::nullopt;
  long hotCalls = 2 * fn.calls.hotloop();
  const flow::CallSite& site = sites[static_cast<std::size_t>((hotCalls - 1) % static_cast<long>(sites.size()))];
  const auto& caller = fn.chunk.prototypes[site.proto];
  if (site.protectedCall || nextFeedsVariableCount(caller, site.pc)) return std::nullopt;  // already a RETURN there
  Finding f = splitFinding(site.pc, site.proto, subject, name, true,
                           "the trace started at the entry of " + functionName(fn, fn.index) +
                               ", which leaves no frame below the tail call to stitch back into");
  f.confidence = Confidence::Likely;
  f.calledAs = calledAs(fn, site);
  f.reasoning = functionName(fn, fn.index) + " tail-calls " + name + ", " + why + "; it is called " +
                std::to_string(sites.size()) + " times per turn of the loop at line " +
                std::to_string(fn.calls.evidenceAt(site.proto, site.pc).loop->line) +
                ", so its entry gets hot (" + std::to_string(hotCalls) +
                " calls) no later than the loop and starts a trace of its own, which ends at the tail call; the " +
                std::to_string(hotCalls) + "th call is made here when every site runs each turn";
  return f;
}

std::optional<OwnTraceAfterStitch> ownTraceAfterStitch(const FunctionView& fn) {
  if (fn.proto.isVararg()) return std::nullopt;
  OwnTraceAfterStitch own;
  own.sites = hotSitesInOneLoop(fn);
  if (own.sites.size() < 2) return std::nullopt;
  own.hotCalls = 2 * fn.calls.hotloop();
  own.lands = static_cast<std::size_t>(own.hotCalls % static_cast<long>(own.sites.size()));
  own.loopLine = fn.calls.evidenceAt(own.sites[0].proto, own.sites[0].pc).loop->line;
  return own;
}

namespace {

// The site's index among `sites`; sites.size() when it is not one of them.
std::size_t indexAmong(const std::vector<flow::CallSite>& sites, const flow::CallSite& site) {
  for (std::size_t k = 0; k < sites.size(); ++k)
    if (sites[k].proto == site.proto && sites[k].pc == site.pc) return k;
  return sites.size();
}

}  // namespace

bool OwnTraceAfterStitch::landsElsewhere(const flow::CallSite& site) const {
  const std::size_t k = indexAmong(sites, site);
  return k < sites.size() && k != lands;
}

void OwnTraceAfterStitch::explain(Finding& f, const flow::CallSite& site, const std::string& function) const {
  if (indexAmong(sites, site) != lands) return;
  f.reasoning += "; " + function + " is called " + std::to_string(sites.size()) + " times per turn of the loop at line " +
                 std::to_string(loopLine) + ", so its entry gets hot (" + std::to_string(hotCalls) +
                 " calls) before the loop does and starts a trace of its own, which ends at that stitch; the loop's "
                 "trace links to it at its first call, and the stitched continuation, which ends at the tail call, "
                 "is recorded once, in the call after the " + std::to_string(hotCalls) + "th: this one when every "
                 "site runs each turn";
  if (sites.size() > 2) f.confidence = std::min(f.confidence, Confidence::Likely);
}

namespace {

// A function that C code calls back (string.gsub's replacement, table.sort's
// comparator) from a call that runs in a hot loop is entered from C on
// every call, so its entry gets hot (2 * hotloop calls) and starts a trace of
// its own. A tail call to an unrecorded function ends that trace (RETURN:
// no Lua frame lies below it to stitch back into), and the collector reports
// it at the trace's start: the function's first line. A vararg function
// (FUNCV) is never hot-counted.
void reportCallbackReturn(const FunctionView& fn, const std::string& subject, const Callee& callee,
                          PredictionSink& sink) {
  if (fn.proto.isVararg()) return;
  for (const auto& site : fn.calls.callbacks(fn.index)) {
    flow::HeatEvidence e = fn.calls.evidenceAt(site.proto, site.pc);
    if (e.heat < flow::Heat::Likely || !e.loop) continue;
    const auto& caller = fn.chunk.prototypes[site.proto];
    Value library = fn.values.at(site.proto, site.pc, flow::calleeSlot(caller.at(site.pc)));
    std::string name(callee.value.name), self = functionName(fn, fn.index);
    Finding f = splitFinding(0, SIZE_MAX, subject, name, true,
                             "the trace started at the entry of " + self +
                                 ", which C code calls back: no Lua frame lies below the tail call to stitch back into");
    f.construct = "closure";  // the function's header, as for CJITOFF: the `function` keyword
    f.confidence = Confidence::Likely;
    f.hotByEvidence = true;
    f.reasoning = self + " tail-calls " + name + ", " + unrecordedWhy(subject) + "; " + std::string(library.name) +
                  " calls it back from C at line " + std::to_string(caller.at(site.pc).line) + ", in the loop at line " +
                  std::to_string(e.loop->line) + loopEvidence(fn.calls, e) + ", so its entry gets hot (" +
                  std::to_string(2 * fn.calls.hotloop()) +
                  " calls) and starts a trace of its own, which ends at the tail call";
    addCModuleEvidence(fn, callee.value, f);
    sink.report(fn, std::move(f));
    return;  // one trace, one site
  }
}

class CallSplitRule final : public Rule {
 public:
  std::string_view name() const override { return "call-splits"; }
  std::vector<ReasonId> reasons(const RecorderProfile& profile) const override {
    std::vector<ReasonId> ids;
    for (SplitKind kind : {SplitKind::Stitch, SplitKind::Return}) {
      ids.push_back(ReasonId::split(kind, kPlainCSubject));
      for (const auto& ff : profile.fastFunctions)
        if (!ff.recorded()) ids.push_back(ReasonId::split(kind, ff.name));
    }
    return ids;
  }

  void check(const FunctionView& fn, PredictionSink& sink) const override {
    for (int pc = 1; pc <= fn.proto.size(); ++pc) {
      const auto& ins = fn.proto.at(pc);
      if (!flow::isCallOrIterator(ins.op)) continue;
      Callee callee = resolveCallee(fn, pc);
      const flow::TailCalledBuiltin* via = importedTailCall(fn, callee.value);
      std::string_view member = callee.value.name;
      if (via) {
        callee.value = Value::of(Value::Kind::LibFunction, via->builtin);
        callee.inferredReceiver = via->receiverInferred;
        callee.patternReceiver = false;
      }
      std::string subject = unrecordedName(fn, callee.value);
      if (subject.empty()) continue;  // unresolved, recorded or a Lua function
      if (callee.value.name == "os.exit") continue;  // it ends the process: it runs once, never hot
      if (afterTraceEndingCall(fn, pc)) continue;
      bool neverStitches = fn.profile.neverStitch.count(std::string(callee.value.name)) > 0;
      if (flow::isTailCall(ins.op)) {
        // The callee returns straight to our caller: judge at each hot call
        // site, unless a closure made for the call aborts the trace first
        // (in a loop body, masking hides the split; here it lands elsewhere).
        if (closureArgumentAbortsFirst(fn, pc)) continue;
        const StitchBefore before = stitchBeforeTailCall(fn, pc);
        if (before.abortLine) continue;  // no trace gets to the tail call
        if (traceEndsBefore(fn, pc)) continue;  // nor past a sure RETURN on every path
        const auto own = before.line > 0 && !via ? ownTraceAfterStitch(fn) : std::nullopt;
        const flow::LoopTrips* loopBefore = via ? nullptr : loopBeforeTailCall(fn, pc);
        for (const auto& [site, called] : tailCallLandings(fn, fn.index)) {
          if (!fn.calls.runsHot(site.proto, site.pc)) continue;
          const auto& caller = fn.chunk.prototypes[site.proto];
          bool ends = neverStitches || site.protectedCall || nextFeedsVariableCount(caller, site.pc);
          std::string why = whyEnds(neverStitches, false);
          if (!ends && own && own->landsElsewhere(site)) continue;
          if (!ends && (before.line > 0 || (via && via->stitchLine > 0))) {
            ends = true;
            why = kAfterStitchEnds;
          }
          const bool afterLoop = !ends && loopBefore;
          if (afterLoop) {
            ends = true;
            why = kAfterLoopEnds;
          }
          Finding f = splitFinding(site.pc, site.proto, subject, std::string(callee.value.name), ends, why);
          f.endsTrace = ends;  // the caller's trace ends at this call: what follows it there is not recorded
          f.calledAs = site.protectedCall ? std::string("pcall") : functionName(fn, called);
          // Through a helper that tail-calls this function in turn: named.
          const std::string through =
              called == fn.index ? std::string() : " (through " + functionName(fn, called) + ", which tail-calls it)";
          f.reasoning = via ? functionName(fn, fn.index) + " tail-calls " + memberAsWritten(member) + ", which " +
                                  tailCallsWhy(*via, subject) +
                                  "; neither tail call leaves a frame, so the split lands at this call; " +
                                  whyHot(fn.of(site.proto), site.pc)
                            : functionName(fn, fn.index) + " tail-calls " + std::string(callee.value.name) + ", " +
                                  unrecordedWhy(subject) +
                                  "; the tail call leaves no frame, so the split lands at this call" + through +
                                  "; " + whyHot(fn.of(site.proto), site.pc);
          if (callee.value.name == "error") f.confidence = errorConfidence(fn, site.proto);
          else if (callee.inferredReceiver && !callee.patternReceiver) f.confidence = Confidence::Likely;
          f.most = callee.mostClaimed();
          // Behind a branch of the callee that can go around it, whether the
          // tail call stitches or ends a trace that started after a stitch
          // (audit 64: a `return print(...)` behind `if st.verbose`, never
          // taken). Where the heat is only inferred, it is likely already.
          if (fn.calls.evidenceAt(site.proto, site.pc).heat == flow::Heat::Known &&
              (via ? via->behindBranch
                   : !fn.calls.onEveryCall(fn.index, pc) && !everyReturnTailCalls(fn, callee.value.name)))
            capBehindBranch(f, ends, "a branch of " + (via ? memberAsWritten(member) : functionName(fn, fn.index)) +
                                         " can go around the tail call");
          if (afterLoop) {
            explainLoopBeforeTailCall(fn, *loopBefore, f);
          } else if (ends && !neverStitches && !site.protectedCall && !nextFeedsVariableCount(caller, site.pc)) {
            if (before.line > 0) {
              f.reasoning += "; " + stitchBeforeWhy(functionName(fn, fn.index), before.callee, before.line, "");
              f.confidence = std::min(f.confidence, before.confidence);
              if (own) own->explain(f, site, functionName(fn, fn.index));
            } else {
              f.reasoning += "; " + stitchBeforeWhy(memberAsWritten(member), via->stitchCallee, via->stitchLine,
                                                    " of " + via->definedIn);
            }
          }
          if (!via)
            if (std::string bound = boundCalleeWhy(fn, pc, callee); !bound.empty()) f.reasoning += "; " + bound;
          addCModuleEvidence(fn, callee.value, f);
          sink.report(fn, std::move(f));
        }
        if (via) continue;  // the rest is about this function's own tail call
        // After a stitch on every path, this function's own trace ends at
        // that stitch, not at the tail call.
        if (!neverStitches && before.line == 0) reportOwnTraceReturn(fn, subject, callee, sink);
        reportCallbackReturn(fn, subject, callee, sink);
        continue;
      }
      if (!runsHot(fn, pc)) continue;
      bool ends = neverStitches || callee.protectedCall || nextFeedsVariableCount(fn.proto, pc);
      const bool afterStitch = !ends && via && via->stitchLine > 0;  // in the other file's function
      Finding f = splitFinding(pc, SIZE_MAX, subject, std::string(callee.value.name), ends || afterStitch,
                               afterStitch ? kAfterStitchEnds : whyEnds(neverStitches, callee.protectedCall));
      f.endsTrace = ends;
      if (!via) f.most = callee.mostClaimed();
      f.reasoning = via ? memberAsWritten(member) + " " + tailCallsWhy(*via, subject) + "; the tail call leaves no frame of " +
                              memberAsWritten(member) + ", so the split lands at this call; " + whyHot(fn, pc)
                        : "the callee resolves to " + std::string(callee.value.name) + ", " + unrecordedWhy(subject) +
                              "; " + whyHot(fn, pc);
      if (afterStitch)
        f.reasoning += "; " + stitchBeforeWhy(memberAsWritten(member), via->stitchCallee, via->stitchLine,
                                              " of " + via->definedIn);
      if (via) {
        if (via->receiverInferred) {
          f.confidence = Confidence::Likely;
          f.reasoning += "; in " + via->definedIn + " the receiver is taken for a string by what its method gets";
        }
        // As for a tail call behind a branch in this file (audit 67: `if
        // M.level >= 3 then return print(...) end` in another file); where
        // the heat is only inferred, it is likely already.
        if (via->behindBranch && fn.calls.evidenceAt(fn.index, pc).heat == flow::Heat::Known)
          capBehindBranch(f, ends || afterStitch,
                          "a branch of " + memberAsWritten(member) + " can go around its tail call");
      } else if (callee.patternReceiver) {
        f.reasoning += "; the receiver is taken for a string because its method gets a Lua pattern";
      } else if (callee.inferredReceiver) {
        f.confidence = Confidence::Likely;
        f.reasoning += "; the receiver is taken for a string because the method gets " + callee.patternWhy;
      } else if (callee.receiverByName) {
        f.reasoning += "; the receiver, whose type the bytecode does not show, is taken for a string by the "
                       "method's name";
      } else if (!callee.receiverEvidence.empty()) {
        f.reasoning += "; " + callee.receiverEvidence;
      }
      if (!via)
            if (std::string bound = boundCalleeWhy(fn, pc, callee); !bound.empty()) f.reasoning += "; " + bound;
      addCModuleEvidence(fn, callee.value, f);
      if (callee.value.name == "error" && !callee.protectedCall) {
        f.confidence = errorConfidence(fn, fn.index);
        f.reasoning += errorPathWhy(fn, fn.index);
      }
      sink.report(fn, std::move(f));
    }
    checkCMetamethods(fn, sink);
  }

};

}  // namespace

std::optional<CallSplit> splitAt(const FunctionView& fn, int pc) {
  const auto& ins = fn.proto.at(pc);
  if (ins.op != bytecode::Op::CALL && ins.op != bytecode::Op::CALLM) return {};
  const Callee resolved = resolveCallee(fn, pc);
  if (resolved.protectedCall) return {};
  std::string name(resolved.value.name);
  CallSplit split;
  if (!unrecordedName(fn, resolved.value).empty()) {
    if (afterTraceEndingCall(fn, pc)) return {};
    split.confidence =
        resolved.inferredReceiver || resolved.receiverByName ? Confidence::Likely : Confidence::Certain;
    if (fromCModule(resolved.value)) split.confidence = Confidence::Likely;
    split.callee = resolved.value.is(Value::Kind::LibFunction) ? name : "a C function";
  } else if (std::optional<Confidence> sure = refusedVariantCall(fn, pc)) {
    split.confidence = *sure;
    split.callee = name;
  } else {
    return {};
  }
  // Results that feed a variable count (a stitched trace cannot start at a
  // CALLM, CALLMT, RETM or TSETM), or a builtin never stitched around.
  split.endsTrace = nextFeedsVariableCount(fn.proto, pc) || fn.profile.neverStitch.count(name) > 0;
  return split;
}

std::optional<Confidence> stitchesAt(const FunctionView& fn, int pc, std::string* callee) {
  std::optional<CallSplit> split = splitAt(fn, pc);
  if (!split || split->endsTrace) return {};
  if (callee) *callee = split->callee;
  return split->confidence;
}

StitchBefore stitchBeforeTailCall(const FunctionView& fn, int pc) {
  std::vector<int> stitches;
  std::vector<std::pair<std::string, Confidence>> what;  // by index into stitches
  for (int q = 1; q < pc; ++q) {
    std::string callee;
    if (std::optional<Confidence> sure = stitchesAt(fn, q, &callee)) {
      stitches.push_back(q);
      what.emplace_back(callee, *sure);
    }
  }
  if (stitches.empty()) return {};
  const Masking masking(fn.chunk, fn.index, fn.values, fn.calls, stitches);
  int q = masking.firstMasker(pc);
  if (q == 0) return {};
  auto k = static_cast<std::size_t>(std::find(stitches.begin(), stitches.end(), q) - stitches.begin());
  // Of several stitches every path runs through, the surest says how sure
  // the end is (audit: `tonumber(tostring(obj):match(p), 16)`, where
  // tostring of a parameter is a guess and the match of its string is not).
  for (std::size_t other = 0; other < stitches.size(); ++other) {
    if (what[other].second <= what[k].second) continue;
    const Masking alone(fn.chunk, fn.index, fn.values, fn.calls, {stitches[other]});
    if (alone.firstMasker(pc) != 0) k = other;
  }
  StitchBefore out{fn.proto.at(stitches[k]).line, what[k].first, what[k].second};
  // A refused bytecode every path from that stitch to the tail call runs
  // through: the trace that starts after the stitch aborts there, and none
  // reaches the tail call (audit 93: `coroutine.running()`, a callback
  // closure, then `return coroutine.yield()`; `-jv` on both builds: one
  // abort of the stitched trace at the closure, never a `return` link).
  std::vector<int> refused;
  for (int a = stitches[k] + 1; a < pc; ++a)
    if (flow::refuses(fn.profile, fn.proto.at(a).op)) refused.push_back(a);
  if (!refused.empty()) {
    const Masking after(fn.chunk, fn.index, fn.values, fn.calls, refused);
    if (int a = after.firstMasker(pc)) out.abortLine = fn.proto.at(a).line;
  }
  return out;
}

bool traceEndsBefore(const FunctionView& fn, int pc) {
  std::vector<int> ends;
  for (int q = 1; q < pc; ++q)
    if (flow::isCall(fn.proto.at(q).op))
      if (std::optional<CallSplit> split = splitAt(fn, q);
          split && split->endsTrace && split->confidence == Confidence::Certain)
        ends.push_back(q);
  return !ends.empty() && Masking(fn.chunk, fn.index, fn.values, fn.calls, ends).firstMasker(pc) != 0;
}

bool closureArgumentAbortsFirst(const FunctionView& fn, int pc) {
  const auto& call = fn.proto.at(pc);
  for (int k = 0; k < flow::fixedArgs(call); ++k) {
    Value v = fn.values.at(fn.index, pc, argumentSlot(fn, pc, k));
    if (!v.is(Value::Kind::LuaFunction) || fn.chunk.prototypes[v.proto].parent != fn.index) continue;
    // Made in the loop body around the call (or, outside loops, before it):
    // a closure made once before the loop is no abort on its passes.
    int created = fn.values.creatingPc(v.proto);
    if (created > 0 && created < pc && fn.loops.innermost(created) == fn.loops.innermost(pc)) return true;
  }
  return false;
}

std::optional<flow::TailCalledBuiltin> unrecordedTailCall(const FunctionView& fn) {
  for (int pc = 1; pc <= fn.proto.size(); ++pc) {
    const auto& ins = fn.proto.at(pc);
    if (!flow::isTailCall(ins.op)) continue;
    Callee callee = resolveCallee(fn, pc);
    if (callee.protectedCall || !callee.value.is(Value::Kind::LibFunction)) continue;
    if (unrecordedName(fn, callee.value).empty()) continue;
    if (afterTraceEndingCall(fn, pc) || closureArgumentAbortsFirst(fn, pc) || traceEndsBefore(fn, pc)) continue;
    flow::TailCalledBuiltin out{std::string(callee.value.name), callee.inferredReceiver || callee.receiverByName,
                                ins.line};
    out.behindBranch = !fn.calls.onEveryCall(fn.index, pc) && !everyReturnTailCalls(fn, callee.value.name);
    // Sure enough to carry to another file: a likely stitch stays behind.
    if (StitchBefore before = stitchBeforeTailCall(fn, pc); before.line > 0 && before.confidence == Confidence::Certain) {
      out.stitchLine = before.line;
      out.stitchCallee = before.callee;
    }
    return out;
  }
  return std::nullopt;
}

std::unique_ptr<Rule> makeCallSplitRule() { return std::make_unique<CallSplitRule>(); }

}  // namespace ljcheck::rules
