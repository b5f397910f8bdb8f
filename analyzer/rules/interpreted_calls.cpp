// Callees a blacklisted loop blacklists in turn (see interpreted_calls.h).
#include "rules/interpreted_calls.h"

#include <algorithm>
#include <map>
#include <vector>

#include "flow/every_pass.h"
#include "flow/instruction_effects.h"
#include "flow/refused_bytecodes.h"
#include "rules/prediction_sink.h"
#include "rules/split_finding.h"

namespace ljcheck::rules {

using bytecode::Op;

const FastFunctionDef* tailCallLeavingEntry(const FunctionView& fn, int* at) {
  // A vararg function's entry is never hot-counted (FUNCV has no hotcall).
  if (fn.isMain() || fn.proto.isVararg() || !fn.loops.loops().empty()) return nullptr;
  const FastFunctionDef* left = nullptr;
  for (int pc = 1; pc <= fn.proto.size(); ++pc) {
    const auto& ins = fn.proto.at(pc);
    if (flow::refuses(fn.profile, ins.op)) return nullptr;
    switch (ins.op) {
      case Op::RET: case Op::RET0: case Op::RET1: case Op::RETM:
      case Op::ITERC: case Op::ITERN: case Op::VARG:
        return nullptr;
      case Op::CALL: case Op::CALLM: case Op::CALLT: case Op::CALLMT: {
        const FastFunctionDef* ff = recordedCall(fn, pc);
        if (!ff || ff->name == "pcall" || ff->name == "xpcall") return nullptr;
        if ((ins.op == Op::CALLT || ins.op == Op::CALLMT) && !left) {
          left = ff;
          if (at) *at = pc;
        }
        break;
      }
      default: break;
    }
  }
  return left;
}

long sureEntryCalls(const RecorderProfile& profile) {
  const long needed = profile.entryBlacklisting().runs;
  return needed + needed / 5;
}

InterpretedCalls interpretedCalls(const FunctionView& fn, int loopPc) {
  const flow::Loop* loop = fn.loops.innermost(loopPc);
  const long needed = fn.profile.entryBlacklisting().runs;
  if (!loop || needed <= 0) return {};
  InterpretedCalls out;
  // The calls of each such callee on every pass, all its call sites in the
  // body added up (audit 84: two `Point.new` per turn of 50,000 turns
  // blacklist it; one behind `if frame % 2 == 0` in 100,000 turns does not).
  std::map<std::size_t, long> callsOf;
  std::map<std::size_t, int> firstSite, sites;
  for (int pc = loop->first; pc <= loop->last; ++pc) {
    const auto& ins = fn.proto.at(pc);
    if (ins.op != Op::CALL && ins.op != Op::CALLM) continue;
    const flow::Value callee = resolveCallee(fn, pc).value;
    if (!callee.is(flow::Value::Kind::LuaFunction) || callee.proto >= fn.chunk.prototypes.size() ||
        callee.proto == fn.index)
      continue;
    const flow::Routes around = flow::routesAround(fn.calls.branches(fn.index), pc, loop->first, loop->last, false);
    if (around.compiles || around.aborts) continue;  // not on every pass
    const long steady = fn.calls.steadyRunsAt(fn.index, pc);
    callsOf[callee.proto] += steady;
    ++sites[callee.proto];
    firstSite.try_emplace(callee.proto, pc);
  }
  // In the order of their first call in the body: the first that
  // qualifies is named.
  std::vector<std::pair<int, std::size_t>> byFirstCall;
  for (const auto& [proto, pc] : firstSite) byFirstCall.emplace_back(pc, proto);
  std::sort(byFirstCall.begin(), byFirstCall.end());
  for (const auto& [pc, proto] : byFirstCall) {
    const long calls = callsOf.at(proto);
    const auto& ins = fn.proto.at(pc);
    int tailCall = 0;
    const FastFunctionDef* ff = tailCallLeavingEntry(fn.of(proto), &tailCall);
    if (!ff || calls < needed) continue;
    // A form of the call the recorder refuses (`return ffi.new("float[?]",
    // w, 0)`) aborts the entry's traces there, as it did the loop's (audit
    // 91: `-jv` shows NYICONV at the helper's entry, no LLEAVE).
    const std::string leaves =
        refusedFfiCall(fn.of(proto), tailCall)
            ? "aborts at its tail call of " + ff->name + ", as the loop's did"
            : "leaves at its tail call of " + ff->name + " (LLEAVE: the fast function returns below where the "
                                                          "trace started)";
    out.entryLine = fn.chunk.prototypes[proto].firstline;
    out.function = functionName(fn, proto);
    out.clause = "; the loop then runs in the interpreter, and so do its " + std::to_string(calls) + " calls of " +
           functionName(fn, proto) +
           (sites.at(proto) > 1 ? " (" + std::to_string(sites.at(proto)) + " call sites, the first at line "
                                : std::string(" at line ")) +
           std::to_string(ins.line) + (sites.at(proto) > 1 ? ")" : "") +
           ", whose every trace from its entry " + leaves + ": at " + std::to_string(needed) +
           " interpreted calls its entry is blacklisted too" +
           (calls < sureEntryCalls(fn.profile)
                ? std::string(" (in most runs: this close to that count, a hot counter another loop shares can "
                              "hold it back)")
                : std::string()) +
           ", and every trace that calls " +
           functionName(fn, proto) + " afterwards aborts there (BLACKL), so later loops that call it do not "
           "compile either until this site is fixed";
    break;  // one is enough to say what the fix buys
  }
  return out;
}

}  // namespace ljcheck::rules
