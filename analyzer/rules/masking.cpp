// Whether an earlier certain abort hides a site (see masking.h).
#include "rules/masking.h"

#include "flow/call_graph.h"

namespace ljcheck::rules {

namespace {

// A call to a Lua function of this file that has a loop of its own.
// Library functions have none; an unresolved callee is assumed to have none
// (most are methods that do not loop hot; checked on the accuracy workloads).
bool runsLoop(const bytecode::Chunk& chunk, std::size_t proto, const flow::ValueMap& values,
              const flow::CallGraph& calls, int pc) {
  flow::Value callee = values.at(proto, pc, flow::calleeSlot(chunk.prototypes[proto].at(pc)));
  if (!callee.is(flow::Value::Kind::LuaFunction) || callee.proto >= chunk.prototypes.size()) return false;
  return calls.hasLoop(callee.proto);
}

}  // namespace

bool masks(const bytecode::Chunk& chunk, std::size_t proto, const flow::LoopMap& loops,
           const flow::ValueMap& values, const flow::CallGraph& calls, int masker, int pc) {
  const auto& code = chunk.prototypes[proto];
  if (masker <= 0 || masker >= pc) return false;
  const flow::Loop* loop = loops.innermost(pc);
  if (loops.innermost(masker) != loop) return false;
  flow::Loop body{flow::Loop::Kind::While, 1, code.size()};
  if (!flow::runsOnEveryIteration(code, loop ? *loop : body, masker)) return false;
  for (int q = masker + 1; q < pc; ++q)
    if (flow::isCallInstruction(code.at(q).op) && runsLoop(chunk, proto, values, calls, q)) return false;
  for (const auto& inner : loops.loops())
    if (inner.first > masker && inner.last < pc) return false;
  return true;
}

}  // namespace ljcheck::rules
