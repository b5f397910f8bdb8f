// Hot prototypes from resolved calls (see call_graph.h).
#include "flow/call_graph.h"

#include <algorithm>
#include <limits>

#include "flow/argument_trips.h"
#include "flow/ctype_registrars.h"
#include "flow/instruction_effects.h"
#include "flow/literal_trips.h"
#include "flow/loop_exits.h"
#include "flow/loops.h"
#include "flow/module_member.h"
#include "flow/refused_bytecodes.h"
#include "flow/while_trips.h"

namespace ljcheck::flow {

using bytecode::Op;

namespace {

// The tail call at pc of a function to itself passes one of its
// parameters moved by a constant in that parameter's place (`sum_to(i + 1,
// n, acc)`, `go(n - 1, acc * n)`): it counts, as a loop's index does. A
// call that passes something else is as likely a short walk (luarocks
// following an HTTP redirect with `request(location, ...)`, fun.lua
// recursing once per zipped generator).
bool countsLikeALoop(const bytecode::Chunk& chunk, std::size_t proto, int pc) {
  const bytecode::Prototype& fn = chunk.prototypes[proto];
  const auto& call = fn.at(pc);
  for (int k = 0; k < fixedArgs(call) && k < fn.numparams; ++k) {
    const int w = lastWriteBefore(fn, pc, argumentSlot(chunk, call, k));
    if (w == 0) continue;
    const auto& ins = fn.at(w);
    if (isArithmeticWithConstant(ins.op) && ins.b == k && !assignsSlot(fn, k)) return true;
  }
  return false;
}

// The most turns of a loop that a root trace runs through (see evidence()).
constexpr long kUnrolledTurns = 2;

// Whether a trace runs through the loop `trips` instead of stopping at it:
// one or two known turns of a loop whose own trace keeps leaving it. A
// pairs/next loop (ITERN) detects its own loop at its start and forms a
// trace of its own even over two keys (audit 57: a stitched trace linked
// to such a loop's trace, `-> 1`).
bool unrolled(const LoopTrips& trips) { return trips.known && trips.count <= kUnrolledTurns && !trips.pairsLoop; }

// The `for`/`while` line of a loop: a for loop's FORI, JMP or ISNEXT sits
// just before the body; a while loop starts with its condition.
int loopLine(const bytecode::Prototype& proto, const Loop& loop) { return proto.at(loop.entry()).line; }

// The code a side trace from a pairs()/next loop's exit records at once
// (HeatEvidence::iterExit): from the loop's end up to the first
// instruction that may end the trace (a call, a closure, an upvalue close,
// varargs: included, since that is where the trace stops) or make its path
// depend on data (a branch, another loop, a return: not included). The
// last pc of that code, or 0. Only for a loop whose body has none of the
// aborts that keep it from compiling at all.
int iterExitReach(const bytecode::Prototype& proto, const LoopTrips& loop, long hotloop) {
  if (loop.last < 2 || proto.at(loop.last - 1).op != Op::ITERN) return 0;
  if (loop.known && loop.count < hotloop) return 0;
  for (int pc = loop.first; pc <= loop.last; ++pc) {
    Op op = proto.at(pc).op;
    if (op == Op::FNEW || op == Op::UCLO || op == Op::VARG) return 0;
  }
  int reach = 0;
  for (int pc = loop.last + 1; pc <= proto.size(); ++pc) {
    Op op = proto.at(pc).op;
    // A loop's start or back edge: the side trace enters the next loop,
    // or goes round the loop around this one, instead of going straight on.
    bool loopEdge = op == Op::FORI || op == Op::JFORI || op == Op::FORL || op == Op::IFORL || op == Op::JFORL ||
                    op == Op::ITERL || op == Op::IITERL || op == Op::JITERL || op == Op::LOOP || op == Op::ILOOP ||
                    op == Op::JLOOP || op == Op::ISNEXT;
    bool ret = op == Op::RETM || op == Op::RET || op == Op::RET0 || op == Op::RET1;
    if ((op >= Op::ISLT && op <= Op::ISNUM) || op == Op::JMP || loopEdge || ret) break;
    reach = pc;
    if (isCallOrIterator(op) || op == Op::ITERN || op == Op::FNEW || op == Op::UCLO || op == Op::VARG) break;
  }
  return reach;
}

// Whether the call at pc of prototype `proto` may end or split a root trace:
// a builtin the recorder does not compile, a callee the file does not
// resolve, or a Lua function of this file that loops or makes such a call
// (looked into three levels deep; deeper counts as may). A fast function
// the profile records is inlined (audit 107: `io.write` in a helper; the
// loop was blacklisted either way).
bool maySplitRootTrace(const bytecode::Chunk& chunk, const ValueMap& values, std::size_t proto, int pc, int depth) {
  const Value callee = values.at(proto, pc, calleeSlot(chunk.prototypes[proto].at(pc)));
  if (callee.is(Value::Kind::LibFunction)) {
    const FastFunctionDef* ff = values.profile().fastFunction(callee.name);
    return !ff || !ff->recorded();
  }
  constexpr int kDepth = 3;
  if (!callee.is(Value::Kind::LuaFunction) || callee.proto >= chunk.prototypes.size() || depth >= kDepth) return true;
  const auto& body = chunk.prototypes[callee.proto];
  for (int at = 1; at <= body.size(); ++at) {
    const Op op = body.at(at).op;
    if (op == Op::FORL || op == Op::ITERL || op == Op::LOOP || op == Op::ITERN || op == Op::ITERC) return true;
    if (isCall(op) && maySplitRootTrace(chunk, values, callee.proto, at, depth + 1)) return true;
  }
  return false;
}

}  // namespace

CallGraph::CallGraph(const bytecode::Chunk& chunk, const ValueMap& values, long hotloop, long hotexit,
                     const std::map<std::size_t, ExternalCaller>& external,
                     const std::vector<CtypeConstructor>* constructors, const MemberNames* loopingMembers,
                     bool countsFlowOn)
    : heat_(chunk.prototypes.size(), Heat::Cold),
      callers_(chunk.prototypes.size()),
      callbacks_(chunk.prototypes.size()),
      loops_(chunk.prototypes.size()),
      onceOnly_(chunk.prototypes.size()),
      hotloop_(hotloop),
      hotexit_(hotexit),
      external_(external),
      reentered_(chunk.prototypes.size(), false),
      entries_(chunk.prototypes.size(), 1),
      steadyEntries_(chunk.prototypes.size(), 1),
      entryShortfall_(chunk.prototypes.size()),
      loopingMembers_(loopingMembers),
      chunk_(&chunk) {
  escapes_ = values.escapingFunctions();
  const std::vector<bool>& escapes = escapes_;
  std::vector<std::pair<std::size_t, int>> moduleSites;  // proto, pc
  loopMaps_.reserve(chunk.prototypes.size());
  // The bytecodes the recorder refuses: a route around a site through one
  // of them aborts too (Branch::aborts).
  const std::vector<bool>& refused = refusedBytecodes(values.profile());
  std::vector<std::size_t> parents(chunk.prototypes.size(), SIZE_MAX);
  for (std::size_t q = 0; q < chunk.prototypes.size(); ++q)
    for (std::size_t child : chunk.prototypes[q].children)
      if (child < parents.size()) parents[child] = q;
  for (std::size_t q = 0; q < chunk.prototypes.size(); ++q) {
    const auto& proto = chunk.prototypes[q];
    onceOnly_[q] = findOnceOnly(chunk, q, parents);
    // A call that may end or split the root trace (a builtin the recorder
    // does not compile, a Lua function that loops or calls anything, a
    // callee the file does not resolve) makes a route before a refused
    // instruction after it no sure abort: the root trace may end there,
    // compiled (audit 107: `slug(label)`, whose gsub stitches, and a helper
    // whose loop's trace the root trace links to, on the way around a closure).
    const auto stitches = [&](int pc) { return maySplitRootTrace(chunk, values, q, pc, 0); };
    branches_.push_back(branchesOf(proto, refused, stitches));
    const LoopMap& loops = loopMaps_.emplace_back(proto);
    const std::vector<int> refusedHere = loops.loops().empty() ? std::vector<int>{} : refusedPcs(proto, refused);
    for (const auto& loop : loops.loops()) {
      long trips = loop.kind == Loop::Kind::NumericFor   ? numericTrips(chunk, q, values, loop)
                   : loop.kind == Loop::Kind::GenericFor ? genericTrips(chunk, q, values, loop)
                                                          : whileTrips(chunk, q, loop);
      LoopTrips& t =
          loops_[q].emplace_back(LoopTrips{loop.first, loop.last, loopLine(proto, loop), trips >= 0, std::max(trips, 0L)});
      t.exitReach = iterExitReach(proto, t, hotloop);
      t.numericFor = loop.kind == Loop::Kind::NumericFor;
      t.pairsLoop = loop.kind == Loop::Kind::GenericFor && loop.last >= 2 && proto.at(loop.last - 1).op == Op::ITERN;
      t.returnsInside = returnsInside(proto, branches_.back(), loop.first, loop.last);
      t.blocked = blockedOnEveryPass(branches_.back(), refusedHere, loop.first, loop.last);
      if (t.known && loop.kind != Loop::Kind::While)
        if (const Branch* exit = earlyExit(branches_.back(), loop.first, loop.last)) t.leavesAt = exit->line;
    }
    // A `while` loop whose body jumps back to its condition early (LuaJIT's
    // parser sends a trailing `if` there) shows as two loops of one head:
    // a return in either leaves both.
    for (LoopTrips& t : loops_[q])
      for (const LoopTrips& other : loops_[q])
        if (other.first == t.first && other.returnsInside) t.returnsInside = true;
    for (int pc = 1; pc <= proto.size(); ++pc) {
      const auto& ins = proto.at(pc);
      if (!isCallOrIterator(ins.op)) continue;
      Value callee = values.at(q, pc, calleeSlot(ins));
      if (callee.is(Value::Kind::LuaFunction) && callee.proto < chunk.prototypes.size()) {
        callers_[callee.proto].push_back({q, pc, false, 0});
      } else if (const CtypeConstructor* c = callee.is(Value::Kind::CType) && constructors && ins.op != Op::ITERC
                                                 ? findConstructor(*constructors, callee.name)
                                                 : nullptr) {
        // Calling the ctype tail-calls its `__new` (lj_crecord.c crec_tailcall).
        callers_[c->newProto].push_back({q, pc, false, 0});
      } else if (const CtypeConstructor* r = !callee.known() && constructors && ins.op != Op::ITERC
                                                 ? registeredConstructorCalled(values, *constructors, q, pc,
                                                                               calleeSlot(ins))
                                                 : nullptr) {
        callers_[r->newProto].push_back({q, pc, false, 0});  // a ctype registered by name, likewise
      } else if (((callee.is(Value::Kind::ModuleMember) || callee.is(Value::Kind::Module)) && ins.op != Op::ITERC) ||
                 callee.is(Value::Kind::ModuleResult)) {  // f = M.make(); f(x), or `for x in M.iter(t)`; split = require("a.b"); split(s)
        moduleSites.emplace_back(q, pc);
      } else if (callee.is(Value::Kind::LibFunction) && (callee.name == "pcall" || callee.name == "xpcall") &&
                 ins.op != Op::ITERC) {
        Value f = values.at(q, pc, argumentSlot(chunk, ins, 0));
        if (f.is(Value::Kind::LuaFunction) && f.proto < chunk.prototypes.size())
          callers_[f.proto].push_back({q, pc, true, callee.name == "pcall" ? 1 : 2});
      } else if (callee.is(Value::Kind::LibFunction) && (callee.name == "string.gsub" || callee.name == "table.sort")) {
        int k = callee.name == "string.gsub" ? 2 : 1;
        if (k >= fixedArgs(ins)) continue;
        Value f = values.at(q, pc, argumentSlot(chunk, ins, k));
        if (f.is(Value::Kind::LuaFunction) && f.proto < chunk.prototypes.size())
          callbacks_[f.proto].push_back({q, pc, false, 0});
      }
    }
  }
  // `for i = 1, n` over a parameter: the calls show n when only they can
  // call the function.
  for (std::size_t q = 0; q < chunk.prototypes.size(); ++q) {
    if (escapes[q] || external_.count(q) || callers_[q].empty()) continue;
    const auto& shapes = loopMaps_[q].loops();
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      LoopTrips& t = loops_[q][k];
      if (t.known) continue;
      ArgumentTrips a = argumentTrips(chunk, q, values, shapes[k], callers_[q], hotloop);
      if (a.count < 0) continue;
      t.known = true;
      t.count = a.count;
      t.countFrom = std::move(a.why);
      t.exitReach = iterExitReach(chunk.prototypes[q], t, hotloop);
      if (const Branch* exit = earlyExit(branches_[q], shapes[k].first, shapes[k].last)) t.leavesAt = exit->line;
    }
  }
  // A generator's loop runs as many turns as its consumer resumes it: when
  // a consumer of this file can stop early, its count is only the most.
  if (stopsGeneratorEarly(chunk, values, loopMaps_, branches_))
    for (std::size_t q = 0; q < chunk.prototypes.size(); ++q)
      for (LoopTrips& t : loops_[q])
        if (t.known && !t.leavesAt)
          if (int yield = yieldLine(chunk.prototypes[q], values, q, t.first, t.last)) {
            t.leavesAt = yield;
            t.leavesByYield = true;
          }
  dropMemosKeyedByLoopIndex(chunk);
  indexCallees();
  findEntered();
  findCycles();
  // runsLoop: from the functions with loops up to their callers. A pcall
  // frame is C: a side trace that returns to it stops there.
  runsLoop_.assign(chunk.prototypes.size(), false);
  std::vector<std::size_t> work;
  for (std::size_t p = 0; p < loops_.size(); ++p) {
    if (loops_[p].empty()) continue;
    runsLoop_[p] = true;
    work.push_back(p);
  }
  for (const auto& [q, pc] : moduleSites) {  // a call into another file's function that loops
    const auto& ins = chunk.prototypes[q].at(pc);
    if (runsLoop_[q] || isTailCall(ins.op) || !memberRunsLoop(values.at(q, pc, calleeSlot(ins)).name)) continue;
    runsLoop_[q] = true;
    work.push_back(q);
  }
  while (!work.empty()) {
    std::size_t p = work.back();
    work.pop_back();
    for (const auto& site : callers_[p]) {
      if (site.protectedCall || runsLoop_[site.proto]) continue;
      runsLoop_[site.proto] = true;
      work.push_back(site.proto);
    }
  }
  findProtected();
  // A function is as hot as its hottest call site; iterate to a fixpoint.
  for (std::size_t p = 0; p < escapes.size(); ++p)
    if (escapes[p]) heat_[p] = Heat::Possible;
  findTailRecursion();
  for (const auto& [p, caller] : external_)
    if (p < heat_.size()) heat_[p] = std::max(heat_[p], caller.heat);
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t p = 0; p < callers_.size(); ++p) {
      for (const auto& site : callers_[p]) {
        // A tail call of itself outside its loops heats only the code that
        // leads to it (tailRecursion_), not the function's other returns.
        if (site.proto == p && isTailCall(chunk.prototypes[p].at(site.pc).op) && !inLoop(p, site.pc)) continue;
        Heat h = calleeHeat(evidenceAt(site.proto, site.pc));
        if (h > heat_[p]) {
          heat_[p] = h;
          changed = true;
        }
      }
    }
  }
  // Under a pcall that runs hot: the functions its protected calls reach.
  underHotPcall_.assign(callers_.size(), 0);
  std::vector<std::size_t> protectedHot;
  for (std::size_t p = 0; p < callers_.size(); ++p)
    for (const auto& site : callers_[p])
      if (site.protectedCall && !underHotPcall_[p] && calleeHeat(evidenceAt(site.proto, site.pc)) >= Heat::Likely) {
        underHotPcall_[p] = 1;
        protectedHot.push_back(p);
      }
  markCallees(underHotPcall_, std::move(protectedHot));
  // Entered at least hotexit times: from a loop that runs that often (or
  // whose trip count is unknown), or from a function that runs hot.
  for (std::size_t p = 0; p < callers_.size(); ++p)
    for (const auto& site : callers_[p]) {
      HeatEvidence e = evidenceAt(site.proto, site.pc);
      // A lazy initialization calls once per key, however hot its caller
      // (audit 95: a template compiled on its first use, then cached).
      if (e.onceOnlyLine) continue;
      bool fromLoop = e.loop && (e.unknownTrips || e.iterations >= hotexit_);
      if (fromLoop || heat_[site.proto] >= Heat::Likely) reentered_[p] = true;
    }
  for (auto& sites : callers_)
    for (auto& site : sites) site.line = chunk.prototypes[site.proto].at(site.pc).line;
  EntryCounts counts;
  countEntries(true, counts);
  entries_ = std::move(counts.runs);
  steadyEntries_ = std::move(counts.steady);
  entryShortfall_ = std::move(counts.shortfall);
  entryShortfallByBranch_ = std::move(counts.byBranch);
  entryShortfallElsewhere_ = std::move(counts.elsewhere);
  // What other files are told of this file's calls into them counts only
  // this file's own loops and calls when it is in a cycle of modules:
  // counts other files' calls gave would go round the cycle and grow with
  // every round of the project. Out of one, they flow on (audit 100:
  // array2d's map, called from a loop of 400 turns, calls tablex.imap).
  EntryCounts own;
  if (!moduleSites.empty()) {
    if (external_.empty() || countsFlowOn)
      own = EntryCounts{entries_, steadyEntries_, entryShortfall_, entryShortfallByBranch_, entryShortfallElsewhere_};
    else countEntries(false, own);
  }
  settled_ = true;
  for (const auto& [q, pc] : moduleSites) {  // calledMembers_ is sorted and made unique below
    const Value callee = values.at(q, pc, calleeSlot(chunk.prototypes[q].at(pc)));
    // Calling the module's value itself: the function it returns, if it returns one.
    const std::string itself = callee.is(Value::Kind::Module)
                                   ? std::string(callee.name) + ":" + std::string(kModuleItself)
                                   : std::string();
    std::string_view name = itself.empty() ? callee.name : std::string_view(itself);
    ModuleMemberName called = ModuleMemberName::parse(name);
    if (!called.valid()) continue;
    if (calledMembers_.empty() || calledMembers_.back() != name) calledMembers_.emplace_back(name);
    // A call a side trace records once does not make its callee hot.
    HeatEvidence e = evidence(q, pc, false);
    if (e.heat == Heat::Cold) continue;
    CountStop stop;
    long steady = steadyRunsWith(q, pc, &stop, own.steady, true);
    int line = chunk.prototypes[q].at(pc).line;
    moduleCalls_.push_back({std::string(called.module), std::string(called.member), calleeHeat(e), line,
                            e.loop ? e.loop->line : 0, e.iterations, e.unknownTrips, steady,
                            stop.kind != CountStop::Kind::None ? describeStop(stop, line, "") : own.shortfall[q],
                            stop.kind != CountStop::Kind::None ? stop.kind == CountStop::Kind::Branch
                                                               : own.byBranch.at(q) != 0,
                            q, pc});
    moduleCalls_.back().runs = runsWith(q, pc, own.runs);
    moduleCalls_.back().shortfallElsewhere = stop.kind == CountStop::Kind::None && own.elsewhere.at(q) != 0;
  }
  std::sort(calledMembers_.begin(), calledMembers_.end());
  calledMembers_.erase(std::unique(calledMembers_.begin(), calledMembers_.end()), calledMembers_.end());
}

