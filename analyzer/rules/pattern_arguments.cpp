// Evidence that a string-library argument is a pattern (see pattern_arguments.h).
#include "rules/pattern_arguments.h"

#include <algorithm>
#include <cctype>

#include "flow/instruction_effects.h"
#include "flow/variables.h"
#include "rules/split_finding.h"

namespace ljcheck::rules {

using bytecode::Op;

namespace {

// The instruction that last wrote `slot` before pc in the call's own
// evaluation (0 when none): arguments are filled just before their call.
int writerOf(const FunctionView& fn, int pc, int slot) {
  for (int q = pc - 1; q >= 1; --q) {
    flow::Writes w = flow::writesOf(fn.proto.at(q));
    if (slot >= w.first && slot <= w.last) return q;
  }
  return 0;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

// A caller in this file passes a string with special characters in the
// parameter's position: the clause that says where, or empty.
std::string callerPassingPattern(const FunctionView& fn, int parameter) {
  for (const auto& site : fn.calls.callers(fn.index)) {
    const auto& call = fn.chunk.prototypes[site.proto].at(site.pc);
    int argument = parameter + site.firstArgument;
    if (argument >= flow::fixedArgs(call)) continue;
    flow::Value v = fn.values.at(site.proto, site.pc, flow::argumentSlot(fn.chunk, call, argument));
    if (!v.is(flow::Value::Kind::String) || !hasPatternSpecials(v.text())) continue;
    return "the call at line " + std::to_string(call.line) + " passes " +
           (v.constant ? "the pattern " + quoted(v.text()) : "a pattern built from " + quoted(v.text()));
  }
  return {};
}

}  // namespace

bool isPatternName(std::string_view name) {
  std::string n = lower(name);
  if (n.find("pattern") != std::string::npos) return true;
  for (std::string_view short_name : {"pat", "patt", "patn"}) {
    if (n == short_name) return true;
    std::string suffix = "_" + std::string(short_name), prefix = std::string(short_name) + "_";
    if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) return true;
    if (n.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

PatternEvidence patternArgument(const FunctionView& fn, int pc, int k) {
  int q = writerOf(fn, pc, argumentSlot(fn, pc, k));
  if (q == 0) return {};
  const auto& ins = fn.proto.at(q);
  if (ins.op == Op::UGET) {
    if (ins.d >= fn.proto.upvalueNames.size() || !isPatternName(fn.proto.upvalueNames[ins.d])) return {};
    return {true, "the argument is the upvalue " + fn.proto.upvalueNames[ins.d] + ", named for a pattern"};
  }
  if (ins.op != Op::MOV) return {};
  const bytecode::VarInfo* var = flow::variableAt(fn.proto, q, ins.d);
  if (!var) return {};
  bool parameter = var->startpc == 0 && ins.d < fn.proto.numparams;
  if (parameter) {
    std::string caller = callerPassingPattern(fn, ins.d);
    if (!caller.empty()) return {true, "the argument is the parameter " + var->name + ", and " + caller};
  }
  if (!isPatternName(var->name)) return {};
  return {true, std::string("the argument is the ") + (parameter ? "parameter " : "local ") + var->name +
                    ", named for a pattern"};
}

bool isFalseLiteral(const FunctionView& fn, int pc, int k) {
  int q = writerOf(fn, pc, argumentSlot(fn, pc, k));
  if (q == 0) return false;
  const auto& ins = fn.proto.at(q);
  return ins.op == Op::KNIL || (ins.op == Op::KPRI && ins.d <= 1);  // KPRI 0: nil, 1: false
}

}  // namespace ljcheck::rules
