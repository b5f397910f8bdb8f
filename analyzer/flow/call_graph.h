// Which prototypes of a chunk can get hot, as far as the file shows: a
// function called from a loop (or from a function that can get hot) is
// inlined into that loop's trace. The main chunk runs once and is never hot
// outside its loops; a function whose callers are all outside this file is
// only possibly hot, when it escapes.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "flow/every_pass.h"
#include "flow/loops.h"
#include "flow/metatypes.h"
#include "flow/once_only.h"
#include "flow/values.h"
#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

struct CallSite {
  std::size_t proto = 0;  // the calling prototype
  int pc = 0;             // its CALL-like instruction
  // pcall(f, ...) or xpcall(f, handler, ...): f runs above a pcall frame,
  // and its arguments start one (xpcall: two) slots later.
  bool protectedCall = false;
  int firstArgument = 0;  // index of the call's argument that is f's first parameter
  int line = 0;           // the call's line (set once the graph is built)
};

// How sure the bytecode makes us that code runs hot (often enough for
// LuaJIT's hot counters to start a trace: `hotloop` loop iterations, twice as
// many calls). Known: evidence it does: a loop whose trip count is known and
// at least `hotloop` (with the loops around it), or a function called from
// such code. Likely: a loop whose trip count the bytecode does not show (a
// loop over a parameter, a `while` loop on a condition other than a counter), or a function called from one.
// Possible: it escapes (stored in a table or global, returned, passed as an
// argument), so code elsewhere may call it hot. Cold: none of these, or loops
// that cannot get hot (a constant range or literal table shorter than
// `hotloop`, in code that runs once).
enum class Heat { Cold, Possible, Likely, Known };

// What the bytecode shows of how often a loop's body runs per entry.
struct LoopTrips {
  int first = 0, last = 0;  // the loop's pcs, as in Loop
  int line = 0;             // its `for`/`while` line
  bool known = false;       // a numeric for over constants, a generic for over a literal table, or a
                            // while/repeat loop counting between constants (while_trips.h)
  long count = 0;           // when known
  // When the count comes from the arguments of every call of the function
  // (argument_trips.h): which, for the reasoning; empty otherwise.
  std::string countFrom = {};
  // A for loop that a break, goto or return can leave early: `count` is
  // only the most it turns. The line of that branch; 0 when none.
  int leavesAt = 0;
  // The loop is left at `leavesAt` by a coroutine.yield in its body, not a
  // branch: the coroutine may never be resumed (a consumer that takes the
  // first items of a generator; audit 93), so `count` is again only the
  // most it turns.
  bool leavesByYield = false;
  // A pairs()/next loop (ITERN) that can get hot: the last pc of the code
  // after it that a side trace from its exit records at once (see
  // HeatEvidence::iterExit); 0 when none.
  int exitReach = 0;
  // A numeric for, which counts its turns at its end (FORL).
  bool numericFor = false;
  // A pairs()/next loop (ITERN), which detects its own loop at its start
  // and forms a trace of its own even over one or two keys.
  bool pairsLoop = false;
  // Its body runs a bytecode the recorder refuses on every pass (a closure
  // no branch goes around): no trace of it compiles, and so no side trace
  // ever leaves from its exit (audit 86's A*: a sort comparator made in
  // every turn of its `while` loop).
  bool blocked = false;
  // A return (or tail call) in its body: the loop may end there instead of
  // at its own exit, and the code after it may never run (audit 86's A*
  // returns on reaching the goal; its `return nil` after the loop never ran).
  bool returnsInside = false;
};