const ExternalCaller* CallGraph::externalCaller(std::size_t proto) const {
  auto it = external_.find(proto);
  return it == external_.end() || it->second.heat < heat_.at(proto) ? nullptr : &it->second;
}

// Kosaraju over the call edges (caller -> callee): one pass in the reverse
// graph (callers) for a finishing order, one in the forward graph.
void CallGraph::findCycles() {
  std::size_t n = callers_.size();
  recursive_.assign(n, false);
  for (std::size_t p = 0; p < n; ++p)
    for (const auto& site : callers_[p])
      if (site.proto == p) recursive_[p] = true;
  std::vector<std::size_t> order;
  std::vector<bool> seen(n, false);
  for (std::size_t root = 0; root < n; ++root) {
    if (seen[root]) continue;
    std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};  // node, next edge
    seen[root] = true;
    while (!stack.empty()) {
      auto& [node, edge] = stack.back();
      if (edge < callers_[node].size()) {
        std::size_t next = callers_[node][edge++].proto;
        if (!seen[next]) {
          seen[next] = true;
          stack.push_back({next, 0});
        }
      } else {
        order.push_back(node);
        stack.pop_back();
      }
    }
  }
  component_.assign(n, SIZE_MAX);
  std::vector<std::size_t> size;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (component_[*it] != SIZE_MAX) continue;
    std::size_t id = size.size();
    size.push_back(0);
    std::vector<std::size_t> stack{*it};
    component_[*it] = id;
    while (!stack.empty()) {
      std::size_t node = stack.back();
      stack.pop_back();
      ++size[id];
      for (std::size_t k = calleeStart_[node]; k < calleeStart_[node + 1]; ++k)
        if (const std::size_t next = calleeList_[k]; component_[next] == SIZE_MAX) {
          component_[next] = id;
          stack.push_back(next);
        }
    }
  }
  for (std::size_t p = 0; p < n; ++p)
    if (size[component_[p]] > 1) recursive_[p] = true;
}

