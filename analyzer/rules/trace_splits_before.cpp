// Calls that end or split a root trace before a blocker (see trace_splits_before.h).
#include "rules/trace_splits_before.h"

#include <vector>

#include "flow/every_pass.h"
#include "flow/instruction_effects.h"
#include "rules/split_finding.h"

namespace ljcheck::rules {
namespace {

constexpr int kDepth = 3;

int splittingCall(const FunctionView& fn, int from, int to, int depth, std::vector<int>* splits = nullptr);

// The call at pc is inlined into the trace that records it.
bool inlined(const FunctionView& fn, int pc, int depth) {
  const flow::Value callee = resolveCallee(fn, pc).value;
  if (callee.is(flow::Value::Kind::LibFunction)) {
    if (!recordedCall(fn, pc)) return false;
    if (callee.name != "pcall" && callee.name != "xpcall") return true;
    // pcall(f, ...): f's body is recorded inline.
    const auto& call = fn.proto.at(pc);
    if (flow::fixedArgs(call) < 1) return false;
    const flow::Value f = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0));
    return f.is(flow::Value::Kind::LuaFunction) && f.proto < fn.chunk.prototypes.size() && depth < kDepth &&
           !fn.calls.runsLoop(f.proto) &&
           splittingCall(fn.of(f.proto), 1, fn.chunk.prototypes[f.proto].size() + 1, depth + 1) == 0;
  }
  if (callee.is(flow::Value::Kind::LuaFunction) && callee.proto < fn.chunk.prototypes.size())
    return depth < kDepth && !fn.calls.runsLoop(callee.proto) &&
           splittingCall(fn.of(callee.proto), 1, fn.chunk.prototypes[callee.proto].size() + 1, depth + 1) == 0;
  return false;
}

// The line of the first call in [from, to) that is not inlined, 0 when
// none; with `splits`, the pcs of all of them.
int splittingCall(const FunctionView& fn, int from, int to, int depth, std::vector<int>* splits) {
  int first = 0;
  for (int pc = std::max(from, 1); pc < to && pc <= fn.proto.size(); ++pc) {
    const bytecode::Op op = fn.proto.at(pc).op;
    if (!flow::isCall(op) || flow::isTailCall(op)) continue;  // a tail call leaves the body: nothing after it runs
    if (inlined(fn, pc, depth)) continue;
    if (first == 0) first = fn.proto.at(pc).line;
    if (!splits) return first;
    splits->push_back(pc);
  }
  return first;
}

}  // namespace

SplitBefore splitBefore(const FunctionView& fn, int from, int to) {
  SplitBefore out;
  std::vector<int> splits;
  out.line = splittingCall(fn, from, to, 0, &splits);
  for (int pc : splits)
    if (stitchesAt(fn, pc) != Confidence::Certain) return out;
  // One of the stitches runs on every path from `from` to `to`: no branch
  // goes around it, to `to` or past it (every_pass.h).
  const std::vector<flow::Branch> branches = flow::branchesOf(fn.proto);
  for (int pc : splits) {
    const flow::Routes around = flow::routesAround(branches, pc, from, to, from <= 1);
    if (around.compiles || around.aborts) continue;
    out.stitchLine = fn.proto.at(pc).line;
    stitchesAt(fn, pc, &out.stitchCallee);
    break;
  }
  return out;
}

}  // namespace ljcheck::rules