// The evidence for the heat at one instruction, for the reasoning sentence.
struct HeatEvidence {
  Heat heat = Heat::Cold;
  const LoopTrips* loop = nullptr;  // the innermost loop around the instruction, if any
  long iterations = 0;              // of the loops around it together, when all are known
  bool unknownTrips = false;        // a loop around it has a trip count the bytecode does not show
  const LoopTrips* unknownLoop = nullptr;  // the innermost such loop, when one is
  // A loop around it that can leave early (LoopTrips::leavesAt) and would
  // otherwise make it hot: its count is only an upper bound, so the trips
  // count as unknown (unknownTrips), and `atMost` is the product of the
  // counts with that loop's upper bound.
  const LoopTrips* leavesEarly = nullptr;
  long atMost = 0;
  int onceOnlyLine = 0;             // inside a lazy initialization guarded at this line (see below)
  bool onceOnlyLasting = false;     // that initialization's place outlives the call (OnceOnly::lasting)
  // After a hot loop in a function entered at least `hotexit` times: the
  // loop's exit gets hot, and a side trace from it records this code.
  const LoopTrips* afterLoop = nullptr;
  // Outside every loop of its function, after one: a root trace that enters
  // the function (from a hot caller, or at its own entry) stops at that
  // loop (lj_record.c rec_loop_interp: LINNER), so only side traces record
  // this code, and their aborts do not blacklist. The heat stays: the code
  // runs as often as its function is entered. The side trace may come from
  // a later loop: one in a function called after this loop returns here.
  const LoopTrips* pastLoop = nullptr;
  // Right after a pairs()/next loop (ITERN) that can get hot, before the
  // first call, branch, loop or abort: the loop's exit resumes at its
  // ITERN, which the root trace patched into a JLOOP, so the interpreter
  // re-enters the trace and takes the same exit until hotexit, and a side
  // trace records this code on the loop's first exit (lj_trace.c
  // lj_trace_exit). Set when nothing else makes the code hot; `once`: its
  // function is entered fewer than hotexit times, so the side trace runs
  // once, and an abort costs one attempt.
  const LoopTrips* iterExit = nullptr;
  bool once = false;
  // The known trips reach hotloop but leave no sure try at recording this
  // code (CallGraph::evidence): Likely, not Known.
  bool barelyHot = false;
  // Why, when it is not the turn the counter fires on: the loop turns fewer
  // than one and a half times hotloop in all, and its body calls Lua functions, whose
  // entry counters may share its slot, fire first and reset it
  // (CallGraph::runsOtherCounters).
  bool sharedCounter = false;
  // The line of its function's tail call of itself (a loop written as tail
  // recursion) that this code leads to, when that is what makes it likely
  // hot: each such call runs it again, as many times as the data decides
  // (audit 93: a closure in a continuation-passing `sum_to`, tail-called
  // 100,000 times from each of two calls; `-jv` on both builds: 11 aborts
  // at its entry, blacklisted). Code on the paths that return instead runs
  // once per call from elsewhere. 0: none.
  int tailRecursion = 0;
};

// A call from this file into another module of the project:
// require("a.b").f(...) at a site with this heat.
struct ModuleCall {
  std::string module;  // "a.b"
  std::string member;  // "f"
  Heat heat = Heat::Cold;
  int line = 0;         // the call's line
  int loopLine = 0;     // the innermost loop around it, 0 outside loops
  long iterations = 0;  // of the loops around it, when all trip counts are known
  bool unknownTrips = false;
  long steadyRuns = 0;  // CallGraph::steadyRunsAt of the call
  // Why steadyRuns falls short of the calls the loops show: a clause with
  // lines of the calling file ("a branch at line 11 can go around the call
  // at line 12"), or empty.
  std::string shortfall = {};
  // That clause is a branch that can go around the call (or a call that
  // one goes around): whether the call is made at all, the data decides.
  bool shortfallByBranch = false;
  std::size_t proto = 0;  // where the call is, in the calling file
  int pc = 0;
  // The calls it makes on every pass whether or not a loop's trace records
  // them (steadyRuns before an aborting call ahead of it zeroed them): what
  // the callee's own entry counts when it runs interpreted.
  long entryCalls = 0;
  // In a loop whose trace aborts first in an aborting call ahead of it, on
  // every pass (steadyRuns was zeroed for it): no loop trace records it.
  bool behindAbort = false;
  // In a loop, with a call before it in the loop body that may split the
  // trace (rules::splitBefore): the loop's root trace may never get here.
  // Outside loops, with such a call before it in its function's body.
  bool splitBefore = false;
  // The calls it makes whenever this file runs, as CallGraph::runsAt
  // counts them: its loops' known trip counts times its function's runs
  // from this file's own calls (a helper called from a loop), at least 1.
  long runs = 1;
  // `shortfall` came from another file's call of its function and names
  // that file already ("…, in main.lua"): it is passed on as it is.
  bool shortfallElsewhere = false;
};