// Forward from the targets of pcall/xpcall over the resolved call edges.
void CallGraph::findProtected() {
  underPcall_.assign(callers_.size(), 0);
  std::vector<std::size_t> work;
  for (std::size_t p = 0; p < callers_.size(); ++p)
    for (const auto& site : callers_[p])
      if (site.protectedCall && !underPcall_[p]) {
        underPcall_[p] = 1;
        work.push_back(p);
      }
  markCallees(underPcall_, std::move(work));
}

HeatEvidence CallGraph::evidenceAt(std::size_t proto, int pc) const { return evidence(proto, pc, true); }

bool CallGraph::reachedFromExit(std::size_t proto, const LoopTrips& loop, int pc) const {
  auto [it, fresh] = reachedFromExit_.try_emplace({proto, loop.last});
  if (fresh) it->second = reachablePcs(chunk_->prototypes[proto], loop.last + 1);
  return pc >= 0 && static_cast<std::size_t>(pc) < it->second.size() && it->second[static_cast<std::size_t>(pc)];
}

namespace {
constexpr long kManyRuns = 1L << 40;  // saturates: nested constant loops can multiply past long

long timesSaturating(long a, long b) { return a > 0 && b > kManyRuns / a ? kManyRuns : a * b; }
}  // namespace

long CallGraph::runsAt(std::size_t proto, int pc) const { return runsWith(proto, pc, entries_); }

