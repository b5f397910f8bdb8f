// The analyzer pipeline for one file: read, compile with the embedded LuaJIT
// (or take a bytecode dump as it is), decode the dump, run every rule family
// over every prototype. And the parallel driver over many files.
#include "ljcheck/analyzer.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "file_text.h"
#include "flow/call_graph.h"
#include "flow/instruction_effects.h"
#include "flow/loops.h"
#include "flow/module_member.h"
#include "flow/refused_bytecodes.h"
#include "flow/value_history.h"
#include "flow/values.h"
#include "ljcheck/bytecode.h"
#include "ljcheck/compile.h"
#include "ljcheck/dump_reread.h"
#include "ljcheck/lint_report.h"
#include "ljcheck/project_path.h"
#include "project.h"
#include "project_batch.h"
#include "required_modules.h"
#include "source/function_splice.h"
#include "ljcheck/source_map.h"
#include "ljcheck/syntax_cache.h"
#include "rules/aborting_call_before.h"
#include "rules/prediction_sink.h"
#include "rules/rule.h"
#include "rules/split_finding.h"
#include "rules/trace_splits_before.h"
#include "worker_threads.h"

namespace fs = std::filesystem;

namespace ljcheck {

namespace {

constexpr std::string_view kDumpMagic = "\x1bLJ";

// Decoding uses the embedded VM's bytecode numbering (it wrote the dump);
// the rules use the selected profile's recorder facts.
const bytecode::OpcodeTable& embeddedOpcodes() {
  static const bytecode::OpcodeTable table(defaultProfile().bytecodeNames());
  return table;
}

// What one analysis of a file takes from the project and gives back to it.
struct ProjectView {
  const IncomingHeat* incoming = nullptr;  // other files' calls into this one
  FileLinks* links = nullptr;              // this file's exports and calls out
  // ctypes with `__new` and registering functions that other files' module
  // tables export, by "module:member".
  const ModuleImports* imports = nullptr;
  std::atomic<std::size_t>* dumpBudget = nullptr;  // bytes of dumps that may still be kept
  // How the text being analyzed was read from disk (a regular file's);
  // null for a buffer's text, a pipe's, or a second analysis of a kept dump.
  const FileStamp* read = nullptr;
  // The first pass in callers-first order (project_order.h): the heat
  // other files' calls give this file's functions, from the heat each
  // exported function has without them (ProjectIndex::incomingFrom), and
  // where what it gave is kept for the rounds. Null otherwise.
  const std::function<IncomingHeat(const std::map<std::string, flow::Heat>&)>* seedsFor = nullptr;
  IncomingHeat* given = nullptr;
  bool callersFirst = false;  // in that pass, whether or not this file has callers
  // The counts of other files' calls flow on into this file's calls of
  // others: it is in no cycle of the require graph (inRequireCycles).
  bool countsFlowOn = false;
};

// Takes `bytes` from the budget of kept dumps; false when they do not fit.
bool reserveDump(std::atomic<std::size_t>* budget, std::size_t bytes) {
  if (!budget) return false;
  std::size_t left = budget->load();
  while (left >= bytes)
    if (budget->compare_exchange_weak(left, left - bytes)) return true;
  return false;
}

// Whether a call of another module's function in `aborting` comes before
// `call` in the innermost loop around it: a quick look before the question
// abortingCallBefore answers for the paths.
bool abortingMemberBefore(const std::vector<flow::ModuleCall>& moduleCalls, const flow::ModuleCall& call,
                          const flow::CallGraph& calls, const flow::MemberNames& aborting) {
  const flow::Loop* loop = calls.loopMap(call.proto).innermost(call.pc);
  if (!loop) return false;
  for (const flow::ModuleCall& before : moduleCalls)
    if (before.proto == call.proto && before.pc >= loop->first && before.pc < call.pc &&
        aborting.count(before.module + ":" + before.member) > 0)
      return true;
  return false;
}

// The other modules' functions this file calls in a loop body that the
// import pass tells it about when they abort every trace (ModuleImports::
// abortingMembers): those followed in that body by a site of this file's,
// which their call masks then (CollectingSink), and those called before a
// call of another module's function, which is then behind an abort
// (ModuleCall::behindAbort: its runs do not count towards blacklisting, and
// a vararg callee is reached by no trace): every one before a call with
// runs enough to blacklist a start, else the one right before it. Others
// need no second analysis to know.
std::set<std::string> membersAskedAbout(const FileLinks& links, const flow::CallGraph& calls,
                                        const rules::CollectingSink& sink, long blacklistingRuns) {
  std::set<std::string> out;
  for (const flow::ModuleCall& call : links.calls) {
    if (call.loopLine == 0) continue;
    const flow::Loop* loop = calls.loopMap(call.proto).innermost(call.pc);
    if (!loop) continue;
    if (sink.hasSiteBetween(call.proto, call.pc, loop->last)) out.emplace(call.module + ":" + call.member);
    // Every module call before one with runs enough to blacklist a start
    // (its runs before any zeroing), and the one right before any other.
    const bool blacklisting = blacklistingRuns > 0 && call.entryCalls >= blacklistingRuns;
    const flow::ModuleCall* previous = nullptr;
    for (const flow::ModuleCall& before : links.calls) {
      if (before.proto != call.proto || before.pc < loop->first || before.pc >= call.pc) continue;
      if (blacklisting) out.emplace(before.module + ":" + before.member);
      if (!previous || before.pc > previous->pc) previous = &before;
    }
    if (previous) out.emplace(previous->module + ":" + previous->member);
  }
  return out;
}

// Whether some instruction of the prototype is one the recorder refuses
// (on a branch, maybe): a trace through it may abort there.
bool refusesSome(const bytecode::Prototype& proto, const RecorderProfile& profile) {
  if (proto.isVararg()) return true;  // its '...' may be refused (rules/varargs.h)
  const std::vector<bool>& refused = flow::refusedBytecodes(profile);
  for (int pc = 1; pc <= proto.size(); ++pc)
    if (flow::refuses(refused, proto.at(pc).op)) return true;
  return false;
}

// The "module:member"s the chunk calls where it runs hot before an
// instruction the recorder refuses in the same function (a closure, an
// upvalue close, a '...').
std::set<std::string> membersBeforeRefused(const bytecode::Chunk& chunk, const flow::CallGraph& calls,
                                           const RecorderProfile& profile) {
  std::set<std::string> out;
  std::map<std::size_t, int> lastRefused;  // by prototype, asked about
  const std::vector<bool>& refused = flow::refusedBytecodes(profile);
  for (const flow::ModuleCall& call : calls.moduleCalls()) {
    if (call.proto >= chunk.prototypes.size()) continue;
    auto [it, added] = lastRefused.emplace(call.proto, 0);
    if (added) {
      const bytecode::Prototype& p = chunk.prototypes[call.proto];
      for (int pc = 1; pc <= p.size(); ++pc)
        if (flow::refuses(refused, p.at(pc).op) || p.at(pc).op == bytecode::Op::VARG) it->second = pc;
    }
    if (call.pc < it->second) out.emplace(call.module + ":" + call.member);
  }
  return out;
}

// Whether another file's call of the method `member` of an object a
// function here returns ("new():paint") may run a function some file
// stored into that object instead (ModuleImports::methodsStoredElsewhere,
// audit 67: `s.paint = function ... end` in a helper given the sprite).
bool storedOnCallersObjects(std::string_view member, const flow::MemberNames* stored) {
  const flow::ResultMethod m = flow::ResultMethod::of(member);
  return stored && m.valid() && (stored->count(m.method) > 0 || stored->count(flow::ValueMap::kAnyMethod) > 0);
}

// Whether other files' calls of `member` may run what they call: not when
// some file stores the module's value in package.loaded or package.preload
// (ModuleImports::loadedInPlace, audit 69: a test's stub logger, and the
// real one's closure was an error), nor for a method stored into objects.
bool callsReach(std::string_view member, const ProjectView& project, const flow::MemberNames* stored) {
  return !(project.imports && project.imports->loadedInPlace) && !storedOnCallersObjects(member, stored);
}

// Whether some function of the chunk names the string "ffi" (require("ffi")).
bool namesFfi(const bytecode::Chunk& chunk) {
  for (const auto& p : chunk.prototypes)
    for (const auto& k : p.gc)
      if (k.isString("ffi")) return true;
  return false;
}

std::vector<Prediction> runRules(const bytecode::Chunk& chunk, const RecorderProfile& profile,
                                 const std::string& path, Confidence minConfidence, const BuiltinAliases& aliases,
                                 const CModules* cModules, ProjectView project,
                                 flow::ValueMap::History* history = nullptr) {
  // What other modules' functions return changes this file's values: a map
  // kept from the last edit does not know it, so none is used then.
  const flow::ValueMap::ImportedReturns* returns =
      project.imports && !project.imports->returnedBuiltins.empty() ? &project.imports->returnedBuiltins : nullptr;
  const flow::MemberNames* methods =
      project.imports && !project.imports->luaMethods.empty() ? &project.imports->luaMethods : nullptr;
  const flow::MemberNames* overridden =
      project.imports && !project.imports->overriddenMethods.empty() ? &project.imports->overriddenMethods : nullptr;
  const flow::MemberNames* stored =
      project.imports && !project.imports->methodsStoredElsewhere.empty() ? &project.imports->methodsStoredElsewhere
                                                                          : nullptr;
  flow::ValueMap values(chunk, profile, &aliases, cModules,
                        returns || methods || overridden || stored ? nullptr : history, returns, methods, overridden,
                        stored);
  std::map<std::size_t, flow::ExternalCaller> external;
  auto exports = values.exportedFunctions();
  const auto indirect = values.indirectExports();
  for (const auto& [name, proto] : indirect) exports.emplace_back(name, proto);  // views into `indirect`
  if (project.incoming)
    for (const auto& [member, proto] : exports)
      if (auto it = project.incoming->find(std::string(member));
          it != project.incoming->end() && callsReach(member, project, stored))
        external[proto] = it->second;
  flow::CtypeConstructors constructors{flow::findCtypeConstructors(chunk, values), {}};
  auto registrars = flow::findCtypeRegistrars(chunk, values);
  for (auto& c : flow::registeredConstructors(chunk, values, registrars,
                                              project.imports ? project.imports->registrars
                                                              : std::map<std::string, flow::CtypeRegistrar>{}))
    constructors.own.push_back(std::move(c));
  const long hotloop = profile.param("hotloop", 56), hotexit = profile.param("hotexit", 10);
  const flow::MemberNames* loopingMembers = project.imports ? &project.imports->loopingMembers : nullptr;
  // Each exported function's heat without other files' calls: the
  // project weighs their calls against it (ProjectIndex::incoming).
  auto heatsIn = [&](const flow::CallGraph& graph) {
    std::map<std::string, flow::Heat> own;
    for (const auto& [member, proto] : exports) own[std::string(member)] = graph.heat(proto);
    return own;
  };
  auto ownHeats = [&] {
    return heatsIn(flow::CallGraph(chunk, values, hotloop, hotexit, {}, &constructors.own, loopingMembers));
  };
  std::optional<std::map<std::string, flow::Heat>> own;
  // The graph without other files' calls, kept when the callers that came
  // first give none either: the same graph, built once.
  std::optional<flow::CallGraph> alone;
  if (project.seedsFor && !exports.empty()) {
    if (external.empty()) {
      alone.emplace(chunk, values, hotloop, hotexit, std::map<std::size_t, flow::ExternalCaller>{},
                    &constructors.own, loopingMembers);
      own = heatsIn(*alone);
    } else {
      own = ownHeats();
    }
    *project.given = (*project.seedsFor)(*own);
    for (const auto& [member, proto] : exports)
      if (auto it = project.given->find(std::string(member));
          it != project.given->end() && callsReach(member, project, stored))
        external[proto] = it->second;
  }
  flow::CallGraph calls = alone && external.empty()
                              ? std::move(*alone)
                              : flow::CallGraph(chunk, values, hotloop, hotexit, external, &constructors.own,
                                                loopingMembers, project.countsFlowOn);
  if (project.links) {
    if (!external.empty()) {
      project.links->exports = own ? std::move(*own) : ownHeats();
    } else {
      project.links->exports.clear();
      for (const auto& [member, proto] : exports) project.links->exports[std::string(member)] = calls.heat(proto);
    }
    project.links->calls = calls.moduleCalls();
  }
  if (project.imports) constructors.imported = project.imports->constructors;
  if (project.links) {
    project.links->constructors = flow::exportedConstructors(chunk, values, constructors.own);
    project.links->registrars = flow::exportedRegistrars(values, registrars);
    project.links->memberCalls = calls.calledMembers();
    project.links->assignedMembers.assign(values.assignedModuleMembers().begin(), values.assignedModuleMembers().end());
    project.links->overridingMembers = values.overridesOfOtherModules();
    project.links->classBase = values.baseOfModuleClass();
    project.links->classMakers = values.makersOfModuleObjects();
    project.links->membersBeforeRefused = membersBeforeRefused(chunk, calls, profile);
    project.links->classFields = values.moduleFieldNames();
    project.links->modulesLoadedInPlace = values.modulesLoadedInPlace();
    project.links->namesPassed = values.namesPassed();
    project.links->methodsStoredOnObjects = values.methodsStoredOnObjects();
    project.links->resolvedMethods = values.resolvedMethodNames();
    project.links->returnedBuiltins.clear();
    for (const auto& [member, proto] : exports)
      if (flow::Value fn = values.returned(proto); fn.is(flow::Value::Kind::LibFunction))
        project.links->returnedBuiltins.emplace(std::string(member), std::string(fn.name));
  }
  rules::FunctionNames names(chunk.prototypes.size());
  rules::SplittingCalls splitting(chunk.prototypes.size());
  const flow::ImportedTailCalls* tailCalls =
      project.imports && !project.imports->tailCalls.empty() ? &project.imports->tailCalls : nullptr;
  const flow::MemberNames* luaMethods =
      project.imports && !project.imports->luaMethods.empty() ? &project.imports->luaMethods : nullptr;
  const flow::MemberNames* inlinedMembers =
      project.imports && !project.imports->inlinedMembers.empty() ? &project.imports->inlinedMembers : nullptr;
  auto viewOf = [&](std::size_t i) {
    return rules::FunctionView{chunk,   i,          chunk.prototypes[i], calls.loopMap(i), values,
                               calls,   profile,    ReasonCatalog::builtin(), constructors, &names,
                               tailCalls, luaMethods, &splitting, inlinedMembers};
  };
  // The FFI calls every trace through them aborts at, for the helpers whose
  // every trace aborts (rules::certainAbortLine): only in a file that names
  // the ffi module or calls another file's ctypes.
  std::vector<std::vector<int>> refusedCalls;
  if (namesFfi(chunk) || !constructors.imported.empty())
    refusedCalls = rules::refusedCallsOf(chunk.prototypes.size(), viewOf);
  rules::ResolvedCallees callees(chunk.prototypes.size());
  auto view = [&](std::size_t i) {
    rules::FunctionView v = viewOf(i);
    if (!refusedCalls.empty()) v.refusedCalls = &refusedCalls;
    v.callees = &callees;
    return v;
  };
  if (project.links) {
    project.links->tailCalls.clear();
    project.links->loopingExports.clear();
    for (const auto& [member, proto] : exports)
      if (auto tail = rules::unrecordedTailCall(view(proto))) project.links->tailCalls.emplace(member, *tail);
      else if (auto refused = rules::refusedTailCall(view(proto))) project.links->tailCalls.emplace(member, *refused);
    // Ending masking is the cautious side: a function the module table may
    // have replaced later (computed keys) still counts.
    for (const auto& [member, proto] : values.exportedFunctions(true))
      if (calls.runsLoop(proto)) project.links->loopingExports.emplace(member);
    for (const auto& [member, proto] : indirect)
      if (calls.runsLoop(proto)) project.links->loopingExports.emplace(member);
    // Nested members too (`M.source.string`, ltn12's shape): a loop that
    // calls one first aborts there (audit 51).
    project.links->abortingExports.clear();
    project.links->inlinedExports.clear();
    for (const auto& [member, proto] : exports) {
      bytecode::Op op = bytecode::Op::FNEW;
      if (int line = rules::certainAbortLine(chunk.prototypes[proto], profile, &op); line > 0) {
        MaskingSite site{{}, line, ReasonId::refusedBytecode(bytecode::opName(op)), {}};
        project.links->abortingExports.emplace(member, std::move(site));
      } else if (!refusesSome(chunk.prototypes[proto], profile) && rules::recordedInline(view(proto))) {
        project.links->inlinedExports.emplace(member);
      }
    }
    // A call from a loop behind a call whose callee aborts every trace
    // through it (this file's, or another module's): the loop's trace never
    // records this call (ModuleCall::behindAbort), so its runs do not count
    // towards blacklisting a start (rules/aborting_call_before.h). Without
    // an aborting import, only a call with runs enough to blacklist a start
    // looks for this file's aborting functions before it: for the others
    // nothing changes.
    const long blacklistingRuns = profile.loopBlacklisting().runs;
    const flow::MemberNames* aborting =
        project.imports && !project.imports->abortingMembers.empty() ? &project.imports->abortingMembers : nullptr;
    for (flow::ModuleCall& call : project.links->calls) {
      call.entryCalls = call.steadyRuns;
      if (call.proto >= chunk.prototypes.size()) continue;
      if (call.loopLine == 0) {
        // A helper's call: from its function's entry (audit 107: another
        // module's looping function, then its closure maker).
        call.splitBefore = blacklistingRuns > 0 && call.runs >= blacklistingRuns &&
                           rules::mayBeSplitBefore(view(call.proto), 1, call.pc);
        continue;
      }
      if (const flow::Loop* loop = calls.loopMap(call.proto).innermost(call.pc))
        call.splitBefore = rules::mayBeSplitBefore(view(call.proto), loop->first, call.pc);
      const bool blacklisting = blacklistingRuns > 0 && call.steadyRuns >= blacklistingRuns;
      if (!blacklisting && !(aborting && abortingMemberBefore(project.links->calls, call, calls, *aborting))) continue;
      const rules::AbortingCall before = rules::abortingCallBefore(view(call.proto), call.pc, aborting);
      if (before.pc == 0) {
        // A call before it in the loop that may end the root trace there
        // (a pcall of a function that may raise an error, a RETURN): the
        // root trace may never get to this call, so its runs are not sure
        // to blacklist anything in the callee (audit 85: `pcall(validate.port,
        // v)`, which raises on some passes, before `validate.record(...)`'s
        // closure: `-jv` shows no start blacklisted). A call that may only
        // split it (another module's method, a stitch) leaves a trace that
        // gets there: audits 69, 72 and 80 saw those loops blacklisted.
        const flow::Loop* loop = calls.loopMap(call.proto).innermost(call.pc);
        const rules::SplitBefore split =
            blacklisting && loop ? rules::splitBefore(view(call.proto), loop->first, call.pc) : rules::SplitBefore{};
        if ((split.line > 0 && split.endsTrace) || split.endingPc > 0) {
          const int line = split.line > 0 && split.endsTrace
                               ? split.line
                               : chunk.prototypes[call.proto].at(split.endingPc).line;
          call.steadyRuns = 0;
          call.shortfall = "the call at line " + std::to_string(line) + " comes before it in the loop at line " +
                           std::to_string(call.loopLine) + " and may end the loop's trace there (a call through "
                           "pcall, a RETURN), so the loop's root trace may never record the call at line " +
                           std::to_string(call.line);
        }
        continue;
      }
      call.behindAbort = true;
      if (!blacklisting) continue;
      call.steadyRuns = 0;
      call.shortfall = "the loop at line " + std::to_string(call.loopLine) + " aborts first at " + before.what +
                       " at line " + std::to_string(before.line) +
                       " on every pass, so its trace never records the call at line " + std::to_string(call.line);
    }
  }
  rules::CollectingSink sink(path);
  if (project.imports && !project.imports->abortSites.empty()) sink.maskBehindModuleCalls(&project.imports->abortSites);
  for (std::size_t i = 0; i < chunk.prototypes.size(); ++i) {
    const rules::FunctionView fn = view(i);
    for (const auto& rule : rules::allRules()) rule->check(fn, sink);
  }
  if (project.links)
    project.links->membersBeforeLoopCalls =
        membersAskedAbout(*project.links, calls, sink, profile.loopBlacklisting().runs);
  auto found = sink.take(minConfidence);
  // Kept from the analysis that knew no looping members (members_behind_aborts.h).
  if (project.links && (!project.imports || project.imports->loopingMembers.empty()))
    project.links->membersBehindAborts = sink.membersBehindAborts();
  // Sorted by line, then reasonId, keeping the rules' order among equals.
  // The order is found on indices: moving a Prediction (a dozen strings)
  // at every step of the sort cost more than the sort itself.
  std::vector<std::size_t> order(found.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Prediction& x = found[a];
    const Prediction& y = found[b];
    return x.line != y.line ? x.line < y.line : x.reasonId < y.reasonId;
  });
  std::vector<Prediction> predictions;
  predictions.reserve(found.size());
  for (std::size_t i : order) predictions.push_back(std::move(found[i]));
  return predictions;
}

// LuaJIT's syntax messages read "<chunk>:<line>: <what>", the chunk name
// shortened to "...<tail>" when long; the path and line are fields of their
// own, so keep LuaJIT's text after them.
std::string syntaxMessage(const std::string& message, const std::string& path, int line) {
  if (line <= 0) return message;
  std::string marker = ":" + std::to_string(line) + ": ";
  auto at = message.find(marker);
  if (at == std::string::npos) return message;
  std::string_view chunk(message.data(), at);
  if (chunk != path && chunk.substr(0, 3) != "...") return message;
  return message.substr(at + marker.size());
}

// The reader names its input ("<path>: truncated: ... at byte N"); the path
// is a field of its own.
std::string dumpMessage(const std::string& message, const std::string& path) {
  std::string_view text = message;
  if (text.substr(0, path.size()) == path && text.substr(path.size(), 2) == ": ") text.remove_prefix(path.size() + 2);
  return "cannot read bytecode dump: " + std::string(text);
}

// Ranges from the source, `-- ljcheck: allow(...)` suppressions, and the
// problems of the suppression comments themselves.
// `syntax`: the document's last token index, or null.
// `profile`: what allow comments' IDs are checked against.
void applySource(std::string_view source, FileResult& result, const RecorderProfile& profile,
                 SyntaxCache* syntax = nullptr) {
  std::vector<Prediction>& predictions = result.predictions;
  if (predictions.empty() && source.find("ljcheck:") == std::string_view::npos) return;
  SourceMap map(source, syntax);
  // A suppressed site takes the "masked by" notes it causes with it: the
  // user accepted the abort that hides them.
  std::set<std::tuple<std::string, int, std::string>> suppressedSites;
  for (const auto& p : predictions)
    if (map.suppress(p.line, p.reasonId)) suppressedSites.emplace(p.path, p.line, p.reasonId.str());
  auto maskedBySuppressed = [&](const Prediction& p) {
    return p.maskedBy && suppressedSites.count({p.maskedBy->path, p.maskedBy->line, p.maskedBy->reasonId.str()});
  };
  for (auto& p : predictions) {
    p.range = map.locate({p.line, p.construct, p.calledAs.empty() ? p.callee : p.calledAs, p.occurrence,
                          p.context == Context::Loop, p.functionLine});
    // column and endColumn pair with `line`: only a range on that line gives them.
    bool onLine = p.range.found() && p.range.start.line == p.line && p.range.end.line == p.line;
    p.column = onLine ? p.range.start.column : 0;
    p.endColumn = onLine ? p.range.end.column : 0;
  }
  // Identities before the allow comments drop any: a suppressed site keeps
  // its place in the numbering, so the others' fingerprints stay.
  assignSiteIdentities(predictions, [&](int line) { return map.lineText(line); });
  std::vector<Prediction> kept;
  kept.reserve(predictions.size());
  for (auto& p : predictions) {
    if (map.suppressed(p.line, p.reasonId) || maskedBySuppressed(p)) continue;
    kept.push_back(std::move(p));
  }
  // A masking site that is a prediction of this file is shown where that
  // prediction's range starts (text output, the editor's related location).
  std::map<std::pair<int, ReasonId>, SourceRange> located;  // the masking sites named, then their ranges
  for (const auto& p : kept)
    if (p.masked() && p.maskedBy->path == p.path) located.emplace(std::make_pair(p.maskedBy->line, p.maskedBy->reasonId), SourceRange{});
  if (!located.empty()) {
    for (const auto& q : kept)
      if (q.range.found())
        if (auto it = located.find({q.line, q.reasonId}); it != located.end()) it->second = q.range;
    for (auto& p : kept)
      if (p.masked() && p.maskedBy->path == p.path)
        if (auto it = located.find({p.maskedBy->line, p.maskedBy->reasonId}); it != located.end())
          p.maskedBy->range = it->second;
  }
  predictions = std::move(kept);
  result.directives = map.directiveProblems(result.path, &profile);
}

}  // namespace

