// Whether an earlier certain abort hides a site (see masking.h).
#include "rules/masking.h"

#include "flow/call_graph.h"
#include "flow/instruction_effects.h"

namespace ljcheck::rules {

namespace {

using bytecode::Op;

// A call to a Lua function of this file that has a loop of its own.
// Library functions have none; an unresolved callee is assumed to have none
// (most are methods that do not loop hot; checked on the accuracy workloads).
bool runsLoop(const bytecode::Chunk& chunk, std::size_t proto, const flow::ValueMap& values,
              const flow::CallGraph& calls, int pc) {
  flow::Value callee = values.at(proto, pc, flow::calleeSlot(chunk.prototypes[proto].at(pc)));
  if (!callee.is(flow::Value::Kind::LuaFunction) || callee.proto >= chunk.prototypes.size()) return false;
  return calls.hasLoop(callee.proto);
}

// The pc an instruction transfers control to besides the next one; 0 for
// none. LOOP's operand marks the loop's end for the JIT and is no jump.
int jumpOf(const bytecode::Instruction& ins, int pc) {
  switch (ins.op) {
    case Op::JMP: case Op::UCLO: case Op::ISNEXT: case Op::FORI: case Op::JFORI:
    case Op::FORL: case Op::IFORL: case Op::JFORL: case Op::ITERL: case Op::IITERL: case Op::JITERL:
      return ins.jumpTarget(pc);
    default:
      return 0;
  }
}

// Every path from the function's entry (or a loop's back edge) to pc runs
// through masker: no jump from outside [masker, pc) lands in (masker, pc].
// A test skips only the JMP after it, which never lands past the masker.
// A generic for's iterator call sits after its body and is first reached
// by the jump in front of the loop, so a body abort does not hide it.
bool dominates(const bytecode::Prototype& code, int masker, int pc) {
  for (int q = 1; q <= code.size(); ++q) {
    if (q >= masker && q < pc) continue;
    int target = jumpOf(code.at(q), q);
    if (target > masker && target <= pc) return false;
  }
  return true;
}

}  // namespace

bool masks(const bytecode::Chunk& chunk, std::size_t proto, const flow::LoopMap& loops,
           const flow::ValueMap& values, const flow::CallGraph& calls, int masker, int pc) {
  const auto& code = chunk.prototypes[proto];
  if (masker <= 0 || masker >= pc) return false;
  if (loops.innermost(masker) != loops.innermost(pc)) return false;
  if (!dominates(code, masker, pc)) return false;
  for (int q = masker + 1; q < pc; ++q)
    if (flow::isCallOrIterator(code.at(q).op) && runsLoop(chunk, proto, values, calls, q)) return false;
  for (const auto& inner : loops.loops())
    if (inner.first > masker && inner.last < pc) return false;
  return true;
}

}  // namespace ljcheck::rules