long CallGraph::runsWith(std::size_t proto, int pc, const std::vector<long>& entries) const {
  long runs = entries.at(proto);
  for (const auto& loop : loops_.at(proto))
    if (pc >= loop.first && pc <= loop.last && loop.known && !loop.leavesAt)
      runs = timesSaturating(runs, std::max(loop.count, 1L));
  return runs;
}

// Each prototype gets the most runs of any one call site outside its own
// cycle of recursion (a lower bound: the sites are not added up), to a
// fixpoint; the graph without the cycles is acyclic, so it settles. With
// `external`, other files' calls count too (their runs as their files'
// own loops show them).
void CallGraph::countEntries(bool external, EntryCounts& out) const {
  const std::size_t n = callers_.size();
  out.runs.assign(n, 1);
  out.steady.assign(n, 1);
  out.shortfall.assign(n, std::string());
  out.byBranch.assign(n, 0);
  out.elsewhere.assign(n, 0);
  if (external)
    for (const auto& [p, caller] : external_) {
      if (p >= n) continue;
      if (caller.runs > out.runs[p]) {
        out.shortfall[p] = caller.shortfall;
        out.byBranch[p] = caller.shortfallByBranch ? 1 : 0;
        out.elsewhere[p] = caller.shortfall.empty() ? 0 : 1;
      }
      out.runs[p] = std::max(out.runs[p], std::min(std::max(caller.runs, 1L), kManyRuns));
      out.steady[p] = std::max(out.steady[p], std::min(std::max(caller.steadyRuns, 1L), kManyRuns));
    }
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t p = 0; p < n; ++p)
      for (const auto& site : callers_[p]) {
        if (component_.at(site.proto) == component_.at(p)) continue;
        long runs = runsWith(site.proto, site.pc, out.runs);
        CountStop stop;
        long steady = steadyRunsWith(site.proto, site.pc, &stop, out.steady, true);
        if (runs > out.runs[p]) {
          out.runs[p] = runs;
          changed = true;
          // What keeps this site, the one with the most calls, from running on every pass.
          out.shortfall[p] = stop.kind != CountStop::Kind::None ? describeStop(stop, site.line, "")
                                                                : out.shortfall[site.proto];
          // This file's own branches are weighed call by call (calls in
          // both arms of one run on every pass: prediction_sink.cpp,
          // branchAround); another file's come as its calls say.
          out.byBranch[p] = stop.kind != CountStop::Kind::None ? 0 : out.byBranch[site.proto];
          out.elsewhere[p] = stop.kind != CountStop::Kind::None ? 0 : out.elsewhere[site.proto];
        }
        if (steady > out.steady[p]) {
          out.steady[p] = steady;
          changed = true;
        }
      }
  }
}

