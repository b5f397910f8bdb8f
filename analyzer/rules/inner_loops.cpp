// LINNER (stop class, benign): a root trace that runs into an inner loop
// aborts and waits for the inner loop's own trace (lj_record.c:
// rec_loop_interp, rec_loop_jit). Normally the inner loop gets hot first
// and the side trace from its exit covers the outer loop, so nested loops
// alone show nothing. The abort shows when that side trace cannot form and
// a root trace starts outside the inner loop:
// - the outer loop's body has a certain abort (a closure, a closed upvalue)
//   after the inner loop, so the exit's side traces abort and the outer
//   loop gets hot on its own;
// - the inner loop sits in a function whose own header gets hot: a callback
//   that C calls (string.gsub, table.sort), or a function called from a
//   loop whose trace aborts or ends in a pcall frame.
// - a block that only looks like a loop, `repeat ... until true` (how
//   MoonScript compiles `continue`) or `while true do ... break end`, whose
//   body aborts (a closure, a closed upvalue): to the VM its LOOP is a loop,
//   whose own traces never leave it cleanly (that would mark it as left and
//   let root traces unroll it), so every root trace of the loop around it
//   aborts on entering it.
// A compiled numeric for is linked to instead (JFORI), so only while/repeat
// and generic for loops count. Reported where the collector sees it: the
// first statement of the body, or for pairs/next loops (ITERN) the `for` line.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flow/every_pass.h"
#include "flow/instruction_effects.h"
#include "flow/loops.h"
#include "flow/refused_bytecodes.h"
#include "rules/aborting_call_before.h"
#include "rules/prediction_sink.h"
#include "rules/rule.h"
#include "rules/split_finding.h"
#include "rules/trace_splits_before.h"

