// The one list of rule families. Adding a rule family adds a line here, a
// file beside this one, fixtures and a page under docs/reasons/.
#include <algorithm>

#include "flow/instruction_effects.h"
#include "flow/loops.h"
#include "rules/prediction_sink.h"
#include "rules/rule.h"

namespace ljcheck::rules {

std::unique_ptr<Rule> makeClosureRule();
std::unique_ptr<Rule> makeVarargRule();
std::unique_ptr<Rule> makeCallSplitRule();
std::unique_ptr<Rule> makeRecordedVariantRule();
std::unique_ptr<Rule> makeFfiCallRule();
std::unique_ptr<Rule> makeJitOffRule();
std::unique_ptr<Rule> makeInnerLoopRule();
std::unique_ptr<Rule> makeRecursionRule();
std::unique_ptr<Rule> makeFrameReturnRule();

const std::vector<std::unique_ptr<Rule>>& allRules() {
  static const std::vector<std::unique_ptr<Rule>> rules = [] {
    std::vector<std::unique_ptr<Rule>> v;
    v.push_back(makeClosureRule());
    v.push_back(makeVarargRule());
    v.push_back(makeCallSplitRule());
    v.push_back(makeRecordedVariantRule());
    v.push_back(makeFfiCallRule());
    v.push_back(makeJitOffRule());
    v.push_back(makeInnerLoopRule());
    v.push_back(makeRecursionRule());
    v.push_back(makeFrameReturnRule());
    return v;
  }();
  return rules;
}

namespace {

// Keeps the certain aborts at calls a rule finds (refusedCallsOf).
class RefusedCallSink final : public PredictionSink {
 public:
  explicit RefusedCallSink(std::vector<std::vector<int>>& out) : out_(out) {}
  void report(const FunctionView& fn, Finding finding) override {
    if (!finding.aborts || finding.confidence != Confidence::Certain || finding.most != Confidence::Certain ||
        finding.sideTrace || finding.calleeTraces || finding.pc <= 0)
      return;
    const std::size_t proto = finding.proto == SIZE_MAX ? fn.index : finding.proto;
    if (proto < out_.size() && flow::isCall(fn.chunk.prototypes[proto].at(finding.pc).op))
      out_[proto].push_back(finding.pc);
  }