std::string CallGraph::describeStop(const CountStop& stop, int callLine, const std::string& where) {
  std::string call = "the call at line " + std::to_string(callLine) + where;
  std::string at = std::to_string(stop.line) + where;
  switch (stop.kind) {
    case CountStop::Kind::Branch:
      return (stop.byReturn ? "a path that returns at line " : "a branch at line ") + at + " can go around " + call;
    case CountStop::Kind::InnerLoop:
      return call + " comes after the loop at line " + at + " in the same turn, where a root trace stops";
    case CountStop::Kind::UnknownTurns:
      return call + " is in the loop at line " + at + ", whose trip count the bytecode does not show";
    case CountStop::Kind::LeavesEarly:
      return call + " is in a loop that the branch at line " + at + " can leave early";
    case CountStop::Kind::Yields:
      return call + " is in a loop that yields at line " + at + ", and whoever resumes the coroutine decides how "
             "many of its turns run";
    case CountStop::Kind::None:
      break;
  }
  return {};
}

long CallGraph::steadyRunsAt(std::size_t proto, int pc, CountStop* stop) const {
  return steadyRunsWith(proto, pc, stop, steadyEntries_);
}

namespace {

// The call at `site` fills parameter `parameter` with the index of a
// numeric for loop around it, through at most three copies or constant
// arithmetic (`get(i)`, `get(i + 1)`).
bool passesLoopIndex(const bytecode::Chunk& chunk, const LoopMap& loops, const CallSite& site, int parameter) {
  const auto& caller = chunk.prototypes[site.proto];
  const auto& call = caller.at(site.pc);
  const int argument = parameter + site.firstArgument;
  if (argument >= fixedArgs(call)) return false;
  int slot = argumentSlot(chunk, call, argument), at = site.pc;
  for (int hops = 0; hops < 3; ++hops) {
    const int w = lastWriteBefore(caller, at, slot);
    if (w == 0) break;
    at = w;
    const auto& ins = caller.at(w);
    if (ins.op == Op::MOV) slot = ins.d;
    else if (isArithmeticWithConstant(ins.op)) slot = ins.b;
    else break;
  }
  for (const Loop& loop : loops.loops())
    if (loop.kind == Loop::Kind::NumericFor && loop.contains(site.pc) && loop.first >= 2 &&
        caller.at(loop.first - 1).op == Op::FORI && slot == caller.at(loop.first - 1).a + 3)
      return true;
  return false;
}

}  // namespace

// A memoizing function whose key a caller fills with a loop's index misses
// on every turn: what its cache guards runs every time, not once per key.
void CallGraph::dropMemosKeyedByLoopIndex(const bytecode::Chunk& chunk) {
  for (std::size_t q = 0; q < onceOnly_.size(); ++q) {
    auto keyedByIndex = [&](const OnceOnly& o) {
      if (o.keyParameter < 0) return false;
      for (const auto& site : callers_[q])
        if (passesLoopIndex(chunk, loopMaps_[site.proto], site, o.keyParameter)) return true;
      return false;
    };
    auto& once = onceOnly_[q];
    once.erase(std::remove_if(once.begin(), once.end(), keyedByIndex), once.end());
  }
}