struct AnalysisReuse::State {
  // One VM for all of a document's compiles: its string hash seed orders
  // template tables, so the dumps of unchanged functions stay byte-equal.
  LuaCompiler compiler;
  FunctionSplicer splicer;       // the text of the last dump, for compiling only an edited function
  bytecode::DumpRereader dumps;  // the prototypes of the last dump
  flow::ValueMap::History values;  // the passes of the last value map
  SyntaxCache syntax;              // the token index of the last source map
};

AnalysisReuse::AnalysisReuse() : state_(std::make_unique<State>()) {}
AnalysisReuse::~AnalysisReuse() = default;
AnalysisReuse::AnalysisReuse(AnalysisReuse&&) noexcept = default;
AnalysisReuse& AnalysisReuse::operator=(AnalysisReuse&&) noexcept = default;
std::size_t AnalysisReuse::prototypesReused() const { return state_->dumps.reused(); }
std::size_t AnalysisReuse::prototypesDecoded() const { return state_->dumps.decoded(); }
std::size_t AnalysisReuse::valuePassesReused() const { return state_->values.passesReused; }
std::size_t AnalysisReuse::valuePassesRun() const { return state_->values.passesRun; }
bool AnalysisReuse::tokenIndexTakenOver() const { return state_->syntax.tookOver(); }
bool AnalysisReuse::functionSpliced() const { return state_->splicer.outcome() == SpliceOutcome::Spliced; }