namespace ljcheck::rules {
namespace {

using bytecode::Op;
using flow::Loop;

// The instruction whose line the abort is reported at; 0 when unknown.
int reportedPc(const bytecode::Prototype& proto, const Loop& loop) {
  if (loop.kind == Loop::Kind::GenericFor) {
    if (loop.last > 1 && proto.at(loop.last - 1).op == Op::ITERN) return loop.last;
    return loop.first;
  }
  for (int pc = loop.first; pc < loop.last; ++pc)
    if (proto.at(pc).op == Op::LOOP) return pc + 1;
  return 0;
}

// The line of a closure creation or upvalue close at the outer loop's own
// level in (from, to] of prototype `index`, or of the one in a function of
// this file called there that every trace through it aborts at
// (certainAbortLine: audit 102, a loop calling a parser that makes a
// closure on every call); 0 when there is none. Both always abort a trace.
int abortBetween(const FunctionView& fn, std::size_t index, const flow::LoopMap& loops, const Loop& outer, int from,
                 int to, int* atPc = nullptr) {
  const bytecode::Prototype& proto = fn.chunk.prototypes[index];
  for (int pc = from + 1; pc <= to; ++pc) {
    Op op = proto.at(pc).op;
    const bool call = op == Op::CALL || op == Op::CALLM || op == Op::CALLT || op == Op::CALLMT;
    if (!call && op != Op::FNEW && op != Op::UCLO) continue;
    if (!call && !flow::refuses(fn.profile, op)) continue;
    const Loop* inner = loops.innermost(pc);
    if (!inner || inner->first != outer.first || inner->last != outer.last) continue;
    if (atPc) *atPc = pc;
    if (!call) return proto.at(pc).line;
    const flow::Value callee = fn.values.at(index, pc, proto.at(pc).a);
    if (callee.is(flow::Value::Kind::LuaFunction) && callee.proto < fn.chunk.prototypes.size() &&
        callee.proto != index)
      if (const int line = certainAbortLine(fn, callee.proto); line > 0) return line;
  }
  return 0;
}

// A loop left from the middle of its body (break, return, goto), not only
// by its condition: a `while true` loop, a search. Its trace has several
// exits; the outer code meets it again before every exit has a side trace.
bool leavesEarly(const bytecode::Prototype& proto, const Loop& loop) {
  int bodyStart = loop.first;
  if (loop.kind == Loop::Kind::While)
    for (int pc = loop.first; pc < loop.last; ++pc)
      if (proto.at(pc).op == Op::LOOP) {
        bodyStart = pc + 1;
        break;
      }
  for (int pc = bodyStart; pc < loop.last; ++pc) {
    const auto& ins = proto.at(pc);
    if (ins.op == Op::RET || ins.op == Op::RET0 || ins.op == Op::RET1 || ins.op == Op::RETM ||
        ins.op == Op::CALLT || ins.op == Op::CALLMT)
      return true;
    if ((ins.op == Op::JMP || ins.op == Op::UCLO) && ins.jumpTarget(pc) > loop.last) return true;
  }
  return false;
}

// Whether a `break`, `goto` or `return` before pc in the loop's body can
// leave it: that exit's side trace forms (audit 97: `if not e then break
// end` before `handle(unpack(e, 1, e.n))`; `-jv`: `[TRACE 2 (1/1) ... -> 1]`).
bool leavesBefore(const FunctionView& fn, const Loop& loop, int pc) {
  // A while loop's trace starts at its LOOP, after the condition: the
  // condition's exit is not in it (`-jv` on fixtures/linner_inner_loop_
  // ends_its_trace.lua: no side trace, the caller's loop blacklisted).
  int start = loop.first;
  for (int q = loop.first; q < pc; ++q)
    if (fn.proto.at(q).op == bytecode::Op::LOOP) {
      start = q + 1;
      break;
    }
  for (int q = start; q < pc; ++q) {
    const bytecode::Instruction& ins = fn.proto.at(q);
    if (flow::leavesFunction(ins.op)) return true;
    const flow::Flow f = flow::flowOf(ins, q);
    if (f.jump != 0 && (f.jump > loop.last || f.jump < loop.first)) return true;
  }
  return false;
}

// A call at the loop's own level that every pass through its body runs and
// that ends the trace there (RETURN: results that feed a variable count,
// `math.floor(math.fmod(n, 2))`): the loop's own trace stops before its back
// edge on every pass, so it never loops and never leaves the loop from a
// trace, and no side trace from its exit forms to cover the code around it.
// "the call of math.fmod at line 5", or empty.
// A closure or upvalue close before it in the body aborts the loop's trace
// first, and the loop is left out.
std::string traceEndingCallOnEveryPass(const FunctionView& fn, const Loop& loop) {
  std::vector<int> ends;
  std::vector<std::string> callees;
  const std::vector<bool>& refused = flow::refusedBytecodes(fn.profile);
  for (int pc = loop.first; pc < loop.last; ++pc) {
    const Op op = fn.proto.at(pc).op;
    const bool refusedHere = flow::refuses(refused, op);
    if (!refusedHere && !flow::isCallOrIterator(op)) continue;  // only a call ends the trace so
    if (fn.loops.innermost(pc) != &loop) continue;
    if (refusedHere) break;
    std::optional<CallSplit> split = splitAt(fn, pc);
    // error() ends the trace too, but the pass ends with it.
    if (!split || !split->endsTrace || !nextFeedsVariableCount(fn.proto, pc)) continue;
    ends.push_back(pc);
    callees.push_back(split->callee);
  }
  if (ends.empty()) return {};
  const std::vector<flow::Branch>& branches = fn.calls.branches(fn.index);
  for (std::size_t k = 0; k < ends.size(); ++k) {
    const flow::Routes around = flow::routesAround(branches, ends[k], loop.first, loop.last, false);
    if (!around.compiles && !around.aborts && !leavesBefore(fn, loop, ends[k]))
      return "the call of " + callees[k] + " at line " + std::to_string(fn.proto.at(ends[k]).line);
  }
  return {};
}

// Whether a root trace of a loop that calls this function gets to the call:
// no call before it in that loop's body ends or splits the trace (a stitch
// first, and the trace resumed after it links to this loop's trace instead).
bool rootTraceOfCallerReaches(const FunctionView& fn) {
  for (const auto& site : fn.calls.callers(fn.index)) {
    const FunctionView caller = fn.of(site.proto);
    const Loop* around = caller.loops.innermost(site.pc);
    if (around && splitBefore(caller, around->first, site.pc).line == 0) return true;
  }
  // Or a loop of another file that calls it (audit 103: popc.bits called
  // from another module's loop of 50,000 turns, blacklisted in every run).
  const flow::ExternalCaller* external = fn.calls.externalCaller(fn.index);
  return external && external->rootTraceReaches;
}

const Loop* enclosing(const flow::LoopMap& loops, const Loop& loop) {
  const Loop* best = nullptr;
  for (const auto& l : loops.loops()) {
    if (l.first == loop.first && l.last == loop.last) continue;
    if (l.first <= loop.first && l.last >= loop.last && (!best || l.last - l.first < best->last - best->first))
      best = &l;
  }
  return best;
}

flow::Value calleeAt(const bytecode::Chunk& chunk, const flow::ValueMap& values, const flow::CallSite& site) {
  return values.at(site.proto, site.pc, chunk.prototypes[site.proto].at(site.pc).a);
}

// Why the header of `proto` gets hot outside any trace that could inline
// it; empty when nothing in this file says so. Up to three levels of plain
// calls are followed: a function called from such a function is traced
// with it, and its own entry counts the same calls (audit 102: lua_cliargs'
// filter, called by invoke, tail-called by parse, from a loop that aborts
// at parse's closure: filter's entry traces run into its loop).
constexpr int kPlainCallLevels = 3;
struct HotHeader {
  std::string why;  // empty: nothing says so
  // The calls on every pass that reach the header from a loop whose trace
  // aborts, through calls on every call of each function between: run in
  // the interpreter, each counts the entry down. 0 when not known.
  long interpretedCalls = 0;
};
HotHeader headerGetsHot(const FunctionView& fn, std::size_t proto, int depth) {
  std::string name = functionName(fn, proto);
  for (const auto& site : fn.calls.callers(proto)) {
    const auto& caller = fn.chunk.prototypes[site.proto];
    int line = caller.at(site.pc).line;
    if (!fn.calls.inLoop(site.proto, site.pc)) {
      // Its own recursive calls are no way in (recursive() below says so).
      if (depth >= kPlainCallLevels || site.protectedCall || site.proto == proto) continue;
      // A lazy initialization's call runs once per key, not on every call.
      if (fn.calls.evidenceAt(site.proto, site.pc).onceOnlyLine) continue;
      HotHeader hot = headerGetsHot(fn, site.proto, depth + 1);
      if (hot.why.empty()) continue;
      hot.why += "; it calls " + name + " at line " + std::to_string(line);
      if (!fn.calls.onEveryCall(site.proto, site.pc)) hot.interpretedCalls = 0;
      return hot;
    }
    // A function's entry gets hot after twice hotloop calls (a call counts
    // one, a loop's turn two): a loop of fewer known turns never starts a
    // trace at its header (audit 98: 30 pcalls, no LINNER on either build).
    if (site.protectedCall) {
      if (!fn.calls.evidenceAt(site.proto, site.pc).unknownTrips &&
          fn.calls.runsAt(site.proto, site.pc) < 2 * fn.calls.hotloop())
        continue;
      return {name + " is called through pcall at line " + std::to_string(line) +
                  ", so the side trace from this loop's exit cannot return through the pcall frame",
              0};
    }
    const flow::LoopMap& loops = fn.calls.loopMap(site.proto);
    const Loop* loop = loops.innermost(site.pc);
    int abortPc = 0;
    if (int abortLine = abortBetween(fn, site.proto, loops, *loop, loop->first - 1, loop->last, &abortPc)) {
      // Counted only when every pass aborts: behind a branch, the passes
      // around it run a compiled trace, which calls nothing here (audit
      // 103: a closure behind `if i % 2 == 0`, half the calls interpreted).
      const bool everyPass =
          !flow::routesAround(fn.calls.branches(site.proto), abortPc, loop->first, loop->last, false).compiles;
      return {name + " is called at line " + std::to_string(line) + " from a loop whose trace aborts at line " +
                  std::to_string(abortLine) + ", so " + name + " gets hot and traced on its own",
              everyPass ? fn.calls.steadyRunsAt(site.proto, site.pc) : 0};
    }
  }
  if (fn.calls.recursive(proto))
    return {name + " is recursive: its recursive calls count towards its header's hot counter too, so a deep or "
                   "frequent recursion gets the header hot and starts traces of its own",
            0};
  for (const auto& site : fn.calls.callbacks(proto)) {
    flow::Value by = calleeAt(fn.chunk, fn.values, site);
    return {name + " is called back from C by " + std::string(by.name) + " (line " +
                std::to_string(fn.chunk.prototypes[site.proto].at(site.pc).line) +
                "), so its header gets hot and starts traces",
            0};
  }
  return {};
}

// The line of a reachable closure creation or upvalue close the profile's
// recorder refuses in (from, to]; 0 when there is none.
int refusedIn(const FunctionView& fn, const std::vector<bool>& reached, int from, int to) {
  for (int pc = from + 1; pc <= to && pc <= fn.proto.size(); ++pc) {
    Op op = fn.proto.at(pc).op;
    if ((op == Op::FNEW || op == Op::UCLO) && reached[static_cast<std::size_t>(pc)] &&
        flow::refuses(fn.profile, op))
      return fn.proto.at(pc).line;
  }
  return 0;
}

// LINNER at a once-run block inside a loop whose body aborts (the header's
// last case).
void reportOnceLoops(const FunctionView& fn, PredictionSink& sink) {
  const std::vector<std::pair<int, int>>& once = fn.loops.onceBlocks();
  if (once.empty()) return;
  const std::vector<bool> reached = flow::reachablePcs(fn.proto);
  for (const auto& [loopPc, exit] : once) {
    if (!reached[static_cast<std::size_t>(loopPc)]) continue;
    // The loop around it: the innermost that also holds its exit.
    const Loop* outer = nullptr;
    for (const auto& l : fn.loops.loops())
      if (l.first <= loopPc && l.last >= exit && (!outer || l.last - l.first < outer->last - outer->first)) outer = &l;
    if (!outer || !fn.calls.inLoop(fn.index, outer->first)) continue;
    int abortLine = refusedIn(fn, reached, loopPc, exit);
    if (abortLine == 0) continue;
    Finding f;
    f.pc = loopPc + 1;
    f.tracePc = outer->first > 1 ? outer->first - 1 : outer->first;
    f.reasonId = ReasonId::traceError("LINNER");
    f.construct = "loop";
    f.structural = true;
    f.confidence = Confidence::Likely;
    f.message = "a root trace runs into this inner loop and aborts (LINNER); it waits for the inner loop's trace";
    f.reasoning = "the block at line " + std::to_string(fn.proto.at(loopPc).line) +
                  " runs once per entry but is a loop to the VM (`repeat ... until true`, or a `while` whose body "
                  "always breaks); a trace started at it aborts at line " + std::to_string(abortLine) +
                  " whenever it records that path, so the VM never marks it as a loop that is left (which would let "
                  "root traces unroll it), and every root trace of the enclosing loop at line " +
                  std::to_string(loopLine(fn, outer->first)) + " aborts on entering it; the abort in the block is the "
                  "one to fix";
    sink.report(fn, std::move(f));
  }
}

// When the interpreted calls that get a function's header hot are enough
// to blacklist its entry, every one of its header's traces running into
// `loop` (on every call: no branch goes around it): the clause that says
// so and names the loops of this file whose traces then abort at that
// entry (BLACKL), whatever else they do (audit 102: lua_cliargs' filter,
// blacklisted at its entry after 11 LINNER aborts, then a clean loop of
// 60,000 calls of it blacklisted in turn). Empty when not.
std::string entryBlacklisted(const FunctionView& fn, const HotHeader& hot, const Loop& loop, bool& blacklists) {
  const RecorderProfile::Blacklisting needed = fn.profile.entryBlacklisting();
  if (needed.runs <= 0 || hot.interpretedCalls < needed.runs || fn.proto.isVararg() ||
      !fn.calls.onEveryCall(fn.index, loop.first > 1 ? loop.first - 1 : 1))  // the instruction before it
    return {};
  blacklists = true;
  const std::string name = functionName(fn, fn.index);
  std::string clause = "; those calls, at least " + std::to_string(hot.interpretedCalls) +
                       " on every pass, run in the interpreter, and at " + std::to_string(needed.runs) +
                       " the trace start at " + name + "'s entry is blacklisted (" + std::to_string(needed.aborts) +
                       " aborts here): from then on every trace that records a call of " + name +
                       " aborts at its entry (BLACKL)";
  std::vector<int> loops;
  for (const auto& site : fn.calls.callers(fn.index)) {
    const Loop* around = fn.calls.loopMap(site.proto).innermost(site.pc);
    if (around) loops.push_back(loopLine(fn.of(site.proto), around->first));
  }
  std::sort(loops.begin(), loops.end());
  loops.erase(std::unique(loops.begin(), loops.end()), loops.end());
  if (!loops.empty()) {
    clause += ", the traces of the loop" + std::string(loops.size() > 1 ? "s" : "") + " at line";
    clause += loops.size() > 1 ? "s " : " ";
    for (std::size_t k = 0; k < loops.size(); ++k)
      clause += (k == 0 ? "" : k + 1 == loops.size() ? " and " : ", ") + std::to_string(loops[k]);
    clause += " that call it among them";
  }
  return clause + "; whether each call enters this loop the data decides, so a warning";
}

// Whether a loop comes after `loop` in its function, or after a call of
// the function in the loop that calls it (its own, or one a call there
// runs): the side trace from that loop's exit records on round the
// calling loop. A loop of another file that calls it may hold one too,
// which this file does not see.
bool loopsAfter(const FunctionView& fn, const Loop& loop) {
  for (const auto& other : fn.loops.loops())
    if (other.first > loop.last) return true;
  if (fn.calls.externalCaller(fn.index)) return true;
  for (const auto& site : fn.calls.callers(fn.index)) {
    const flow::LoopMap& loops = fn.calls.loopMap(site.proto);
    const Loop* around = loops.innermost(site.pc);
    if (!around) continue;
    for (const auto& other : loops.loops())
      if (other.first > site.pc && other.last <= around->last) return true;
    const bytecode::Prototype& caller = fn.chunk.prototypes[site.proto];
    for (int pc = site.pc + 1; pc < around->last; ++pc)
      if (flow::isCall(caller.at(pc).op)) {
        const flow::Value callee = fn.values.at(site.proto, pc, caller.at(pc).a);
        if (callee.is(flow::Value::Kind::LuaFunction) && fn.calls.runsLoop(callee.proto)) return true;
      }
  }
  return false;
}

class InnerLoopRule final : public Rule {
 public:
  std::string_view name() const override { return "inner-loops"; }
  std::vector<ReasonId> reasons(const RecorderProfile&) const override { return {ReasonId::traceError("LINNER")}; }