long CallGraph::steadyCalls(std::size_t proto) const {
  if (interpretedCalls_.size() != callers_.size()) countInterpretedCalls();
  long calls = 0;
  for (const auto& site : callers_.at(proto)) {
    if (component_.at(site.proto) == component_.at(proto)) continue;
    calls = std::min(calls + steadyRunsWith(site.proto, site.pc, nullptr, interpretedCalls_, true, true), kManyRuns);
  }
  return calls;
}

// Each prototype's interpreted calls: those of a caller's own callers
// count once for each of its calls, to a fixpoint (the graph without its
// cycles of recursion is acyclic, and the counts only grow). A function
// no call of this file reaches counts 1, or other files' calls of it.
void CallGraph::countInterpretedCalls() const {
  const std::size_t n = callers_.size();
  std::vector<long> base(n, 1);
  for (const auto& [p, caller] : external_)
    if (p < n) base[p] = std::min(std::max(caller.entryCalls, 1L), kManyRuns);
  interpretedCalls_ = base;
  for (std::size_t round = 0; round <= n; ++round) {
    bool changed = false;
    for (std::size_t p = 0; p < n; ++p) {
      long calls = 0;
      bool called = false;
      for (const auto& site : callers_[p]) {
        if (component_.at(site.proto) == component_.at(p)) continue;
        called = true;
        calls = std::min(calls + steadyRunsWith(site.proto, site.pc, nullptr, interpretedCalls_, true, true), kManyRuns);
      }
      if (!called) continue;
      if (external_.count(p)) calls = std::min(calls + base[p], kManyRuns);
      if (calls != interpretedCalls_[p]) {
        interpretedCalls_[p] = calls;
        changed = true;
      }
    }
    if (!changed) break;
  }
}

bool CallGraph::onEveryCall(std::size_t proto, int pc) const {
  for (const LoopTrips& loop : loops_.at(proto))
    if (pc >= loop.first && pc <= loop.last) return false;
  return !routesAround(branches_.at(proto), pc, 1, std::numeric_limits<int>::max(), true).compiles;
}

long CallGraph::steadyRunsWith(std::size_t proto, int pc, CountStop* stop, const std::vector<long>& steadyEntries,
                               bool entering, bool interpreted) const {
  const auto& branches = branches_.at(proto);
  CountStop none;
  CountStop& why = stop ? *stop : none;
  why = {};
  long runs = 1;
  int at = pc;  // what must run on every pass of the next level out
  const auto& loops = loops_.at(proto);
  const auto& shapes = loopMaps_.at(proto).loops();
  bool innermost = true;
  for (std::size_t k = loops.size(); k-- > 0;) {  // innermost first
    const LoopTrips& loop = loops[k];
    if (pc < loop.first || pc > loop.last) continue;
    Routes routes = routesAround(branches, at, loop.first, loop.last, false);
    if (const Branch* around = routes.compiles ? routes.compiles : entering ? routes.aborts : nullptr) {
      why = {CountStop::Kind::Branch, around->line, why.abortingRoute, false, around->to == 0};
      return runs;
    }
    if (routes.aborts && !why.abortingRoute) why.abortingRoute = routes.aborts->line;
    // The root trace that starts at this loop stops at a loop inside it
    // that comes first (lj_record.c: LINNER, or a link to that loop's own
    // trace), unless that loop turns so few times that it is unrolled (see
    // evidence()): what comes after it is recorded by side traces only.
    if (innermost && !unrolled(loop) && !interpreted) {
      for (std::size_t j = k + 1; j < loops.size(); ++j) {
        const LoopTrips& inner = loops[j];
        if (inner.last >= pc || inner.first < loop.first || inner.last > loop.last) continue;
        if (unrolled(inner)) continue;
        why = {CountStop::Kind::InnerLoop, inner.line, why.abortingRoute, !inner.known || inner.leavesAt != 0};
        why.innerTurns = inner.known ? inner.count : 0;
        const Routes skip = routesAround(branches, shapes[j].entry(), loop.first, loop.last, false);
        if (const Branch* around = skip.compiles ? skip.compiles : skip.aborts) why.innerSkippedAt = around->line;
        return runs;
      }
    }
    innermost = false;
    if (!loop.known) {
      why = {CountStop::Kind::UnknownTurns, loop.line, why.abortingRoute};
      return runs;
    }
    if (loop.leavesAt) {
      why = {loop.leavesByYield ? CountStop::Kind::Yields : CountStop::Kind::LeavesEarly, loop.leavesAt,
             why.abortingRoute};
      return runs;
    }
    runs = timesSaturating(runs, std::max(loop.count, 1L));
    // The loop itself runs from where it is entered.
    at = shapes[k].entry();
  }
  Routes routes = routesAround(branches, at, 1, std::numeric_limits<int>::max(), true);
  if (const Branch* around = routes.compiles ? routes.compiles : entering ? routes.aborts : nullptr) {
    why = {CountStop::Kind::Branch, around->line, why.abortingRoute, false, around->to == 0};
    return runs;
  }
  if (routes.aborts && !why.abortingRoute) why.abortingRoute = routes.aborts->line;
  return timesSaturating(runs, steadyEntries.at(proto));
}

// Which functions run at all: the main chunk, those that escape or that
// another file or a C library calls, and those a function that runs calls.
// One that only calls itself, or that nothing calls, never runs: its loops
// and calls are no evidence of anything.
void CallGraph::findEntered() {
  const std::size_t count = callers_.size();
  entered_.assign(count, 0);
  std::vector<std::size_t> work;
  auto enter = [&](std::size_t p) {
    if (p < count && !entered_[p]) {
      entered_[p] = 1;
      work.push_back(p);
    }
  };
  if (count > 0) enter(count - 1);
  for (std::size_t p = 0; p < count; ++p)
    if (escapes_[p] || !callbacks_[p].empty()) enter(p);
  for (const auto& [p, caller] : external_) enter(p);
  markCallees(entered_, std::move(work));
}

