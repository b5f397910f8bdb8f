// Evidence that a string-library argument is a pattern (see pattern_arguments.h).
#include "rules/pattern_arguments.h"

#include <algorithm>
#include <cctype>
#include <variant>

#include "flow/instruction_effects.h"
#include "flow/loops.h"
#include "flow/variables.h"
#include "rules/split_finding.h"

namespace ljcheck::rules {

using bytecode::Op;

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

// Callers in this file pass a string with special characters in the
// parameter's position: the clause that says where (each call on its own
// line, up to three: a split that lands at the calls of a function that
// tail-calls the builtin is reported at each, and naming only the first
// read as if the others passed its pattern), or empty.
std::string callerPassingPattern(const FunctionView& fn, int parameter) {
  constexpr int kNamedCalls = 3;
  std::string out;
  int named = 0, more = 0, lastLine = 0;
  for (const auto& site : fn.calls.callers(fn.index)) {
    const auto& call = fn.chunk.prototypes[site.proto].at(site.pc);
    flow::Value v = callerArgument(fn, site, parameter);
    if (!v.is(flow::Value::Kind::String) || !hasPatternSpecials(v.text()) || call.line == lastLine) continue;
    lastLine = call.line;
    if (named == kNamedCalls) {
      ++more;
      continue;
    }
    out += (named++ ? ", and the call at line " : "the call at line ") + std::to_string(call.line) + " passes " +
           (v.constant ? "the pattern " + quoted(v.text()) : "a pattern built from " + quoted(v.text()));
  }
  if (more > 0) out += ", and " + std::to_string(more) + " more call" + (more > 1 ? "s pass" : " passes") + " one";
  return out;
}

// A parameter at index `parameter` that a caller in this file fills with a
// table constructor holding a string with pattern special characters: the
// clause that says where, or empty.
std::string callerPassingPatterns(const FunctionView& fn, int parameter) {
  for (const auto& site : fn.calls.callers(fn.index)) {
    const auto& call = fn.chunk.prototypes[site.proto].at(site.pc);
    flow::Value t = callerArgument(fn, site, parameter);
    if (!t.is(flow::Value::Kind::Table) || t.proto >= fn.chunk.prototypes.size() || t.pc <= 0) continue;
    const auto& maker = fn.chunk.prototypes[t.proto];
    const auto& ins = maker.at(t.pc);
    if (ins.op != Op::TDUP || ins.d >= maker.gc.size() || maker.gc[ins.d].kind != bytecode::GcConstant::Kind::Table)
      continue;
    for (const auto& entry : maker.gc[ins.d].table.array) {
      const std::string* text = std::get_if<std::string>(&entry);
      if (text && hasPatternSpecials(*text))
        return "the call at line " + std::to_string(call.line) + " passes a table holding the pattern " + quoted(*text);
    }
  }
  return {};
}

// The local read at `q` (a MOV from `slot`) is the value variable of a
// `for _, v in ipairs(t)` (or pairs) over a parameter t of this function:
// t's parameter index, else -1.
int iteratedParameter(const FunctionView& fn, const bytecode::VarInfo& var, int slot) {
  for (const auto& loop : fn.loops.loops()) {
    if (loop.kind != flow::Loop::Kind::GenericFor || loop.first != var.startpc || loop.first < 3) continue;
    int call = loop.first - 2;
    const auto& ins = fn.proto.at(call);
    if (!flow::isCall(ins.op) || slot != ins.a + 4) return -1;  // the value comes after gen, state, control, key
    flow::Value callee = fn.values.at(fn.index, call, flow::calleeSlot(ins));
    if (!callee.is(flow::Value::Kind::LibFunction) || (callee.name != "ipairs" && callee.name != "pairs"))
      return -1;
    int w = flow::lastWriteBefore(fn.proto, call, argumentSlot(fn, call, 0));
    if (w == 0 || fn.proto.at(w).op != Op::MOV) return -1;
    const bytecode::VarInfo* table = flow::variableAt(fn.proto, w, fn.proto.at(w).d);
    if (!table || table->startpc != 0 || fn.proto.at(w).d >= fn.proto.numparams) return -1;
    return fn.proto.at(w).d;
  }
  return -1;
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
  int q = flow::lastWriteBefore(fn.proto, pc, argumentSlot(fn, pc, k));
  if (q == 0) return {};
  const auto& ins = fn.proto.at(q);
  if (ins.op == Op::UGET) {
    if (ins.d >= fn.proto.upvalueNames.size() || !isPatternName(fn.proto.upvalueNames[ins.d])) return {};
    return {true, "the argument is the upvalue " + fn.proto.upvalueNames[ins.d] + ", named for a pattern"};
  }
  // A field named for a pattern (`path:match(route.pattern)`, audit 99: a
  // router's table of routes read in a loop).
  if (ins.op == Op::TGETS) {
    const std::string* key = fn.proto.stringConstant(ins.c);
    if (!key || !isPatternName(*key)) return {};
    return {true, "the argument is the field " + *key + ", named for a pattern"};
  }
  if (ins.op != Op::MOV) return {};
  const bytecode::VarInfo* var = flow::variableAt(fn.proto, q, ins.d);
  if (!var) return {};
  bool parameter = var->startpc == 0 && ins.d < fn.proto.numparams;
  if (parameter) {
    std::string caller = callerPassingPattern(fn, ins.d);
    if (!caller.empty()) return {true, "the argument is the parameter " + var->name + ", and " + caller};
  }
  if (int t = iteratedParameter(fn, *var, ins.d); t >= 0) {
    std::string caller = callerPassingPatterns(fn, t);
    const bytecode::VarInfo* table = flow::variableAt(fn.proto, 1, t);
    if (!caller.empty())
      return {true, "the argument is " + var->name + ", an entry of the parameter " +
                        (table ? table->name : std::string("?")) + ", and " + caller};
  }
  if (!isPatternName(var->name)) return {};
  return {true, std::string("the argument is the ") + (parameter ? "parameter " : "local ") + var->name +
                    ", named for a pattern"};
}

bool isFalseLiteral(const FunctionView& fn, int pc, int k) {
  int q = flow::lastWriteBefore(fn.proto, pc, argumentSlot(fn, pc, k));
  if (q == 0) return false;
  const auto& ins = fn.proto.at(q);
  return ins.op == Op::KNIL || (ins.op == Op::KPRI && ins.d <= 1);  // KPRI 0: nil, 1: false
}

}  // namespace ljcheck::rules