// What other files say about how hot a function of this file runs: the
// hottest call into it from elsewhere, and a clause that says where.
struct ExternalCaller {
  Heat heat = Heat::Cold;
  std::string why;  // "step is called from the loop at line 12 of main.lua, which runs 600 times"
  long runs = 0;    // the most calls one such site makes whenever its function runs, when known
  long steadyRuns = 0;  // the same, counted as CallGraph::steadyRunsAt counts
  std::string shortfall = {};  // why steadyRuns < runs, naming the calling file (ModuleCall::shortfall)
  bool shortfallByBranch = false;  // ModuleCall::shortfallByBranch of that call
  bool fromLoop = false;       // `why` names a loop around the call
  long namedRuns = 0;          // the runs of the loop `why` names, when known
  long namedSteady = 0;        // the steadyRuns of the call `why` names
  long entryCalls = 0;         // ModuleCall::entryCalls of every such call, added up
  long calls = 0;              // such calls (call sites), and of them those behind an
  long callsBehindAborts = 0;  // aborting call in their loop (ModuleCall::behindAbort)
  // Some such call is in a loop whose root trace gets to it: no call before
  // it there splits the trace or aborts (ModuleCall::splitBefore, behindAbort).
  bool rootTraceReaches = false;
  // Some such call is in a loop with no abort ahead of it, or outside loops
  // with no call before it in its function's body that may split the trace.
  bool someCallUnsplit = false;
};

inline bool sameCaller(const ExternalCaller& a, const ExternalCaller& b) {
  return a.heat == b.heat && a.why == b.why && a.runs == b.runs && a.steadyRuns == b.steadyRuns &&
         a.shortfall == b.shortfall && a.shortfallByBranch == b.shortfallByBranch && a.fromLoop == b.fromLoop && a.namedRuns == b.namedRuns &&
         a.namedSteady == b.namedSteady &&
         a.entryCalls == b.entryCalls && a.calls == b.calls && a.callsBehindAborts == b.callsBehindAborts &&
         a.rootTraceReaches == b.rootTraceReaches && a.someCallUnsplit == b.someCallUnsplit;
}


class CallGraph {
 public:
  // `hotloop`: the profile's JIT parameter, the loop iterations that make a loop hot.
  // `hotloop` and `hotexit`: the profile's JIT parameters, the loop
  // iterations that make a loop hot and the exits that make an exit hot.
  // `external`: heats other files give this file's functions, by prototype.
  // `constructors`: this file's ctypes with a `__new` metamethod; a call of
  // one calls its `__new` (null: none known).
  // `loopingMembers`: other files' module functions ("a.b:f") that run a
  // loop (runsLoop in their own file; null: none known).
  // `countsFlowOn`: what this file's calls into other files tell them
  // counts the runs `external` gives too (a file in no cycle of modules);
  // otherwise only this file's own loops and calls.
  CallGraph(const bytecode::Chunk& chunk, const ValueMap& values, long hotloop, long hotexit,
            const std::map<std::size_t, ExternalCaller>& external = {},
            const std::vector<CtypeConstructor>* constructors = nullptr,
            const MemberNames* loopingMembers = nullptr, bool countsFlowOn = false);
  Heat heat(std::size_t proto) const { return heat_.at(proto); }
  // The prototype's branches (every_pass.h), with the routes that abort marked.
  const std::vector<Branch>& branches(std::size_t proto) const { return branches_.at(proto); }
  // It escapes (ValueMap::escapingFunctions): code elsewhere may call it.
  bool escapes(std::size_t proto) const { return escapes_.at(proto); }
  // It runs at all: the main chunk, or called by code that runs, or it escapes.
  bool entered(std::size_t proto) const { return entered_.at(proto) != 0; }
  // Where a prototype is called from, in the order found.
  const std::vector<CallSite>& callers(std::size_t proto) const { return callers_.at(proto); }
  // Where a prototype is handed to a library function that calls it back
  // from C (string.gsub's replacement, table.sort's comparator).
  const std::vector<CallSite>& callbacks(std::size_t proto) const { return callbacks_.at(proto); }
  // True when the instruction at pc of proto runs in a loop or in a
  // function that is (or may be) hot.
  bool runsHot(std::size_t proto, int pc) const;
  // The hotter of the function's heat and that of the loops around pc.
  Heat heatAt(std::size_t proto, int pc) const { return evidenceAt(proto, pc).heat; }
  // What a call with the evidence `e` makes its callee: its heat, but only
  // likely through a loop of unknown trip count.
  static Heat calleeHeat(const HeatEvidence& e);
  // The function's heat is only possible, and only lazy initializations
  // give it that (HeatEvidence::onceOnlyLine): once per key, not on every
  // pass. Not one that escapes or another file calls.
  bool calledOnceOnly(std::size_t proto) const;

