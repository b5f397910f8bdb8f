// Findings to Predictions (see prediction_sink.h).
#include "rules/prediction_sink.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "flow/instruction_effects.h"
#include "flow/loops.h"
#include "flow/refused_bytecodes.h"
#include "rules/blacklist_verdict.h"
#include "rules/interpreted_calls.h"
#include "rules/masking.h"
#include "rules/split_finding.h"
#include "rules/trace_splits_before.h"

namespace ljcheck::rules {

using bytecode::Op;

namespace {

// The local variable occupying `slot` just after `pc`: LuaJIT gives active
// locals consecutive slots in declaration order. Null when none does.
const std::string* localNameAt(const bytecode::Prototype& p, int pc, int slot) {
  int index = 0;
  for (const auto& v : p.vars) {
    if (v.startpc > pc + 1 || v.endpc <= pc) continue;
    if (index == slot) return &v.name;
    ++index;
  }
  return nullptr;
}

// A non-empty string constant of `p` at index d, or null. The name is
// copied once, into the result: this runs for every finding and for every
// reasoning sentence.
const std::string* stringKey(const bytecode::Prototype& p, std::uint16_t d) {
  const std::string* key = p.stringConstant(d);
  return key && !key->empty() ? key : nullptr;
}

// The name of the table in `slot` at `pc`, for a function stored in it
// (`function M.f`): a local, or the upvalue or global the slot was loaded
// from just before; empty when the bytecode does not show one.
std::string tableName(const bytecode::Prototype& p, int pc, int slot) {
  const std::string* local = localNameAt(p, pc, slot);
  if (local && !local->empty() && (*local)[0] != '(') return *local;
  for (int at = pc - 1; at >= 1 && at >= pc - 4; --at) {
    const auto& ins = p.at(at);
    if (ins.a != slot) continue;
    if (ins.op == Op::UGET && ins.d < p.upvalueNames.size()) return p.upvalueNames[ins.d];
    if (ins.op == Op::GGET)
      if (const std::string* key = stringKey(p, ins.d)) return *key;
    return {};
  }
  return {};
}

// `self` as the first parameter: defined with a colon (`function M:f`).
bool takesSelf(const bytecode::Prototype& p) {
  return p.numparams > 0 && !p.vars.empty() && p.vars.front().name == "self";
}

std::string nameOf(const FunctionView& fn, std::size_t index) {
  const bytecode::Chunk& chunk = fn.chunk;
  if (index + 1 == chunk.prototypes.size()) return "<main>";
  const auto& proto = chunk.prototypes[index];
  auto anonymous = [&] {
    std::string name;
    name.reserve(24);
    name += "<anonymous:";
    name += std::to_string(proto.firstline);
    name += '>';
    return name;
  };
  if (proto.parent == SIZE_MAX) return anonymous();
  const auto& parent = chunk.prototypes[proto.parent];
  // The FNEW that creates it, found once per chunk: a scan of the parent
  // per name made a file of many functions quadratic.
  int pc = fn.values.creatingPc(index);
  if (pc <= 0 || pc > parent.size()) return anonymous();
  const auto& ins = parent.at(pc);
  // `local function f` (or `local f = function`): the local's name, even
  // when the next statement stores it in a table (`t.alias = f`) and the
  // store follows the FNEW at once.
  const std::string* local = localNameAt(parent, pc, ins.a);
  if (local && !local->empty() && (*local)[0] != '(') return *local;
  if (pc < parent.size()) {
    const auto& next = parent.at(pc + 1);
    if (next.op == Op::GSET && next.a == ins.a)
      if (const std::string* key = stringKey(parent, next.d)) return *key;
    // `function M.f` / `function M:f`: qualified, so that two tables'
    // functions of one name are told apart (in reports and in baselines).
    if (next.op == Op::TSETS && next.a == ins.a)
      if (const std::string* key = stringKey(parent, next.c)) {
        std::string table = tableName(parent, pc, next.b);
        if (table.empty()) return *key;
        return table + (takesSelf(proto) ? ":" : ".") + *key;
      }
  }
  return anonymous();
}

}  // namespace

std::string sideTraceFate(const RecorderProfile& profile) {
  return "which blacklist no trace start: after " + std::to_string(profile.param("tryside", 4)) +
         " failed side traces (tryside) the VM leaves their exit to the interpreter, and only the passes that take "
         "it run interpreted from there";
}

std::string functionName(const FunctionView& fn, std::size_t index) {
  if (!fn.names || index >= fn.names->byProto.size()) return nameOf(fn, index);
  std::optional<std::string>& name = fn.names->byProto[index];
  if (!name) name = nameOf(fn, index);
  return *name;
}

namespace {
Confidence lowered(Confidence c) {
  return c == Confidence::Certain ? Confidence::Likely : Confidence::Possible;
}

// Why the passes that run pc of `proto` may be too few for a trace to
// record it, though the code around it runs hot: a branch that can go
// around it, a route around it that aborts elsewhere first, or the one
// hot call of its function (in this file or another; other calls too few
// to get it hot) that a branch can go around, leaving fewer passes sure to
// run it than get a loop hot. (Two calls may
// each be behind a branch and together run on every pass: `if c then
// helper(i) else helper(-i) end`, audit 54.) A clause for the reasoning;
// empty when every pass runs it.
// The pc of a call of `error` that the straight code after pc runs into
// (no jump, branch, loop or return in between), not through pcall; 0 when
// there is none, or the instruction at pc is that call.
int errorAhead(const FunctionView& fn, int pc) {
  for (int q = pc; q <= fn.proto.size(); ++q) {
    const bytecode::Instruction& ins = fn.proto.at(q);
    const flow::Flow f = flow::flowOf(ins, q);
    if (!f.fallsThrough || f.jump != 0 || f.skip != 0 || flow::leavesFunction(ins.op)) return 0;
    if (q == pc || !flow::isCall(ins.op)) continue;
    const Callee callee = resolveCallee(fn, q);
    if (callee.value.is(flow::Value::Kind::LibFunction) && callee.value.name == "error" && !callee.protectedCall)
      return q;
  }
  return 0;
}

std::string branchAround(const FunctionView& fn, std::size_t proto, int pc) {
  using Stop = flow::CallGraph::CountStop;
  Stop stop;
  const long steady = fn.calls.steadyRunsAt(proto, pc, &stop);
  const std::string data = ", so whether the passes a trace records run it depends on the data: likely";
  if (stop.kind == Stop::Kind::Branch)
    return "; " + stop.route() + " can go around it" + data;
  if (stop.abortingRoute > 0)
    return "; the path around it from line " + std::to_string(stop.abortingRoute) +
           " runs into another abort, which the passes that take it report instead" + data;
  const long hotloop = fn.calls.hotloop();
  const auto& callers = fn.calls.callers(proto);
  if (stop.kind != Stop::Kind::None || steady >= hotloop || steady >= fn.calls.runsAt(proto, pc)) return {};
  // From another file, the hottest call of function `p` behind a branch
  // there (audit 77: `if frame % 5000 == 0 then emitters[#emitters + 1] =
  // newEmitter(...) end`), when this file's own calls of `p` are too few to
  // get it hot. Null when no other file calls `p`.
  auto fromOtherFile = [&](std::size_t p) -> std::optional<std::string> {
    const flow::ExternalCaller* external = fn.calls.externalCaller(p);
    if (!external) return std::nullopt;
    const auto& own = fn.calls.callers(p);
    const bool coldHere = std::all_of(own.begin(), own.end(), [&](const flow::CallSite& site) {
      return fn.calls.runsAt(site.proto, site.pc) < hotloop;
    });
    if (!external->shortfallByBranch || external->steadyRuns >= hotloop || external->runs < hotloop || !coldHere)
      return std::string();
    return "; " + external->shortfall + ", so the passes sure to run it number " +
           std::to_string(std::max(steady, external->steadyRuns)) + ", fewer than the " + std::to_string(hotloop) +
           " that get a loop hot (hotloop)" + data;
  };
  if (std::optional<std::string> clause = fromOtherFile(proto)) return *clause;
  if (callers.empty()) return {};
  const std::string fewer = ", so the passes sure to run it number " + std::to_string(steady) + ", fewer than the " +
                            std::to_string(hotloop) + " that get a loop hot (hotloop)" + data;
  // The one call that runs hot; the others (a load-time loop of three
  // turns, audit 77) are too few to get anything hot. Up the chain of such
  // calls while each is on every pass of its function (audit 98: Bus:on,
  // called from Bus:once, called behind `if frame % 500 == 0`).
  std::size_t callee = proto;
  for (int depth = 0; depth < 4; ++depth) {
    const flow::CallSite* hot = nullptr;
    for (const flow::CallSite& site : fn.calls.callers(callee)) {
      if (fn.calls.runsAt(site.proto, site.pc) < hotloop) continue;
      if (hot) return {};
      hot = &site;
    }
    if (!hot) return {};
    Stop at;
    fn.calls.steadyRunsAt(hot->proto, hot->pc, &at);
    if (at.kind == Stop::Kind::Branch) return "; " + flow::CallGraph::describeStop(at, hot->line, "") + fewer;
    // A way around the call that aborts elsewhere counts for the loop's
    // runs, not for the calls (a branch that skips `slow(x)` and runs into a
    // closure: the passes that take it never enter the callee).
    if (at.abortingRoute > 0)
      return "; the path from line " + std::to_string(at.abortingRoute) + " goes around the call at line " +
             std::to_string(hot->line) + " and aborts elsewhere" + fewer;
    if (at.kind != Stop::Kind::None || hot->proto == callee) return {};
    // A helper another file calls behind a branch (audit 108: basexx's
    // closure two helpers below `if req.user then ... lib.encode(...)`).
    if (std::optional<std::string> clause = fromOtherFile(hot->proto)) return *clause;
    callee = hot->proto;
  }
  return {};
}

// When a call before pc in its loop (or from its function's entry) surely
// stitches inside a Lua callee whose stitched trace may abort before it
// returns (SplitBefore::resumedMayAbort): that clause, as a reason to be
// less sure; empty otherwise.
std::string resumedAbortBefore(const FunctionView& fn, std::size_t proto, int pc) {
  const FunctionView view = fn.of(proto);
  const flow::Loop* loop = view.loops.innermost(pc);
  const SplitBefore split = splitBefore(view, loop ? loop->first : 1, pc);
  if (split.resumedMayAbort.empty()) return {};
  return "; " + split.resumedMayAbort + ", and no trace records what follows the call then, so likely";
}
}  // namespace

void CollectingSink::report(const FunctionView& fn, Finding finding) {
  chunk_ = &fn.chunk;
  values_ = &fn.values;
  calls_ = &fn.calls;
  uclosAbort_ = flow::refuses(fn.profile, bytecode::Op::UCLO);
  const Reason* reason = fn.catalog.find(finding.reasonId.code());
  // Every reasonId a rule can emit is checked against the catalog by a test
  // (test_rule_reasons.cpp): one it does not know is a bug, never a default.
  if (!reason)
    throw std::logic_error("rule emitted " + finding.reasonId.str() + ", which the reason catalog does not know");
  std::size_t proto = finding.proto == SIZE_MAX ? fn.index : finding.proto;
  // Code after a goto, a break or `do return end` never runs: nothing is
  // recorded there (looked up for the functions with findings only).
  if (finding.pc > 0) {
    auto reached = reached_.find(proto);
    if (reached == reached_.end()) reached = reached_.emplace(proto, flow::reachablePcs(fn.chunk.prototypes[proto])).first;
    if (!reached->second[static_cast<std::size_t>(finding.pc)]) return;
    // Nor does code a test of a value of known truth skips.
    if (!fn.values.reached(proto, finding.pc)) return;
  }
  // Written in place: moving a Prediction (a dozen strings) into the list
  // cost as much as filling it.
  Pending& entry = pending_.emplace_back();
  Prediction& p = entry.prediction;
  const auto& code = fn.chunk.prototypes[proto];
  p.reasonId = std::move(finding.reasonId);
  p.reasonClass = reason->reasonClass;
  p.severity = reason->severity;
  // A blocker that runs hot for sure blacklists the loop (or function) its
  // trace starts in; in a function that is only possibly hot (it escapes,
  // its callers are elsewhere) any finding is a note, and less sure.
  // The heat where the trace runs: its start when the rule names one.
  std::size_t heatProto = finding.tracePc > 0 ? fn.index : proto;
  int heatPc = finding.tracePc > 0 ? finding.tracePc : finding.pc;
  const flow::HeatEvidence here = heatPc > 0 ? fn.calls.evidenceAt(heatProto, heatPc) : flow::HeatEvidence{};
  flow::Heat heat = heatPc > 0 ? here.heat : fn.calls.heat(proto);
  // Blacklisting takes eleven aborts, each doubling the start's penalty:
  // the runs RecorderProfile::loopBlacklisting counts (44,487 turns of a
  // loop on LuaJIT 2.1). Only a blocker whose known heat comes with at
  // least that many runs (CallGraph::runsAt: known trip counts, times the
  // calls from such loops) predicts it; with fewer the loop is tried again
  // now and then, a warning that gives the count. Without known heat (a loop
  // over a parameter, a while loop, code only called from one) the site is
  // a warning and one step less sure. Code after a loop of its function is
  // recorded by side traces only (HeatEvidence::pastLoop): hot, but an
  // abort there never blacklists.
  const flow::LoopTrips* pastLoop = here.pastLoop;
  // Known heat around a loop whose trip count the bytecode does not show (a
  // hot function's `for i = 1, w.n`): the site runs only when that loop
  // turns, so it is not known to be traced.
  const flow::LoopTrips* unknownAround =
      heat == flow::Heat::Known && here.unknownTrips && !pastLoop ? (here.unknownLoop ? here.unknownLoop : here.leavesEarly)
                                                                  : nullptr;
  std::string blacklisting;
  bool dependsOnData = false;
  // A risk the rule shows the trace always aborts at (BADTYPE of ffi.new
  // with a table initializer, audit 75) blacklists as a blocker does.
  const bool blocks = p.reasonClass == ReasonClass::Blocker || (finding.aborts && finding.confidence == Confidence::Certain);
  if (heat == flow::Heat::Known && blocks && !pastLoop && !finding.sideTrace) {
    BlacklistVerdict verdict = blacklistVerdict(fn, finding, proto, heatProto, heatPc, unknownAround);
    if (verdict.blacklists) p.severity = Severity::Blacklist;
    if (verdict.entryLine > 0) p.blacklistsEntry = Prediction::BlacklistedEntry{verdict.entryLine, verdict.entryFunction};
    blacklisting = std::move(verdict.clause);
    dependsOnData = verdict.dependsOnData || verdict.unreached;
  } else if (heat == flow::Heat::Known && finding.confidence == Confidence::Certain && heatPc > 0 && !pastLoop) {
    // So for a split or any other finding: behind aborts, in a function
    // whose entry no trace starts at, no trace records it.
    if (std::string unreached = unreachedClause(fn, heatProto, heatPc); !unreached.empty()) {
      blacklisting = std::move(unreached);
      dependsOnData = true;
    }
  }
  // Any other certain finding behind a branch that can go around it (a
  // split in `if i < 0 then return s:gsub(...) end`): the loop's heat is
  // no evidence that the branch runs (audit 50), so it is likely at most.
  // So with a route around it that aborts elsewhere (audit 53: the closure
  // in `if i % 1000 == 0 then local f = function() ... end end` never
  // aborts, the UCLO every pass runs does), and in a function whose calls
  // run on fewer passes than get a loop hot: a helper a branch calls.
  std::string aroundClause;
  if (!dependsOnData && heat == flow::Heat::Known && finding.confidence == Confidence::Certain &&
      !finding.structural && p.severity != Severity::Blacklist)
    if ((aroundClause = branchAround(fn, heatProto, heatPc)).empty())
      aroundClause = resumedAbortBefore(fn, heatProto, heatPc);
  dependsOnData = dependsOnData || !aroundClause.empty();
  if (finding.blacklistsCaller) p.severity = Severity::Warn;  // a stop the catalog calls benign, costly here
  if (heat == flow::Heat::Possible || (finding.structural && !finding.blacklistsCaller)) p.severity = Severity::Info;
  // Recorded once, by the side trace that leaves a pairs() loop, in code
  // that runs once: right about the recorder, but it costs one attempt.
  if (here.iterExit && here.once) p.severity = Severity::Info;
  // Structural predictions are calibrated as they stand (how often the
  // shape shows at run time), hotness included.
  bool evidence = finding.hotByEvidence || finding.structural;
  p.confidence = finding.confidence;
  if ((heat == flow::Heat::Likely && !evidence) || dependsOnData ||
      ((pastLoop || here.iterExit || unknownAround) && !finding.structural))
    p.confidence = std::min(p.confidence, Confidence::Likely);
  if (heat == flow::Heat::Possible && !evidence) p.confidence = lowered(p.confidence);
  // A lazy initialization, or a function only one calls, runs once per
  // key: possible at most (audit 95: a template compiled on first use).
  if (heat == flow::Heat::Possible && !evidence &&
      ((here.onceOnlyLine > 0 && here.onceOnlyLasting) || (heatPc > 0 && fn.calls.calledOnceOnly(heatProto))))
    p.confidence = std::min(p.confidence, Confidence::Possible);
  p.confidence = std::min(p.confidence, finding.most);
  // Straight code that runs into a call of `error`: it runs only when the
  // error is raised, and is as sure as that error's split (audit 96: the
  // `string.format` of an interval check's message, a warning at 20,000
  // calls, never run).
  if (finding.pc > 0)
    if (const int raise = errorAhead(fn.of(proto), finding.pc); raise > 0) {
      const Confidence raised = errorConfidence(fn, proto);
      p.confidence = std::min(p.confidence, raised);
      if (p.severity == Severity::Blacklist) p.severity = Severity::Warn;
      finding.reasoning += "; it runs only on the way to the error raised at line " +
                           std::to_string(code.at(raise).line) +
                           (raised == Confidence::Likely ? ", under a pcall of this file that runs hot"
                                                         : ", and an error path rarely runs hot");
    }
  // jit.off() or jit.opt.start(...) in this file: the VM does not run with
  // the JIT the profile describes (audit 59: no trace at all after a
  // jit.off(), no stitch under minstitch=100, no blacklisting at
  // hotloop=20000).
  if (!jitSettings_) jitSettings_.emplace(fn.chunk, fn.values, fn.calls);
  JitSettings::Effect jit = jitSettings_->effectAt(proto, finding.pc > 0 ? finding.pc : 0);
  if (!jit.clause.empty()) {
    p.confidence = std::min(p.confidence, jit.most);
    if (p.severity == Severity::Blacklist) p.severity = Severity::Warn;
  }
  // A possible prediction is a note, whatever made it possible (a cold
  // heat above, or a rule that cannot resolve what it needs, such as an
  // FFI ctype from another file): warn and blacklist claim more.
  if (p.confidence == Confidence::Possible) p.severity = Severity::Info;
  p.path = path_;
  p.line = finding.pc > 0 ? code.at(finding.pc).line : code.firstline;
  p.context = finding.pc > 0 ? contextOf(fn.calls, fn.chunk, proto, finding.pc) : Context::Function;
  p.construct = std::move(finding.construct);
  // A loop's prediction stands at the instruction whose line the VM reports
  // (often the body's first), which is not the construct's own.
  if (finding.pc > 0 && p.construct != "loop") p.instruction = bytecode::opName(code.at(finding.pc).op);
  if (finding.pc > 0 && flow::isCall(code.at(finding.pc).op) && code.at(finding.pc).op != Op::ITERC &&
      code.at(finding.pc).op != Op::ITERN)
    if (const int load = flow::lastWriteBefore(code, finding.pc, flow::calleeSlot(code.at(finding.pc)));
        load > 0 && code.at(load).line == code.at(finding.pc).line)
      p.calleeInstruction = bytecode::opName(code.at(load).op);
  // Where the source map finds the construct among several on its line.
  p.functionLine = code.firstline;
  if (finding.pc > 0 && flow::isCall(code.at(finding.pc).op))
    for (int pc = 1; pc <= finding.pc; ++pc)
      if (flow::isCall(code.at(pc).op) && code.at(pc).line == p.line) ++p.occurrence;
  p.callee = std::move(finding.callee);
  p.calledAs = std::move(finding.calledAs);
  p.function = functionName(fn, proto);
  p.message = std::move(finding.message);
  p.reasoning = std::move(finding.reasoning);
  // A function entry whose every trace aborts here, called often enough
  // from interpreted code: blacklisted (audit 89: Vec.__add's and
  // Vec.new's entries, 100,000 and 300,000 calls, on both builds); likely
  // within a fifth of the count, as interpretedCalls says.
  const long entryRuns = finding.entryCalls > 0 ? fn.profile.entryBlacklisting().runs : 0;  // worked out, not kept
  if (entryRuns > 0 && finding.entryCalls >= entryRuns && p.confidence == Confidence::Certain &&
      p.severity == Severity::Warn && jit.clause.empty()) {
    p.severity = Severity::Blacklist;
    const bool sure = finding.entryCalls >= sureEntryCalls(fn.profile);
    if (!sure) p.confidence = Confidence::Likely;
    blacklisting = "; at " + std::to_string(entryRuns) + " interpreted calls, " +
                   (p.callee.empty() ? p.function : p.callee) + "'s entry is blacklisted" +
                   (sure ? std::string()
                         : std::string(" (in most runs: this close to that count, a hot counter another loop shares "
                                       "can hold it back)")) +
                   ", and every trace that calls it afterwards aborts there (BLACKL), so later loops that call it "
                   "do not compile either";
  }
  if (p.severity != Severity::Info) p.reasoning += blacklisting;
  p.reasoning += aroundClause;
  p.reasoning += jit.clause;
  p.advice = finding.advice.empty() ? reason->advice : std::move(finding.advice);
  // jit.off(f) keeps every trace out of f: nothing in it is ever recorded.
  static const ReasonId jitOff = ReasonId::traceError("CJITOFF");
  if (fn.values.jitDisabled(proto) && p.reasonId != jitOff) p.maskedBy = MaskingSite{path_, code.firstline, jitOff, {}};
  entry.proto = finding.tracePc > 0 ? fn.index : proto;
  entry.tracePc = finding.tracePc > 0 ? finding.tracePc : finding.pc;
  entry.certainAbort = (finding.aborts || finding.endsTrace) && finding.confidence == Confidence::Certain;
  static const ReasonId fnew = ReasonId::refusedBytecode("FNEW"), uclo = ReasonId::refusedBytecode("UCLO");
  entry.abortsWhenReached = entry.certainAbort || (finding.aborts && (p.reasonId == fnew || p.reasonId == uclo));
  entry.mayEndTrace = finding.endsTrace && p.callee == "error" && finding.confidence == Confidence::Likely;
  entry.likelyAbort = finding.aborts && finding.confidence == Confidence::Likely;
  entry.unmaskable = finding.calleeTraces;
  if (finding.aborts && here.onceOnlyLine > 0) entry.onceOnlyLine = here.onceOnlyLine;
  entry.passesEndInterpreted = finding.passesEndInterpreted;
}

CollectingSink::Maskers::Maskers(const CollectingSink& sink, bool (*isMasker)(const Pending&)) : sink_(sink) {
  for (const auto& m : sink.pending_)
    if (isMasker(m)) byProto_[m.proto].push_back(&m);
  for (auto& [proto, list] : byProto_)
    std::sort(list.begin(), list.end(), [](const Pending* a, const Pending* b) { return a->tracePc < b->tracePc; });
}

const CollectingSink::Pending* CollectingSink::Maskers::firstHiding(const Pending& site, int* pcOut) {
  return hidingAt(site.proto, site.tracePc, pcOut);
}

CollectingSink::Maskers::OnPaths CollectingSink::Maskers::pathsTo(const Pending& site) {
  OnPaths out;
  auto candidates = byProto_.find(site.proto);
  if (candidates == byProto_.end()) return out;
  const auto& list = candidates->second;
  if (list.front()->tracePc >= site.tracePc) return out;  // only one before the site can be on a path to it
  const Masking::Paths paths = maskingOf(site.proto).pathsTo(site.tracePc);
  auto at = [&](int pc) {
    return *std::lower_bound(list.begin(), list.end(), pc, [](const Pending* p, int k) { return p->tracePc < k; });
  };
  if (paths.everyPathAborts) out.every = at(paths.everyPathAborts);
  if (paths.somePathAborts) out.some = at(paths.somePathAborts);
  return out;
}

const Masking& CollectingSink::Maskers::maskingOf(std::size_t proto) {
  auto it = masking_.find(proto);
  if (it == masking_.end()) {
    const auto& list = byProto_.at(proto);
    std::vector<int> pcs;
    pcs.reserve(list.size());
    for (const Pending* m : list) pcs.push_back(m->tracePc);
    // Another set of maskers of the same prototype built the rest already.
    auto base = sink_.maskingBases_.find(proto);
    if (base != sink_.maskingBases_.end()) {
      it = masking_.emplace(proto, base->second.withMaskers(pcs)).first;
    } else {
      it = masking_.try_emplace(proto, *sink_.chunk_, proto, *sink_.values_, *sink_.calls_, pcs).first;
      sink_.maskingBases_.emplace(proto, it->second);
    }
  }
  return it->second;
}

const CollectingSink::Pending* CollectingSink::Maskers::hidingAt(std::size_t proto, int at, int* pcOut) {
  auto candidates = byProto_.find(proto);
  if (candidates == byProto_.end()) return nullptr;
  const auto& list = candidates->second;
  // Only an abort before the site can hide it (Masking::firstMasker): a
  // prototype whose one abort is the site itself needs no Masking.
  if (list.front()->tracePc >= at) return nullptr;
  const int pc = maskingOf(proto).firstMasker(at);
  if (pc == 0) return nullptr;
  if (pcOut) *pcOut = pc;
  return *std::lower_bound(list.begin(), list.end(), pc, [](const Pending* p, int k) { return p->tracePc < k; });
}

void CollectingSink::markMasked() {
  if (!chunk_ || !values_ || !calls_) return;
  // Certain aborts by prototype, in pc order: the first one that masks a site wins.
  Maskers maskers(*this, [](const Pending& m) { return m.certainAbort; });
  if (maskers.empty()) return;
  if (!behindAborts_) behindAborts_.emplace(*chunk_, *values_);
  for (auto& site : pending_) {
    if (site.prediction.masked() || site.unmaskable) continue;
    int pc = 0;
    const Pending* m = maskers.firstHiding(site, &pc);
    if (!m) continue;
    behindAborts_->note(site.proto, pc, site.tracePc);
    site.prediction.maskedBy = MaskingSite{m->prediction.path, m->prediction.line, m->prediction.reasonId, {}};
  }
}

// Calls in a prototype to Lua functions of this file that abort every trace
// before they return (closingReturnLine), each with the callee's UCLO; and
// to other modules' functions that do (moduleAborts_), with their abort.
std::vector<CollectingSink::Masker> CollectingSink::closingCalls(std::size_t proto) {
  std::vector<Masker> out;
  if (!uclosAbort_ && !moduleAborts_) return out;
  static const ReasonId uclo = ReasonId::refusedBytecode("UCLO");
  const bytecode::Prototype& code = chunk_->prototypes[proto];
  for (int pc = 1; pc <= code.size(); ++pc) {
    const auto& ins = code.at(pc);
    if (ins.op != Op::CALL && ins.op != Op::CALLM) continue;
    flow::Value callee = values_->at(proto, pc, ins.a);
    if (moduleAborts_ && callee.is(flow::Value::Kind::ModuleMember)) {
      if (auto it = moduleAborts_->find(callee.name); it != moduleAborts_->end()) out.push_back({pc, it->second});
      continue;
    }
    if (!uclosAbort_) continue;
    if (!callee.is(flow::Value::Kind::LuaFunction) || callee.proto >= chunk_->prototypes.size()) continue;
    int& line = closingLine_[callee.proto];  // -1 until asked
    if (line < 0) line = closingReturnLine(chunk_->prototypes[callee.proto]);
    if (line > 0) out.push_back({pc, MaskingSite{path_, line, uclo, {}}});
  }
  return out;
}

// Whether the call at pc of `proto` can start no trace that returns into
// its caller: a fast function other than pcall and xpcall, called directly.
// It stitches (or is recorded) only in a trace that records the call, and
// behind an abort on every path none does (audit 52: `string.gsub(...)` or
// `io.write("")` between the aborting call and the site). A Lua callee's
// own entry trace can stitch inside it and resume in the caller, and
// pcall's callee can run a trace of its own: those still end the masking.
bool CollectingSink::startsNoTrace(std::size_t proto, int pc) const {
  const auto& ins = chunk_->prototypes[proto].at(pc);
  if (ins.op != Op::CALL && ins.op != Op::CALLM) return false;
  const flow::Value callee = values_->at(proto, pc, flow::calleeSlot(ins));
  return callee.is(flow::Value::Kind::LibFunction) && callee.name != "pcall" && callee.name != "xpcall";
}

// Sites right behind a call whose callee aborts every trace before it
// returns: every path to the site runs through the call (as for an abort),
// and no other call lies between them. Another call may start a trace
// behind the abort that returns here: a stitched continuation or a side
// trace in the callee (lua-uri: `_normalize_percent_encoding(new)` aborts,
// yet the stitch in the `uri_encode` call after it starts a trace that
// records the rest of `path`).
void CollectingSink::markMaskedByCalls() {
  closingLine_.assign(chunk_->prototypes.size(), -1);
  std::map<std::size_t, std::vector<Masker>> maskers;
  std::map<std::size_t, Masking> masking;
  for (auto& site : pending_) {
    if (site.prediction.masked() || site.unmaskable) continue;
    auto [it, fresh] = maskers.try_emplace(site.proto);
    if (fresh) it->second = closingCalls(site.proto);
    const auto& list = it->second;
    if (list.empty() || list.front().pc >= site.tracePc) continue;  // nothing before the site (see markMasked)
    // Only a call in the site's own innermost loop (or, outside loops, in
    // the function body) can hide it (Masking::firstMasker): a function
    // whose calls are elsewhere needs no Masking built.
    const flow::LoopMap& loops = calls_->loopMap(site.proto);
    const flow::Loop* around = loops.innermost(site.tracePc);
    bool sameBody = false;
    for (std::size_t k = 0; k < list.size() && list[k].pc < site.tracePc && !sameBody; ++k)
      sameBody = loops.innermost(list[k].pc) == around;
    if (!sameBody) continue;
    auto m = masking.find(site.proto);
    if (m == masking.end()) {
      std::vector<int> pcs;
      pcs.reserve(list.size());
      for (const Masker& c : list) pcs.push_back(c.pc);
      m = masking.try_emplace(site.proto, *chunk_, site.proto, *values_, *calls_, pcs).first;
    }
    int pc = m->second.firstMasker(site.tracePc);
    if (pc == 0) continue;
    const auto& code = chunk_->prototypes[site.proto];
    int callBetween = 0;
    for (int q = pc + 1; q < site.tracePc && !callBetween; ++q)
      if (flow::isCallOrIterator(code.at(q).op) && !startsNoTrace(site.proto, q)) callBetween = q;
    auto masker = std::lower_bound(list.begin(), list.end(), pc, [](const Masker& c, int at) { return c.pc < at; });
    if (callBetween) {
      // Not masked, but only a trace the later call starts can record the
      // site, if any does (audit 102: `new_cli()`, whose closure aborts
      // every trace, then `cli:flag(...)`, then a certain closure `-jv`
      // never showed: the method's own entry trace ends at its return).
      Prediction& p = site.prediction;
      if (p.confidence != Confidence::Certain) continue;
      p.confidence = Confidence::Likely;
      if (p.severity == Severity::Blacklist) p.severity = Severity::Warn;
      p.reasoning += "; but every pass first makes the call at line " + std::to_string(code.at(pc).line) +
                     ", whose callee aborts every trace that records it (" + masker->site.reasonId.str() + " at " +
                     (masker->site.path == p.path ? "line " + std::to_string(masker->site.line)
                                                  : masker->site.location()) +
                     "), so only a trace that a later call starts (at line " +
                     std::to_string(code.at(callBetween).line) +
                     ": a stitch inside it, or a side trace) may record this site, and whether one does the "
                     "bytecode does not show, so likely";
      continue;
    }
    site.prediction.maskedBy = masker->site;
  }
}

std::vector<Prediction> CollectingSink::take(Confidence minConfidence) {
  markMasked();
  if (chunk_ && values_ && calls_) markMaskedByCalls();  // and by other modules' aborting functions
  if (chunk_ && values_ && calls_) markAfterUnsureLoops();
  if (chunk_ && values_ && calls_) markAfterInterpretedLoops();
  if (chunk_ && values_ && calls_) markAfterErrorPaths();
  if (chunk_ && values_ && calls_) markAfterLikelyAborts();
  markAfterLazyInits();
  if (chunk_ && values_ && calls_) markOnAbortingPaths();  // after the others, whose sentences say more
  // One prediction per (line, reasonId): an unmasked one over a masked one,
  // then the surest.
  auto better = [](const Prediction& a, const Prediction& b) {
    if (a.masked() != b.masked()) return !a.masked();
    return a.confidence > b.confidence;
  };
  // Keyed by the reasonId of the prediction kept in `out`, which never
  // moves (reserved) and keeps an equal reasonId when replaced.
  auto before = [](const std::pair<int, const ReasonId*>& a, const std::pair<int, const ReasonId*>& b) {
    return a.first != b.first ? a.first < b.first : *a.second < *b.second;
  };
  std::map<std::pair<int, const ReasonId*>, std::size_t, decltype(before)> index(before);
  std::vector<Prediction> out;
  out.reserve(pending_.size());
  for (auto& site : pending_) {
    Prediction& p = site.prediction;
    if (p.confidence < minConfidence) continue;
    const std::pair<int, const ReasonId*> key(p.line, &p.reasonId);
    auto it = index.lower_bound(key);
    if (it == index.end() || before(key, it->first)) {
      out.push_back(std::move(p));
      index.emplace_hint(it, std::make_pair(out.back().line, &out.back().reasonId), out.size() - 1);
    } else if (better(p, out[it->second])) {
      out[it->second] = std::move(p);
    }
  }
  pending_.clear();
  return out;
}

}  // namespace ljcheck::rules