void CallGraph::indexCallees() {
  const std::size_t count = callers_.size();
  calleeStart_.assign(count + 1, 0);
  for (std::size_t p = 0; p < count; ++p)
    for (const auto& site : callers_[p])
      if (site.proto < count) ++calleeStart_[site.proto + 1];
  for (std::size_t p = 0; p < count; ++p) calleeStart_[p + 1] += calleeStart_[p];
  calleeList_.resize(calleeStart_[count]);
  std::vector<std::size_t> next(calleeStart_.begin(), calleeStart_.end() - 1);
  for (std::size_t p = 0; p < count; ++p)
    for (const auto& site : callers_[p])
      if (site.proto < count) calleeList_[next[site.proto]++] = p;
}

void CallGraph::markCallees(std::vector<char>& marked, std::vector<std::size_t> work) const {
  while (!work.empty()) {
    const std::size_t p = work.back();
    work.pop_back();
    for (std::size_t k = calleeStart_[p]; k < calleeStart_[p + 1]; ++k)
      if (const std::size_t c = calleeList_[k]; !marked[c]) {
        marked[c] = 1;
        work.push_back(c);
      }
  }
}

// Whether known trips that reach hotloop leave no sure try at recording a
// pass through the innermost loop. A numeric for counts at its end (FORL):
// its hot counter fires on the hotloop-th run of it, and the trace records
// from there, so that run must loop back. When it is the inner loop's last
// run (its turns divide hotloop: 8 inside 8), the try aborts on leaving the
// loop and the counter fires again after the first penalty, 36 turns with
// no random bits (lj_trace.c penalty_pc), on the 93rd run. The counter
// lives on across calls, so the runs of every call of the function count
// (audit 55: 56 turns called twice abort). Audit 54 saw no abort at a
// closure in 8x8, 7x8, 2x28 and 28x2 loops, one in 4x16 and in any single
// loop of 57 turns or more; audit 55 one in 12x8 and 50x2. A `while`,
// `repeat` or iterator loop counts before its body, so its count never
// falls on an exit (audit 55: 56 turns of each abort).
long CallGraph::countedTurns(std::size_t proto, const HeatEvidence& e) const {
  const long calls = std::max({entries_.at(proto), static_cast<long>(callers_.at(proto).size()), 1L});
  return timesSaturating(e.iterations, calls);
}

// LuaJIT hashes hot counters by the instruction's address into 64 slots
// (lj_dispatch.h hotcount). One that shares the loop's slot and reaches
// zero first starts its own trace and resets the slot, and the loop counts
// again from there: a loop of fewer than one and a half times hotloop
// turns in all may then never get hot. A function's entry counts one a call, so
// one called on every turn fires late, when the loop has counted most of
// its turns; an inner loop of many turns fires in the first pass, when a
// reset costs little. Audit 98: a loop of 60 turns that calls a
// constructor (which calls another, which runs a pairs loop) showed its
// closure in 16 and 11 of 20 runs (Debian, OpenResty), 72 turns in 17 and
// 20 of 20, 76 in all; 60 turns calling a function that calls another, 27
// and 30 of 30.
constexpr long kSharedCounterTurns = 3;  // in halves of hotloop: below 84 turns on 2.1's defaults

bool CallGraph::runsOtherCounters(std::size_t proto, const LoopTrips& loop) const {
  for (std::size_t k = calleeStart_[proto]; k < calleeStart_[proto + 1]; ++k) {
    const std::size_t callee = calleeList_[k];
    // A leaf callee (no loop, no call of a Lua function) never showed it:
    // 57 turns calling one aborted in 30 of 30 runs on both builds.
    if (chunk_->prototypes[callee].isVararg() ||
        (!runsLoop_[callee] && calleeStart_[callee] == calleeStart_[callee + 1]))
      continue;
    for (const auto& site : callers_[callee]) {
      if (site.proto != proto || site.pc < loop.first || site.pc > loop.last) continue;
      // A call in an inner loop counts many times a turn: it fires early.
      const bool inner = std::any_of(loops_.at(proto).begin(), loops_.at(proto).end(), [&](const LoopTrips& o) {
        return &o != &loop && o.first >= loop.first && o.last <= loop.last && o.first <= site.pc && site.pc <= o.last;
      });
      if (!inner) return true;
    }
  }
  return false;
}

bool CallGraph::barelyHot(std::size_t proto, const HeatEvidence& e) const {
  if (!e.loop || !e.loop->known || !e.loop->numericFor) return false;
  const long total = countedTurns(proto, e);
  const long turns = std::max(e.loop->count, 1L);
  constexpr long kPenaltyTurns = 37;  // PENALTY_MIN, 72 counts at 2 a turn, and the turn it fires on
  long fires = hotloop_;
  for (int tries = 0; tries < 2; ++tries, fires += kPenaltyTurns) {
    if (fires >= total) return true;    // no turn left to record
    if (fires % turns != 0) return false;  // it fires inside the loop: that try records a pass
  }
  return true;
}