  HeatEvidence evidenceAt(std::size_t proto, int pc) const;
  // How many times the instruction at least runs whenever the program runs
  // it at all: the known trip counts of the loops around it, times the
  // calls its function at least gets from such loops (in this file, or
  // from other files of the project). A loop whose trip count the bytecode
  // does not show counts once; calls within a cycle of recursion do not
  // count. Saturates at 2^40.
  long runsAt(std::size_t proto, int pc) const;
  // As runsAt, but counting a loop's turns (or a function's calls) only
  // when the instruction runs on every pass through it (every_pass.h):
  // the runs that a root trace starting there records it on, at least.
  // `stop`, when given, says what ended the count early (kind None when
  // nothing did).
  struct CountStop {
    // Branch: a branch can go around it. InnerLoop: a loop of the same body
    // comes first, and a root trace stops there. UnknownTurns: a loop
    // around it turns a number of times the bytecode does not show, maybe
    // none on some passes. LeavesEarly: a loop around it can be left early
    // (`line`: the branch that leaves), so its count is only an upper bound.
    // Yields: a loop around it yields (`line`), and whoever resumes the
    // coroutine decides how many of its turns run.
    enum class Kind { None, Branch, InnerLoop, UnknownTurns, LeavesEarly, Yields };
    Kind kind = Kind::None;
    int line = 0;  // the branch, or the loop's `for`/`while` line
    // The first route around it that was counted through because it aborts
    // too (Branch::aborts): the line it leaves from; 0 for none.
    int abortingRoute = 0;
    // InnerLoop: how many times that loop turns the bytecode does not show
    // (an unknown trip count, or a break out of it). Once or twice (an
    // empty or short list, a break on the second turn) a root trace runs
    // through it (audits 59, 61: the outer loop blacklisted), more and it
    // stops there.
    bool innerTurnsUnknown = false;
    // Branch: the route around it found first is a return that comes
    // before it in the bytecode (LuaJIT puts `return f(x)` after the
    // function's last return when it closes upvalues), not the test that
    // leads there.
    bool byReturn = false;
    // InnerLoop, when its count is known: how many times it turns. A few
    // turns (up to loopunroll + 1) a root trace may unroll once the inner
    // loop's own traces keep leaving it (lj_record.c innerloopleft; audit 70:
    // three turns, and the outer loop's root trace aborted past it).
    long innerTurns = 0;
    // InnerLoop: the line of a branch that goes around that loop, 0 for
    // none: the passes that take it reach the site in the root trace
    // (audit 77: `if qn >= 32 then for i = 1, qn do ... end end`).
    int innerSkippedAt = 0;
    // "a branch at line 8", or "a path that returns at line 12".
    std::string route() const {
      return (byReturn ? "a path that returns at line " : "a branch at line ") + std::to_string(line);
    }
  };
  long steadyRunsAt(std::size_t proto, int pc, CountStop* stop = nullptr) const;
  // The calls this file makes of a function on every pass through them
  // (steadyRunsAt of each call site outside its cycle of recursion, but
  // through a loop that comes first in the turn), all sites added up, and
  // so for its callers' calls: how often the function's entry counts down
  // at least, when its callers run in the interpreter (audit 99: a factory
  // called once from a helper called from three sites of a 40,000-turn
  // loop counts 120,000 calls). Saturates at 2^40.
  long steadyCalls(std::size_t proto) const;
  // The instruction at pc runs on every call of its function: no loop of
  // the function holds it, and no branch or return goes around it
  // (every_pass.h), so a trace that starts at the entry reaches it.
  bool onEveryCall(std::size_t proto, int pc) const;
  // Why a prototype's calls on every pass (what steadyRunsAt multiplies)
  // are fewer than its calls (runsAt): a clause naming the call site that
  // gives it the most calls and what stops that site's count ("a branch at
  // line 11 can go around the call at line 12"); empty when nothing does.
  const std::string& entryShortfall(std::size_t proto) const { return entryShortfall_.at(proto); }
  // That shortfall is a branch that can go around a call on the way: the
  // data decides whether the function runs hot at all.
  bool entryShortfallByBranch(std::size_t proto) const { return entryShortfallByBranch_.at(proto) != 0; }
  // The clause for a call at `callLine` whose count `stop` ended; `where`
  // follows each line number (" of main.lua", or empty in the same file).
  static std::string describeStop(const CountStop& stop, int callLine, const std::string& where);
  long hotloop() const { return hotloop_; }
  long hotexit() const { return hotexit_; }
  // The calls this file makes into other project modules.
  const std::vector<ModuleCall>& moduleCalls() const { return moduleCalls_; }
  // Every module member ("a.b:f") this file calls, hot or not, sorted:
  // registrations of ctypes (ctype_registrars.h) run at load time.
  const std::vector<std::string>& calledMembers() const { return calledMembers_; }
  // Why other files make a prototype hot, when they are what does.
  const ExternalCaller* externalCaller(std::size_t proto) const;
  // What other files said of their calls of a prototype, hotter than its
  // own heat or not; null when none calls it.
  const ExternalCaller* callsFromOtherFiles(std::size_t proto) const {
    auto it = external_.find(proto);
    return it == external_.end() ? nullptr : &it->second;
  }
  bool inLoop(std::size_t proto, int pc) const;
  bool hasLoop(std::size_t proto) const { return !loops_.at(proto).empty(); }
  // It has a loop, or calls (not through pcall) a function of this file
  // that runs one, or another file's module function that does: a trace
  // that starts in that loop can return into it.
  bool runsLoop(std::size_t proto) const { return runsLoop_.at(proto); }
  // Another file's module function ("a.b:f", "a.b:f():m") that runs a loop.
  bool memberRunsLoop(std::string_view member) const {
    return loopingMembers_ && loopingMembers_->count(member) > 0;
  }
  // The loop structure of a prototype, found once per chunk for every
  // stage that asks (rules, masking): building it per question cost more
  // than the questions.
  const LoopMap& loopMap(std::size_t proto) const { return loopMaps_.at(proto); }
  // The strongly connected component of a prototype in the graph of
  // resolved calls: prototypes with the same component id call each other
  // round in a cycle; recursive() when its component has a cycle.
  std::size_t component(std::size_t proto) const { return component_.at(proto); }
  bool recursive(std::size_t proto) const { return recursive_.at(proto); }
  // Called through pcall/xpcall in this file, or from such a function
  // through resolved calls: an error raised there is caught, and the code
  // that raised it can run again.
  bool underPcall(std::size_t proto) const { return underPcall_.at(proto) != 0; }
  // The same through a protected call that runs hot (likely or known).
  bool underHotPcall(std::size_t proto) const { return underHotPcall_.at(proto) != 0; }