  void check(const FunctionView& fn, PredictionSink& sink) const override {
    HotHeader hotHeader;
    bool headerChecked = false;
    for (const auto& loop : fn.loops.loops()) {
      if (loop.kind == Loop::Kind::NumericFor) continue;  // a compiled one is linked to (JFORI)
      int pc = reportedPc(fn.proto, loop);
      if (pc <= 0) continue;
      std::string why;
      bool hotByEvidence = false;
      bool blacklistsEntry = false;
      Confidence confidence = Confidence::Likely;
      // Computed once per loop, asked of loops that nothing else reports.
      auto neverLoops = [&, known = false, call = std::string()]() mutable -> const std::string& {
        if (!known) call = traceEndingCallOnEveryPass(fn, loop);
        known = true;
        return call;
      };
      bool saysNeverLoops = false;  // `why` is neverLoopsWhy's
      auto neverLoopsWhy = [&](const std::string& around) {
        saysNeverLoops = true;
        return "every pass of this loop runs " + neverLoops() +
               ", which ends the loop's own trace there (RETURN), so that trace never loops and never leaves "
               "the loop: no side trace from its exit forms, and a root trace of " + around +
               " runs into this loop on every pass that reaches it and aborts, until its start is blacklisted";
      };
      if (const Loop* outer = enclosing(fn.loops, loop)) {
        if (!fn.calls.inLoop(fn.index, outer->first)) continue;
        const std::string outerLine = std::to_string(loopLine(fn, outer->first));
        if (int abortLine = abortBetween(fn, fn.index, fn.loops, *outer, loop.last, outer->last)) {
          why = "the enclosing loop at line " + outerLine + " aborts its traces at line " +
                std::to_string(abortLine) +
                ", after this loop, so the side trace from this loop's exit never forms and the outer loop's own "
                "trace runs into this loop";
        } else if (!neverLoops().empty() && splitBefore(fn, outer->first, loop.first).line == 0) {
          why = neverLoopsWhy("the enclosing loop at line " + outerLine);
        } else {
          continue;
        }
      } else {
        if (fn.isMain() || !fn.calls.entered(fn.index)) continue;
        if (!headerChecked) {
          hotHeader = headerGetsHot(fn, fn.index, 0);
          headerChecked = true;
        }
        // A call that splits the trace before the loop ends the header's
        // trace there, and the trace stitched after it is no root trace: it
        // links to the loop (audit fixture stitch_gmatch_loop_closure.lua:
        // `for w in string.gmatch(...)`, no LINNER on either build).
        if (!hotHeader.why.empty() && splitBefore(fn, 1, loop.first).line == 0) {
          why = hotHeader.why + "; a trace started at its header runs into this loop";
          hotByEvidence = true;
          why += entryBlacklisted(fn, hotHeader, loop, blacklistsEntry);
        } else if (fn.calls.heat(fn.index) != flow::Heat::Cold && leavesEarly(fn.proto, loop)) {
          why = whyFunctionHot(fn) +
                "; this loop can be left from the middle of its body, so its trace has several exits: one with no "
                "side trace yet returns to the interpreter, where the calling code gets hot and starts root traces, "
                "and a root trace that reaches this loop aborts, compiled or not (lj_record.c rec_loop_jit)";
        } else if (fn.calls.heat(fn.index) != flow::Heat::Cold && !neverLoops().empty() &&
                   rootTraceOfCallerReaches(fn)) {
          // Hot from a loop whose trip count the bytecode does not show too
          // (audit 101: basexx's bits, called per byte of a string from a
          // loop of 3,000 turns: the calling loop blacklisted in every run).
          why = whyFunctionHot(fn) + "; " + neverLoopsWhy("the calling code");
        } else {
          continue;
        }
      }
      Finding f;
      f.pc = pc;
      f.tracePc = loop.first > 1 ? loop.first - 1 : loop.first;
      f.reasonId = ReasonId::traceError("LINNER");
      f.construct = "loop";
      f.structural = true;
      f.hotByEvidence = hotByEvidence;
      f.blacklistsCaller = blacklistsEntry;
      f.confidence = confidence;
      // Runs enough to blacklist the calling code's start, when this loop
      // never loops: whether each pass enters it the data decides (a
      // `while n > 0` skipped for 0), so a warning, and likely (audit 101:
      // 50,000 turns, the calling loop blacklisted in every run).
      if (const RecorderProfile::Blacklisting needed = saysNeverLoops ? fn.profile.loopBlacklisting()
                                                                     : RecorderProfile::Blacklisting{};
          needed.runs > 0) {
        // On every pass (audit 103: a branch skipping the call one pass in
        // eight left the start compiled in some runs), and with no loop
        // after it in the function or the calling loop, whose exit's side
        // traces would carry on round the calling loop and link back
        // (audit 103: two loops after the fmod loop, 3 aborts, no
        // blacklisting).
        const long runs =
            loopsAfter(fn, loop) ? 0 : fn.calls.steadyRunsAt(fn.index, loop.first > 1 ? loop.first - 1 : 1);
        if (runs >= needed.runs) {
          f.blacklistsCaller = true;
          why += ": the bytecode shows at least " + std::to_string(runs) + " runs, and " +
                 std::to_string(needed.runs) + " blacklist it, so a warning";
        }
      }
      f.message = "a root trace runs into this inner loop and aborts (LINNER); it waits for the inner loop's trace";
      f.reasoning = why;
      sink.report(fn, std::move(f));
    }
    reportOnceLoops(fn, sink);
  }
};

}  // namespace

std::unique_ptr<Rule> makeInnerLoopRule() { return std::make_unique<InnerLoopRule>(); }

}  // namespace ljcheck::rules