HeatEvidence CallGraph::evidence(std::size_t proto, int pc, bool onceSideTraces) const {
  HeatEvidence e;
  if (!entered_[proto]) return e;  // never runs: cold
  bool inLoop = false;
  long iterations = 1, upper = 1;
  const LoopTrips* leaves = nullptr;
  for (const auto& loop : loops_.at(proto)) {
    if (pc < loop.first || pc > loop.last) continue;
    inLoop = true;
    e.loop = &loop;  // outer before inner: the last one is the innermost
    if (!loop.known) {
      e.unknownTrips = true;
      e.unknownLoop = &loop;
      continue;
    }
    // A loop that never turns (over a table nothing fills) never runs its body.
    if (loop.count == 0 && !loop.leavesAt) return HeatEvidence{};
    upper = timesSaturating(upper, loop.count);
    if (loop.leavesAt) leaves = &loop;  // at most its count: the lower bound takes none of it
    else iterations = timesSaturating(iterations, loop.count);
  }
  // A loop that can leave early and cannot make the code hot even at its
  // full count keeps the count (code that runs once stays cold); one that
  // would make it hot only may: its trips are as good as unknown.
  if (leaves && upper < hotloop_) iterations = upper;
  else if (leaves && iterations < hotloop_) {
    e.unknownTrips = true;
    e.leavesEarly = leaves;
    e.atMost = upper;
  }
  Heat loopHeat = Heat::Cold;
  if (inLoop) {
    e.iterations = iterations;
    if (iterations >= hotloop_) {
      e.barelyHot = !e.unknownTrips && barelyHot(proto, e);
      if (!e.barelyHot && !e.unknownTrips && e.loop && e.loop->known && countedTurns(proto, e) < kSharedCounterTurns * hotloop_ / 2 &&
          runsOtherCounters(proto, *e.loop))
        e.barelyHot = e.sharedCounter = true;
      loopHeat = e.barelyHot ? Heat::Likely : Heat::Known;
    } else if (e.unknownTrips && iterations > 0) {
      loopHeat = Heat::Likely;
    }
  }
  e.heat = std::max(heat_.at(proto), loopHeat);
  if (const TailRecursion& t = tailRecursion_.at(proto); e.heat < Heat::Likely && !t.reaches.empty() &&
                                                         t.reaches[static_cast<std::size_t>(pc)]) {
    e.heat = Heat::Likely;
    e.tailRecursion = t.line;
  }
  if (!inLoop && e.heat == Heat::Known) {
    for (const auto& loop : loops_.at(proto)) {
      // A loop of one or two turns is unrolled into the root trace: its
      // own traces keep leaving it (LLEAVE), and lj_record.c innerloopleft
      // then lets a root trace run through it. From three turns on, its own
      // trace mostly compiles (or aborts for another reason) and a root
      // trace stops there. Measured with `ljcheck run` on a function that
      // makes a closure after `for i = 1, T`, called 60,000 times from a
      // loop: T = 1, 2 blacklist the caller's loop; T = 3 aborts in root
      // traces without blacklisting; T = 5, 10, 30 only in side traces.
      if (pc <= loop.last || unrolled(loop)) continue;
      // Only a loop whose exit leads to it: not one in the other arm of a
      // branch (audit 80: a sort in an `else` after a loop in the `then`).
      if (!reachedFromExit(proto, loop, pc)) continue;
      e.pastLoop = &loop;  // it still runs as often: its callees' heat is unchanged
      break;
    }
  }
  if (settled_ && e.heat < Heat::Likely && reentered_.at(proto)) {
    for (const auto& loop : loops_.at(proto)) {
      // A loop whose trip count the bytecode does not show is likely hot
      // too (audit 95: `for i = 1, #rows` over 5,000 rows, in a function
      // called 40 times, then `return buf:tostring()`).
      if (pc <= loop.last || loop.blocked || (loop.known ? loop.count < hotloop_ : loop.returnsInside)) continue;
      // Side-trace aborts do not blacklist: a warning at most.
      e.afterLoop = &loop;
      e.heat = Heat::Likely;
    }
  }
  if (settled_ && e.heat < Heat::Likely) {
    for (const auto& loop : loops_.at(proto)) {
      if (pc <= loop.last || pc > loop.exitReach) continue;
      if (!onceSideTraces && !reentered_.at(proto)) continue;
      e.iterExit = &loop;
      e.once = !reentered_.at(proto);
      e.heat = Heat::Likely;
    }
  }
  for (const auto& once : onceOnly_.at(proto)) {
    if (pc < once.first || pc > once.last) continue;
    e.onceOnlyLine = once.line;
    e.onceOnlyLasting = once.lasting;
    e.heat = std::min(e.heat, Heat::Possible);
  }
  return e;
}

void CallGraph::findTailRecursion() {
  tailRecursion_.assign(callers_.size(), {});
  for (std::size_t p = 0; p < callers_.size(); ++p) {
    const bytecode::Prototype& proto = chunk_->prototypes[p];
    int self = 0;
    bool called = external_.count(p) > 0;
    for (const CallSite& site : callers_[p]) {
      if (site.proto == p && isTailCall(proto.at(site.pc).op)) self = site.pc;
      else if (site.proto != p && entered_[site.proto]) called = true;
    }
    if (self == 0 || !called || !countsLikeALoop(*chunk_, p, self)) continue;
    tailRecursion_[p] = {proto.at(self).line, pcsReaching(proto, self)};
  }
}

// A loop around a call whose trip count the bytecode does not show may not
// turn at all, however hot the caller is: the callee is hot only likely
// (audit 95: `unescape` called in a `for k, v in qs:gmatch(...)` loop of a
// function called 50,000 times, over query strings that were all empty;
// no abort at its closure). The call's own heat stays the caller's: the
// code around it does run.
Heat CallGraph::calleeHeat(const HeatEvidence& e) { return e.unknownTrips ? std::min(e.heat, Heat::Likely) : e.heat; }

bool CallGraph::calledOnceOnly(std::size_t proto) const {
  if (heat_.at(proto) != Heat::Possible || escapes_.at(proto) || external_.count(proto)) return false;
  bool once = false;
  for (const CallSite& site : callers_.at(proto)) {
    const HeatEvidence e = evidenceAt(site.proto, site.pc);
    if (e.onceOnlyLine > 0 && e.onceOnlyLasting) once = true;
    else if (calleeHeat(e) >= Heat::Possible) return false;  // a call that gives the heat otherwise
  }
  return once;
}

bool CallGraph::runsHot(std::size_t proto, int pc) const { return heatAt(proto, pc) != Heat::Cold; }

bool CallGraph::inLoop(std::size_t proto, int pc) const {
  for (const auto& loop : loops_.at(proto))
    if (pc >= loop.first && pc <= loop.last) return true;
  return false;
}

}  // namespace ljcheck::flow