 private:
  std::vector<Heat> heat_;
  std::vector<bool> escapes_;
  std::vector<std::vector<CallSite>> callers_;
  std::vector<std::vector<CallSite>> callbacks_;
  std::vector<LoopMap> loopMaps_;              // per proto
  std::vector<std::vector<LoopTrips>> loops_;  // per proto, outer before inner
  std::vector<std::vector<OnceOnly>> onceOnly_;  // per proto
  long hotloop_, hotexit_;
  std::map<std::size_t, ExternalCaller> external_;
  std::vector<ModuleCall> moduleCalls_;
  std::vector<std::string> calledMembers_;
  // Per proto: entered at least hotexit times, as far as its callers show
  // (set once the heats are final).
  std::vector<bool> reentered_;
  // Per prototype: some code that runs calls it, or it escapes (findEntered).
  std::vector<char> entered_;
  void findEntered();
  // The call edges forward (caller -> callee), flat, in the order of
  // callers_: the callees of p are calleeList_[calleeStart_[p] ..
  // calleeStart_[p + 1]). Built once callers_ is complete (indexCallees).
  std::vector<std::size_t> calleeStart_, calleeList_;
  void indexCallees();
  // Marks every function a marked one calls, directly or not; `work`
  // holds the marked ones still to follow.
  void markCallees(std::vector<char>& marked, std::vector<std::size_t> work) const;
  // Per proto: the calls it at least gets whenever it is called (runsAt).
  std::vector<long> entries_;
  // The same, from call sites that run on every pass of their loops (steadyRunsAt).
  std::vector<long> steadyEntries_;
  std::vector<std::string> entryShortfall_;  // per proto: entryShortfall
  std::vector<char> entryShortfallByBranch_;  // per proto: entryShortfallByBranch
  std::vector<char> entryShortfallElsewhere_;  // per proto: the shortfall came from another file (it names it)
  std::vector<bool> runsLoop_;               // per proto: runsLoop
  const MemberNames* loopingMembers_ = nullptr;
  std::vector<std::vector<Branch>> branches_;  // per proto (every_pass.h)
  bool settled_ = false;
  std::vector<std::size_t> component_;
  std::vector<bool> recursive_;
  std::vector<char> underPcall_;
  std::vector<char> underHotPcall_;
  // By proto: a function that tail-calls itself (HeatEvidence::
  // tailRecursion), from code that runs: that call's line, and by pc
  // whether a path leads from there to it. Empty for any other function.
  struct TailRecursion {
    int line = 0;
    std::vector<bool> reaches;
  };
  std::vector<TailRecursion> tailRecursion_;
  // evidenceAt, with or without the code a side trace records once
  // (HeatEvidence::iterExit in a function entered fewer than hotexit times).
  HeatEvidence evidence(std::size_t proto, int pc, bool onceSideTraces) const;
  // Whether pc is reached from the exit of `loop` of `proto` (memoized per loop).
  bool reachedFromExit(std::size_t proto, const LoopTrips& loop, int pc) const;
  const bytecode::Chunk* chunk_ = nullptr;  // what the graph was built of: it outlives the graph
  mutable std::map<std::pair<std::size_t, int>, std::vector<bool>> reachedFromExit_;
  bool barelyHot(std::size_t proto, const HeatEvidence& e) const;
  // Whether the body of `loop` of `proto` runs hot counters that may fire
  // late, other than its own: a call, outside its inner loops, of a Lua
  // function of this file whose entry is counted (FUNCF; a vararg
  // function's FUNCV is not) and that runs a loop or calls another.
  bool runsOtherCounters(std::size_t proto, const LoopTrips& loop) const;
  // The runs of the turns `e` counts over every call of `proto`: the hot
  // counter lives on across calls.
  long countedTurns(std::size_t proto, const HeatEvidence& e) const;
  void findCycles();
  void findTailRecursion();
  void dropMemosKeyedByLoopIndex(const bytecode::Chunk& chunk);
  void findProtected();
  // Per proto: runs (entries_), steady runs (steadyEntries_), shortfall (entryShortfall_).
  struct EntryCounts {
    std::vector<long> runs, steady;
    std::vector<std::string> shortfall;
    std::vector<char> byBranch;  // per proto: the shortfall is a branch (entryShortfallByBranch)
    std::vector<char> elsewhere;  // per proto: the shortfall came from another file's call
  };
  void countEntries(bool external, EntryCounts& out) const;
  long runsWith(std::size_t proto, int pc, const std::vector<long>& entries) const;
  // `entering`: pc is a call, whose callee is entered only on the passes
  // that make it; a route around it that aborts elsewhere still leaves the
  // callee out (a branch that skips `slow(x)` and runs into a closure).
  // `interpreted`: the calls run in the interpreter (their callee aborts
  // every trace that records them), where a loop that comes first in the
  // same turn stops no count: only what decides whether the call runs does.
  long steadyRunsWith(std::size_t proto, int pc, CountStop* stop, const std::vector<long>& steadyEntries,
                      bool entering = false, bool interpreted = false) const;
  // Per proto: its calls on every pass when they run in the interpreter,
  // all call sites added up, through callers called from several sites
  // too (steadyCalls); counted on the first question, few files ask it.
  mutable std::vector<long> interpretedCalls_;
  void countInterpretedCalls() const;
};

}  // namespace ljcheck::flow
