// Calls whose callee aborts a loop's trace before a later call (see aborting_call_before.h).
#include "rules/aborting_call_before.h"

#include <algorithm>
#include <vector>

#include "flow/instruction_effects.h"
#include "flow/module_member.h"
#include "flow/refused_bytecodes.h"
#include "rules/masking.h"
#include "rules/prediction_sink.h"

namespace ljcheck::rules {

using bytecode::Op;

int certainAbortLine(const bytecode::Prototype& callee, const RecorderProfile& profile, bytecode::Op* op,
                     const std::vector<int>* refusedCalls) {
  const bool fnew = flow::refuses(profile, Op::FNEW), uclo = flow::refuses(profile, Op::UCLO);
  if (refusedCalls && refusedCalls->empty()) refusedCalls = nullptr;
  if (!fnew && !uclo && !refusedCalls) return 0;
  const int size = callee.size();
  if (size < 1) return 0;
  // The pcs reached from the entry without running such an instruction.
  std::vector<char> reached(static_cast<std::size_t>(size) + 2, 0);
  std::vector<int> work{1};
  reached[1] = 1;
  int abortLine = 0;
  while (!work.empty()) {
    const int q = work.back();
    work.pop_back();
    const auto& ins = callee.at(q);
    if ((fnew && ins.op == Op::FNEW) || (uclo && ins.op == Op::UCLO) ||
        (refusedCalls && std::binary_search(refusedCalls->begin(), refusedCalls->end(), q))) {
      if (abortLine == 0 || ins.line < abortLine) {
        abortLine = ins.line;
        if (op) *op = ins.op;
      }
      continue;  // every trace that gets here aborts
    }
    if (ins.op == Op::RET0 || ins.op == Op::RET1 || ins.op == Op::RET || ins.op == Op::RETM ||
        ins.op == Op::CALLT || ins.op == Op::CALLMT)
      return 0;  // a return reached around them
    const flow::Flow f = flow::flowOf(ins, q);
    for (int t : {f.fallsThrough ? q + 1 : 0, f.jump, f.skip})
      if (t >= 1 && t <= size && !reached[static_cast<std::size_t>(t)]) {
        reached[static_cast<std::size_t>(t)] = 1;
        work.push_back(t);
      }
  }
  return abortLine;
}

int certainAbortLine(const FunctionView& fn, std::size_t callee) {
  const std::vector<int>* refused =
      fn.refusedCalls && callee < fn.refusedCalls->size() ? &(*fn.refusedCalls)[callee] : nullptr;
  return certainAbortLine(fn.chunk.prototypes[callee], fn.profile, nullptr, refused);
}

namespace {

// abortingCallBefore over the region from pc `first` (a loop body's first,
// or 1 for the function body) up to the call at pc.
AbortingCall abortingCallIn(const FunctionView& fn, int first, int pc, const flow::MemberNames* abortingMembers) {
  std::vector<int> aborting;
  std::vector<std::string> names;
  for (int q = first; q < pc; ++q) {
    const auto& ins = fn.proto.at(q);
    if (ins.op == Op::FNEW || ins.op == Op::UCLO) {
      if (!flow::refuses(fn.profile, ins.op)) continue;
      aborting.push_back(q);
      names.push_back(ins.op == Op::FNEW ? "the closure" : "the upvalue close");
      continue;
    }
    if (ins.op != Op::CALL && ins.op != Op::CALLM) continue;
    const flow::Value callee = fn.values.at(fn.index, q, ins.a);
    if (callee.is(flow::Value::Kind::LuaFunction) && callee.proto < fn.chunk.prototypes.size() &&
        callee.proto != fn.index && certainAbortLine(fn, callee.proto) > 0) {
      aborting.push_back(q);
      names.push_back("the call of " + functionName(fn, callee.proto));
    } else if (abortingMembers && callee.is(flow::Value::Kind::ModuleMember) &&
               abortingMembers->count(callee.name) > 0) {
      aborting.push_back(q);
      const flow::ModuleMemberName member = flow::ModuleMemberName::parse(callee.name);
      names.push_back("the call of " + std::string(member.module) + "." + std::string(member.member));
    }
  }
  if (aborting.empty()) return {};
  const int masker = Masking(fn.chunk, fn.index, fn.values, fn.calls, aborting).firstMasker(pc);
  for (std::size_t i = 0; masker > 0 && i < aborting.size(); ++i)
    if (aborting[i] == masker) return {masker, fn.proto.at(masker).line, names[i]};
  return {};
}

}  // namespace

AbortingCall abortingCallBefore(const FunctionView& fn, int pc, const flow::MemberNames* abortingMembers) {
  const flow::Loop* loop = fn.loops.innermost(pc);
  return loop ? abortingCallIn(fn, loop->first, pc, abortingMembers) : AbortingCall{};
}

AbortingCall abortingCallFromEntry(const FunctionView& fn, int pc) {
  return fn.loops.innermost(pc) ? AbortingCall{} : abortingCallIn(fn, 1, pc, nullptr);
}

}  // namespace ljcheck::rules