namespace {

FileResult analyzeWith(LuaCompiler& compiler, std::string_view source, const std::string& path,
                       const RecorderProfile& profile, Confidence minConfidence, const BuiltinAliases& aliases,
                       const CModules* cModules, ProjectView project = {}, AnalysisReuse* reuse = nullptr) {
  FileResult result;
  result.path = path;
  std::string dump;
  bool isDump = !source.empty() && source[0] == kDumpMagic[0];
  bool compiledBefore = project.links && !project.links->dump.empty();
  if (project.links && !compiledBefore) project.links->mapLater.reset();  // this text is mapped on its own
  bool fromSource = false, splicedDump = false;  // the dump is the source's, compiled or spliced
  if (compiledBefore) {
    dump = std::move(project.links->dump);  // a second analysis with other files' heat
    project.links->dump.clear();
    if (project.dumpBudget) *project.dumpBudget += dump.size();
  } else if (isDump) {
    dump.assign(source);  // LuaJIT takes any ESC-led chunk for bytecode: read it as a dump
  } else {
    if (source.find('\0') != std::string_view::npos) {
      result.errors.push_back({FileError::Kind::Input, path, 0, "binary file, not Lua source"});
      return result;
    }
    // The last dump stays that of the splicer's text through a syntax error.
    std::optional<std::string> spliced;
    if (reuse)
      spliced = reuse->state().splicer.splice(source, reuse->state().dumps.last(), embeddedOpcodes(), compiler, path);
    if (spliced) {
      dump = std::move(*spliced);
    } else {
      CompileResult compiled = compiler.compile(source, path);
      if (!compiled.ok()) {
        int line = compiled.error->line;
        result.errors.push_back(
            {FileError::Kind::Syntax, path, line, syntaxMessage(compiled.error->message, path, line)});
        return result;
      }
      dump = std::move(compiled.dump);
    }
    fromSource = true;
    splicedDump = spliced.has_value();
  }
  try {
    // LuaJIT's own output just now, or a kept dump read before: its
    // operands need no check (a spliced dump is pieced together here, and
    // a dump given as input is anyone's).
    bytecode::ReadOptions read;
    read.trusted = (fromSource && !splicedDump) || compiledBefore;
    bytecode::Chunk chunk = reuse ? reuse->state().dumps.read(dump, embeddedOpcodes(), path)
                                  : bytecode::readDump(dump, embeddedOpcodes(), path, read);
    flow::ValueMap::History* history = nullptr;
    if (reuse) {
      history = &reuse->state().values;
      history->sameBytes = reuse->state().dumps.takenOver();
    }
    result.predictions = runRules(chunk, profile, path, minConfidence, aliases, cModules, project, history);
    result.analyzed = true;
    if (reuse) {
      reuse->state().dumps.keep(std::move(chunk));
      if (fromSource)
        reuse->state().splicer.remember(source, splicedDump);
      else
        reuse->state().splicer.forget();
    }
    // Kept for a second analysis: of a file that calls other files'
    // functions (what it imports from them), or one with exports (other
    // files' heat) unless its callers came first, when the rounds seldom
    // have more heat for it (it is compiled again then). A file read from
    // disk is then mapped after its last analysis, from the file read again
    // (mapKeptSources), not now: its text is not kept.
    bool mayRunAgain = project.links && ((!project.callersFirst && !project.links->exports.empty()) ||
                                         !project.links->memberCalls.empty());
    if (mayRunAgain && reserveDump(project.dumpBudget, dump.size())) {
      project.links->dump = std::move(dump);
      project.links->dump.shrink_to_fit();  // written piece by piece: up to twice its size
      if (!isDump && project.read) project.links->mapLater = *project.read;
    }
    // A second analysis has no text: its file is mapped after the rounds.
    const bool mappedLater = project.links && project.links->mapLater;
    if (!isDump && !mappedLater) applySource(source, result, profile, reuse ? &reuse->state().syntax : nullptr);
  } catch (const bytecode::DumpError& e) {
    if (reuse) reuse->state().splicer.forget();
    result.errors.push_back({FileError::Kind::Input, path, 0, dumpMessage(e.what(), path)});
  }
  return result;
}

FileResult analyzeFile(LuaCompiler& compiler, const std::string& file, const std::string& shown,
                       const AnalyzeOptions& options, const RecorderProfile& profile, ProjectView project) {
  ReadText text = readText(file, options.maxFileBytes);
  if (text.problemKind) {
    FileResult result;
    result.path = shown;
    result.errors.push_back({*text.problemKind, shown, 0, std::move(text.problem)});
    return result;
  }
  project.read = text.stamp ? &*text.stamp : nullptr;
  return analyzeWith(compiler, text.content, shown, profile, options.minConfidence, options.aliases,
                     options.cModules.get(), project);
}

// A file's size in bytes; 0 when it cannot be read.
std::uintmax_t sizeOrZero(const std::string& file) {
  std::error_code ec;
  auto size = fs::file_size(file, ec);
  return ec ? 0 : size;
}

// The order in which workers take the files at `which`: largest first, so
// that no worker is left with a big file while the others have nothing to
// do. Results stay in input order; a file whose size cannot be read goes last.
std::vector<std::size_t> largestFirst(const ProjectFiles& project, std::vector<std::size_t> which) {
  std::vector<std::uintmax_t> looked;
  if (project.sizes.size() != project.files.size()) {
    looked.assign(project.files.size(), 0);
    for (std::size_t i : which) looked[i] = sizeOrZero(project.files[i]);
  }
  const std::vector<std::uintmax_t>& sizes = looked.empty() ? project.sizes : looked;
  std::stable_sort(which.begin(), which.end(), [&](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
  return which;
}

}  // namespace

FileResult analyzeSource(std::string_view source, const std::string& path, const RecorderProfile& profile,
                         Confidence minConfidence, const BuiltinAliases& aliases, const CModules* cModules,
                         AnalysisReuse* reuse) {
  if (reuse) return analyzeWith(reuse->state().compiler, source, path, profile, minConfidence, aliases, cModules, {}, reuse);
  LuaCompiler compiler;
  return analyzeWith(compiler, source, path, profile, minConfidence, aliases, cModules, {}, reuse);
}

// Analyzes the files at `which` (indices into `files`) on `options.jobs`
// threads, largest first; each result and its links land at its index.
void analyzeBatch(const ProjectFiles& project, const std::vector<std::size_t>& which,
                  const std::map<std::size_t, IncomingHeat>& incoming, std::vector<FileResult>& results,
                  std::vector<FileLinks>& links, bool progress, OrderedPass* ordered) {
  const std::vector<std::string>& files = project.files;
  const AnalyzeOptions& options = project.options;
  const RecorderProfile& profile = options.profile ? *options.profile : defaultProfile();
  std::vector<std::size_t> order = ordered ? std::vector<std::size_t>{} : largestFirst(project, which);
  std::optional<CallersFirstQueue> queue;
  if (ordered) queue.emplace(ordered->order, project.sizes);
  std::atomic<std::size_t> next{0}, done{0};
  const std::size_t count = ordered ? files.size() : order.size();
  auto analyzeOne = [&](LuaCompiler& compiler, std::size_t i) {
    auto in = incoming.find(i);
    ProjectView view{in == incoming.end() ? nullptr : &in->second, &links[i], nullptr, project.dumpBudget};
    view.callersFirst = ordered != nullptr;
    view.countsFlowOn = i < project.inRequireCycle.size() && !project.inRequireCycle[i];
    std::function<IncomingHeat(const std::map<std::string, flow::Heat>&)> seedsFor;
    if (ordered && !ordered->order.waitFor[i].empty()) {  // the queue handed it out after them
      const std::vector<std::size_t>& callers = ordered->order.waitFor[i];
      if (!ordered->index.incomingFrom(callers, links, i, nullptr).empty()) {
        seedsFor = [&, i](const std::map<std::string, flow::Heat>& own) {
          return ordered->index.incomingFrom(callers, links, i, &own);
        };
        view.seedsFor = &seedsFor;
        view.given = &ordered->given[i];
      }
    }
    if (project.moduleImports)
      if (auto c = project.moduleImports->find(i); c != project.moduleImports->end()) view.imports = &c->second;
    const std::string& shown = project.shown[i];
    try {
      if (links[i].mapLater && !links[i].dump.empty()) {  // its kept dump: not read again
        results[i] = analyzeWith(compiler, {}, shown, profile, options.minConfidence, options.aliases,
                                 options.cModules.get(), view);
      } else if (const std::string* unsaved = project.unsavedText(i)) {
        // Compiled from the buffer (no dump kept from a first analysis):
        // its last analysis is taken over as in a single document's.
        AnalysisReuse* reuse = links[i].dump.empty() ? project.reuseOf(i) : nullptr;
        results[i] = analyzeWith(reuse ? reuse->state().compiler : compiler, *unsaved, shown, profile,
                                 options.minConfidence, options.aliases, options.cModules.get(), view, reuse);
      } else
        results[i] = analyzeFile(compiler, files[i], shown, options, profile, view);
    } catch (const std::exception& e) {  // a bug must not take the other files' results with it
      results[i] = FileResult{
          shown, {}, {{FileError::Kind::Input, shown, 0, std::string("internal error: ") + e.what()}}, {}};
    } catch (...) {  // nor may anything else escape the thread (std::terminate)
      results[i] = FileResult{shown, {}, {{FileError::Kind::Input, shown, 0, "internal error"}}, {}};
    }
    std::size_t n = ++done;
    if (progress && options.progress) options.progress(n, count);
  };
  auto worker = [&] {
    LuaCompiler compiler;
    if (queue) {
      while (std::optional<std::size_t> i = queue->take()) {
        analyzeOne(compiler, *i);
        queue->finished(*i);
      }
    } else {
      for (std::size_t k = next++; k < order.size(); k = next++) analyzeOne(compiler, order[k]);
    }
  };
  onThreads(options.jobs, count, worker);
}

namespace {

// Why a file whose mapping waited for the rounds is given without it.
std::string notMapped(const std::string& why) {
  return why + ": its findings are given at their lines without columns, and allow comments in it are not applied";
}

// Maps the predictions of every file whose dump was kept for the rounds
// (analyzeWith) to its text, read again: ranges, suppressions, directive
// problems. A file that changed since its first read (another device,
// inode, size or modification time) or cannot be read again keeps its
// predictions unmapped, with an error naming it. What each file kept for
// the rounds (its dump and links) is freed here too, on the worker
// threads, not on one thread after the last round.
void mapKeptSources(const ProjectFiles& project, std::vector<FileResult>& results, std::vector<FileLinks>& links) {
  forEachOnThreads(project.options.jobs, links.size(), [&](std::size_t i) {
    if (links[i].mapLater) {
      try {
        ReadText again = readText(project.files[i], project.options.maxFileBytes);
        if (again.problemKind)
          results[i].errors.push_back({*again.problemKind, results[i].path, 0, notMapped(again.problem)});
        else if (!again.stamp || !(*again.stamp == *links[i].mapLater))
          results[i].errors.push_back({FileError::Kind::Io, results[i].path, 0,
                                       notMapped("the file changed while it was linted")});
        else
          applySource(again.content, results[i], project.options.profile ? *project.options.profile : defaultProfile());
      } catch (const std::exception& e) {  // as analyzeBatch: the other files' results stay
        results[i].errors.push_back(
            {FileError::Kind::Input, results[i].path, 0, std::string("internal error: ") + e.what()});
      }
    }
    links[i] = FileLinks{};
  });
}

// Whether `now` gives some exported function another caller than `before`
// did: a hotter one, or another call of the same heat to name
// (ProjectIndex::addCall), or other counts of its file's loops.
bool changes(const IncomingHeat& now, const IncomingHeat* before) {
  for (const auto& [member, caller] : now) {
    if (!before) return true;
    auto it = before->find(member);
    if (it == before->end() || !flow::sameCaller(caller, it->second)) return true;
  }
  return false;
}

}  // namespace

void settleProject(const ProjectIndex& index, const std::vector<FileLinks>& links,
                   std::map<std::size_t, IncomingHeat>& used,
                   const std::function<void(const std::vector<std::size_t>&)>& analyzeAgain) {
  // A file whose exported functions other files call otherwise than its
  // latest analysis assumed is analyzed again with those heats; that may
  // make its own calls out hotter in turn, so repeat (chains of modules)
  // until nothing changes. What a call tells another file (its heat, the
  // call named, the counts of its own file's loops) only grows and takes
  // few values, so the rounds settle on the same result whatever order the
  // files were analyzed in (lint's callers first, the language server's
  // modules first); the bound only guards against a mistake.
  constexpr int kMaxRounds = 16;
  for (int round = 0; round < kMaxRounds; ++round) {
    std::map<std::size_t, IncomingHeat> incoming = index.incoming(links);
    std::vector<std::size_t> again;
    for (const auto& [i, heat] : incoming) {
      auto before = used.find(i);
      if (changes(heat, before == used.end() ? nullptr : &before->second)) again.push_back(i);
    }
    if (again.empty()) break;
    for (std::size_t i : again)  // a member no call reaches any more keeps its caller
      for (auto& [member, caller] : incoming[i]) used[i][member] = std::move(caller);
    analyzeAgain(again);
  }
}

std::vector<FileResult> analyzeFiles(const std::vector<std::string>& files, const AnalyzeOptions& options,
                                     const std::vector<std::uintmax_t>& sizes) {
  const ProjectRoot root(options.root);
  std::atomic<std::size_t> dumpBudget{options.keptDumpBytes};
  // One file is never analyzed again (no other file calls it or is called
  // by it): nothing is kept, and it is placed in the text it was read from,
  // as an editor's lint on save of one file expects.
  ProjectFiles project{files, {}, options, nullptr, files.size() > 1 ? &dumpBudget : nullptr};
  if (sizes.size() == files.size()) project.sizes = sizes;
  else  // looked up once for all the batches
    for (const auto& f : files) project.sizes.push_back(sizeOrZero(f));
  for (const auto& f : files) project.shown.push_back(root.show(f));
  std::vector<FileResult> results(files.size());
  std::vector<FileLinks> links(files.size());
  std::vector<std::size_t> all(files.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  std::map<std::size_t, IncomingHeat> used;  // what each file's latest analysis was given
  const ProjectIndex index(project.shown);
  if (files.size() > 1) {
    // Callers first, each module knowing its callers' heat: most files
    // need no second analysis in the rounds (project_order.h).
    std::vector<std::vector<std::string>> required(files.size());
    forEachOnThreads(options.jobs, files.size(), [&](std::size_t i) {
      const std::string* unsaved = project.unsavedText(i);
      thread_local std::vector<char> buffer;
      required[i] = unsaved ? requiredModules(*unsaved) : requiredModulesOf(files[i], options.maxFileBytes, buffer);
    });
    const std::vector<std::vector<std::size_t>> callers = index.callersOf(required);
    project.inRequireCycle = inRequireCycles(callers);
    OrderedPass first{index, callersFirst(callers, project.sizes), std::vector<IncomingHeat>(files.size())};
    analyzeBatch(project, all, used, results, links, true, &first);
    for (std::size_t i = 0; i < files.size(); ++i)
      if (!first.given[i].empty()) used[i] = std::move(first.given[i]);
  } else {
    analyzeBatch(project, all, used, results, links, true);
  }
  // Files that call ctypes with `__new` or functions that register ctypes
  // of other files' module tables are analyzed again knowing them (a first
  // pass must see every export).
  const std::map<std::size_t, ModuleImports> imports = index.moduleImports(links);
  project.moduleImports = &imports;
  if (!imports.empty()) {
    std::vector<std::size_t> importing;
    for (const auto& entry : imports) importing.push_back(entry.first);
    analyzeBatch(project, importing, used, results, links, false);
  }
  settleProject(index, links, used, [&](const std::vector<std::size_t>& again) {
    analyzeBatch(project, again, used, results, links, false);
  });
  mapKeptSources(project, results, links);
  return results;
}

}  // namespace ljcheck
