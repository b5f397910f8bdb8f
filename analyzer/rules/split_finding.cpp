// Shared helpers of the trace-split rules (see split_finding.h).
#include "rules/split_finding.h"

namespace ljcheck::rules {

using bytecode::Op;

int argumentSlot(const FunctionView& fn, int pc, int k) {
  return fn.proto.at(pc).a + (fn.chunk.fr2 ? 2 : 1) + k;
}

int fixedArguments(const bytecode::Instruction& call) {
  // CALL/CALLT: C - 1 arguments; CALLM/CALLMT: C fixed ones before the multres.
  if (call.op == Op::CALLM || call.op == Op::CALLMT) return call.c;
  return call.c - 1;
}

Callee resolveCallee(const FunctionView& fn, int pc) {
  const auto& ins = fn.proto.at(pc);
  Callee c{calleeAt(fn, pc), false};
  if (c.value.is(flow::Value::Kind::LibFunction) && (c.value.name == "pcall" || c.value.name == "xpcall") &&
      ins.op != Op::ITERC) {
    c.value = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0));
    c.protectedCall = true;
  }
  return c;
}

bool nextFeedsVariableCount(const bytecode::Prototype& proto, int pc) {
  if (pc >= proto.size()) return false;
  Op next = proto.at(pc + 1).op;
  return next == Op::CALLM || next == Op::CALLMT || next == Op::RETM || next == Op::TSETM;
}

std::string whyEnds(bool neverStitches, bool protectedCall) {
  if (neverStitches) return "it never stitches";
  if (protectedCall) return "it is called through pcall";
  return "its results feed a variable-count operation";
}

Finding splitFinding(int pc, std::size_t proto, const std::string& subject, const std::string& callee, bool ends,
                     const std::string& why) {
  Finding f;
  f.pc = pc;
  f.proto = proto;
  f.reasonId = (ends ? "RETURN:" : "STITCH:") + subject;
  f.construct = "call";
  f.callee = callee;
  f.message = ends ? "call to " + callee + " ends the trace: it is not compiled and " + why
                   : "call to " + callee + " is not compiled: the trace is stitched around it";
  return f;
}

}  // namespace ljcheck::rules