 private:
  std::vector<std::vector<int>>& out_;
};

}  // namespace

std::vector<std::vector<int>> refusedCallsOf(std::size_t prototypes,
                                             const std::function<FunctionView(std::size_t)>& view) {
  std::vector<std::vector<int>> out(prototypes);
  RefusedCallSink sink(out);
  for (const auto& rule : allRules()) {
    if (rule->name() != "ffi-calls") continue;
    for (std::size_t i = 0; i < prototypes; ++i) rule->check(view(i), sink);
  }
  for (auto& pcs : out) {
    std::sort(pcs.begin(), pcs.end());
    pcs.erase(std::unique(pcs.begin(), pcs.end()), pcs.end());
  }
  return out;
}

Context contextOf(const flow::CallGraph& calls, const bytecode::Chunk& chunk, std::size_t proto, int pc) {
  if (calls.inLoop(proto, pc)) return Context::Loop;
  return proto + 1 == chunk.prototypes.size() ? Context::Main : Context::Function;
}

flow::Value calleeAt(const FunctionView& fn, int pc) {
  return fn.values.at(fn.index, pc, flow::calleeSlot(fn.proto.at(pc)));
}

int loopLine(const FunctionView& fn, int pc) {
  const flow::Loop* loop = fn.loops.innermost(pc);
  if (!loop) return 0;
  // A numeric or generic for: its FORI/ITERC sits before the body; the
  // first body instruction has the `for` line for while loops too.
  int at = loop->first > 1 ? loop->first - 1 : loop->first;
  return fn.proto.at(loop->kind == flow::Loop::Kind::While ? loop->first : at).line;
}

std::string loopEvidence(const flow::CallGraph& calls, const flow::HeatEvidence& e) {
  if (!e.unknownTrips) {
    std::string n = std::to_string(e.iterations);
    bool nested = e.loop && e.loop->count != e.iterations;
    std::string from = e.loop && !e.loop->countFrom.empty() ? " (" + e.loop->countFrom + ")" : "";
    const std::string hotloop = std::to_string(calls.hotloop());
    return (nested ? ", which runs " + n + " times with the loops around it" : ", which runs " + n + " times") +
           from +
           (e.iterations < calls.hotloop() ? " (fewer than hotloop, " + hotloop + ")"
            : e.sharedCounter
                ? " (fewer than " + std::to_string(3 * calls.hotloop() / 2) + ", one and a half times hotloop, and "
                  "its body calls Lua functions that call others or loop, whose hot counters count too: LuaJIT "
                  "hashes hot counters into 64 slots, and one that shares the loop's and fires first resets it, so "
                  "in some runs the loop never gets hot, so likely)"
            : e.barelyHot ? " (just enough for hotloop, " + hotloop + ": the try its hot counter starts may leave "
                            "the loop, or find no turn left, before it records this, so likely)"
                          : "");
  }
  if (e.iterations >= calls.hotloop())
    return ", inside loops that run " + std::to_string(e.iterations) + " times";
  if (e.leavesEarly && e.leavesEarly->leavesByYield) {
    std::string which = e.leavesEarly == e.loop ? std::string(" and yields at line ")
                                                : ": the loop at line " + std::to_string(e.leavesEarly->line) +
                                                      " yields at line ";
    return ", which runs at most " + std::to_string(e.atMost) + " times" + which +
           std::to_string(e.leavesEarly->leavesAt) +
           ", so how many turns run the code that resumes the coroutine decides";
  }
  if (e.leavesEarly) {
    std::string which = e.leavesEarly == e.loop ? std::string(" and can be left early")
                                                : ": the loop at line " + std::to_string(e.leavesEarly->line) +
                                                      " can be left early";
    return ", which runs at most " + std::to_string(e.atMost) + " times" + which + " (line " +
           std::to_string(e.leavesEarly->leavesAt) + "), so how often only the run shows";
  }
  return ", whose trip count the bytecode does not show";
}

namespace {

// Why a function only possibly hot may run hot: it escapes, or a function
// that calls it does ("which escapes, ..."; "which is called from compile
// at line 4, and compile from add at line 5, which escapes, ...").
std::string escapingCallers(const FunctionView& fn, std::size_t proto) {
  const std::string escapes = "which escapes, so code elsewhere may call it hot";
  if (fn.calls.escapes(proto) || fn.calls.externalCaller(proto)) return escapes;
  std::string chain;
  std::size_t at = proto;
  for (int depth = 0; depth < 4; ++depth) {
    const flow::CallSite* from = nullptr;
    for (const auto& site : fn.calls.callers(at))
      if (fn.calls.heatAt(site.proto, site.pc) == flow::Heat::Possible && site.proto != at) {
        from = &site;
        break;
      }
    if (!from) break;
    chain += (chain.empty() ? "which is called from " : ", and " + functionName(fn, at) + " from ") +
             functionName(fn, from->proto) + " at line " + std::to_string(fn.chunk.prototypes[from->proto].at(from->pc).line);
    at = from->proto;
    if (fn.calls.escapes(at) || fn.calls.externalCaller(at)) return chain + ", " + escapes;
  }
  return chain.empty() ? escapes : chain + ", which code that escapes calls, so code elsewhere may call it hot";
}

// Code that leads to its function's tail call of itself (HeatEvidence::tailRecursion).
std::string tailRecursionWhy(const std::string& function, int line) {
  return function + " tail-calls itself at line " + std::to_string(line) +
         ", so each such call runs this again, as a loop's turn does, as many times as the data decides";
}

// Why the function `proto` (called `name`) runs hot: its hottest call, and
// when that caller only "runs hot" too, why it does, up to kChain callers
// ("f is called at line 9 from g, which runs hot: g is called from the loop
// at line 20, ..."), so the reasoning names the evidence itself.
constexpr int kChain = 4;
std::string whyCalledHot(const FunctionView& fn, std::size_t proto, const std::string& name, int depth) {
  if (const flow::ExternalCaller* caller = fn.calls.externalCaller(proto)) return caller->why;
  // The caller whose heat is the function's; else the hottest one (a call
  // whose own heat the function does not take in full, as one right after
  // a pairs loop of code that runs once). "Escapes" only when no call in
  // this file reaches it.
  // Of the calls as hot as the function, the one that runs most often: the
  // count a warning or an error gives is that call's (CallGraph::runsAt).
  // Of those that run as often, the one sure to run on the most of those
  // runs, then one in a loop of its caller over one whose caller is called
  // from a loop: the shorter chain of evidence (audit 105: resolver's
  // parse_response was said to run hot through `_tcp_query`, called only
  // after a truncated reply, not through the call next to it in the loop).
  const flow::CallSite* hottest = nullptr;
  bool asHot = false;  // the caller's heat is the function's
  long hottestRuns = -1, hottestSteady = -1;
  auto heatOf = [&](const flow::CallSite& site) {
    return flow::CallGraph::calleeHeat(fn.calls.evidenceAt(site.proto, site.pc));
  };
  for (const auto& site : fn.calls.callers(proto)) {
    if (heatOf(site) == fn.calls.heat(proto)) {
      const long runs = fn.calls.runsAt(site.proto, site.pc);
      if (!asHot || runs > hottestRuns) {
        hottest = &site;
        hottestRuns = runs;
        hottestSteady = -1;  // asked only when another call runs as often
      } else if (runs == hottestRuns) {
        if (hottestSteady < 0) hottestSteady = fn.calls.steadyRunsAt(hottest->proto, hottest->pc);
        const long steady = fn.calls.steadyRunsAt(site.proto, site.pc);
        const auto inLoop = [&](const flow::CallSite& s) { return fn.calls.evidenceAt(s.proto, s.pc).loop != nullptr; };
        if (steady > hottestSteady || (steady == hottestSteady && inLoop(site) && !inLoop(*hottest))) {
          hottest = &site;
          hottestSteady = steady;
        }
      }
      asHot = true;
      continue;
    }
    if (!asHot && (!hottest || heatOf(site) > heatOf(*hottest))) hottest = &site;
  }
  if (!hottest || (!asHot && fn.calls.escapes(proto))) return name + " escapes, so code elsewhere may call it hot";
  const flow::CallSite& site = *hottest;
  int line = fn.chunk.prototypes[site.proto].at(site.pc).line;
  flow::HeatEvidence caller = fn.calls.evidenceAt(site.proto, site.pc);
  // A caller in the function's own cycle of recursion is no evidence: its
  // heat is the function's. The loop around the call is.
  const bool ownCycle = fn.calls.recursive(proto) && fn.calls.component(site.proto) == fn.calls.component(proto);
  if (caller.loop && ownCycle) {
    std::string through = site.proto == proto ? name + " calls itself at line " + std::to_string(line)
                                              : name + " is called back through " + functionName(fn, site.proto) +
                                                    " at line " + std::to_string(line) + " (recursion)";
    return through + " in the loop at line " + std::to_string(caller.loop->line) + loopEvidence(fn.calls, caller);
  }
  if (caller.loop && caller.heat > fn.calls.heat(site.proto))
    return name + " is called from the loop at line " + std::to_string(caller.loop->line) +
           loopEvidence(fn.calls, caller);
  std::string callerName = functionName(fn, site.proto);
  std::string called = name + " is called at line " + std::to_string(line) + " from " + callerName;
  if (caller.tailRecursion) return called + ", where " + tailRecursionWhy(callerName, caller.tailRecursion);
  // A hot caller's call in a loop that may not turn (CallGraph::evidence):
  // that loop is the evidence, then why the caller runs hot.
  if (caller.loop && flow::CallGraph::calleeHeat(caller) < caller.heat) {
    // The loop whose turns are unknown, which may be one around the innermost.
    const flow::LoopTrips& named = caller.unknownLoop && !caller.leavesEarly ? *caller.unknownLoop : *caller.loop;
    called += ", in the loop at line " + std::to_string(named.line) + loopEvidence(fn.calls, caller);
    if (ownCycle || depth + 1 >= kChain) return called + "; " + callerName + " runs hot";
    return called + "; " + callerName + " runs hot: " + whyCalledHot(fn, site.proto, callerName, depth + 1);
  }
  if (caller.onceOnlyLine)
    return called + ", where it initializes a value once (the test at line " + std::to_string(caller.onceOnlyLine) +
           " skips the call when the value is set), so it runs once per key, not on every pass, unless every "
           "pass brings a new key (a fresh object each turn)";
  if (fn.calls.heat(site.proto) < flow::Heat::Likely) return called + ", " + escapingCallers(fn, site.proto);
  if (ownCycle || depth + 1 >= kChain) return called + ", which runs hot";
  return called + ", which runs hot: " + whyCalledHot(fn, site.proto, callerName, depth + 1);
}

// Why the function around the instruction runs hot: its own loop, or its hottest caller.
std::string whyFunctionHot(const FunctionView& fn, const flow::HeatEvidence& e, const std::string& name) {
  std::string inLoop;
  if (e.loop) {
    inLoop = "it runs in the loop at line " + std::to_string(e.loop->line) + loopEvidence(fn.calls, e);
    // The loop's own evidence is the stronger one, or the function is no hotter.
    flow::Heat own = e.iterations >= fn.calls.hotloop() ? flow::Heat::Known
                     : e.unknownTrips                   ? flow::Heat::Likely
                                                        : flow::Heat::Cold;
    if (own >= fn.calls.heat(fn.index)) return inLoop;
    inLoop += ", and ";
  }
  return inLoop + whyCalledHot(fn, fn.index, name, 0);
}

}  // namespace

std::string whyFunctionHot(const FunctionView& fn) {
  return whyFunctionHot(fn, flow::HeatEvidence{}, functionName(fn, fn.index));
}

namespace {

// Why a side trace after a pairs loop costs little: the code around it is
// entered rarely, as far as this file shows. Only the main chunk is known to
// run once; a function that escapes may be entered more often elsewhere.
std::string onceClause(const FunctionView& fn, const std::string& name) {
  if (fn.isMain()) return "; the main chunk runs once, so this costs one attempt";
  std::string clause = "; no loop or hot code of this file calls " + name + ", so this costs one attempt per call";
  if (fn.calls.escapes(fn.index) || fn.calls.externalCaller(fn.index))
    clause += " (it escapes: code elsewhere may call it more often)";
  return clause;
}

}  // namespace

std::string whyHot(const FunctionView& fn, int pc) {
  flow::HeatEvidence e = fn.calls.evidenceAt(fn.index, pc);
  std::string name = functionName(fn, fn.index);
  if (e.onceOnlyLine)
    return "it initializes a value once (the test at line " + std::to_string(e.onceOnlyLine) +
           " skips it when the value is set), so it runs once per key, not on every pass, unless every pass "
           "brings a new key (a fresh object each turn)";
  if (e.tailRecursion) return tailRecursionWhy(name, e.tailRecursion);
  if (e.afterLoop)
    return "it runs after the loop at line " + std::to_string(e.afterLoop->line) +
           (e.afterLoop->known ? ", which runs " + std::to_string(e.afterLoop->count) + " times"
                               : ", whose trip count the bytecode does not show") +
           ", and " + name + " is entered at least " + std::to_string(fn.calls.hotexit()) +
           " times (hotexit): a side trace from the loop's exit records it";
  if (e.iterExit) {
    const flow::LoopTrips& loop = *e.iterExit;
    std::string trips = loop.known ? ", which runs " + std::to_string(loop.count) + " times"
                                   : ", whose trip count the bytecode does not show";
    return "it runs right after the pairs/next loop at line " + std::to_string(loop.line) + trips +
           ": once that loop is hot, its exit resumes at the loop's ITERN, which jumps back into the "
           "loop's trace, so the exit repeats until hotexit (" + std::to_string(fn.calls.hotexit()) +
           ") and a side trace records this code on the loop's first exit" + (e.once ? onceClause(fn, name) : "");
  }
  std::string reasons = whyFunctionHot(fn, e, name);
  if (e.pastLoop) {
    if (int around = flow::jumpAround(fn.proto, e.pastLoop->first, e.pastLoop->last, pc))
      return reasons + "; it runs after the loop at line " + std::to_string(e.pastLoop->line) +
             ", which the branch at line " + std::to_string(around) +
             " can go around: a root trace that records a pass through that loop stops there (inner loop, "
             "LINNER), and one that records a pass around it aborts here, on every pass that goes around it, "
             "until its start is blacklisted; which one depends on the data";
    reasons += "; it runs after the loop at line " + std::to_string(e.pastLoop->line) + ", where a root trace entering " +
               name + " stops (inner loop, LINNER), unless the loop keeps leaving after a few turns, which such a "
               "trace then unrolls (lj_record.c: innerloopleft), or one that resumes after a call before it that "
               "split the trace; otherwise side traces record it, " +
               sideTraceFate(fn.profile);
  }
  return reasons;
}

}  // namespace ljcheck::rules

