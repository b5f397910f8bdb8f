// Calls to fast functions that have a recorder, in a form the recorder
// refuses: it hands them to recff_nyi like an unrecorded function, so the
// trace splits (STITCH/RETURN with the same identity). From lj_ffrecord.c:
// table.insert with a position, select with a non-constant index,
// string.find with a pattern that has special characters (and no plain flag).
#include "rules/rule.h"
#include "rules/split_finding.h"

namespace ljcheck::rules {
namespace {

using bytecode::Op;
using flow::Value;

bool hasPatternSpecials(const std::string& pattern) {
  return pattern.find_first_of("^$*+?.([%-") != std::string::npos;
}

// Why the recorder refuses this call form; empty when it records it.
std::string refusedVariant(const FunctionView& fn, int pc, const std::string& name) {
  const auto& call = fn.proto.at(pc);
  int args = fixedArguments(call);
  bool variableArgs = call.op == Op::CALLM || call.op == Op::CALLMT;
  if (name == "table.insert" && args == 3 && !variableArgs) return "table.insert with a position";
  if (name == "select" && args >= 1) {
    Value k = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 0));
    // Only a constant index (or '#') is recorded; a variable one is not.
    if (k.kind == Value::Kind::String || k.kind == Value::Kind::Number) return {};
    return "select with a non-constant index";
  }
  if (name == "string.find" && args >= 2 && !variableArgs) {
    Value pattern = fn.values.at(fn.index, pc, argumentSlot(fn, pc, 1));
    if (pattern.kind != Value::Kind::String || !hasPatternSpecials(std::string(pattern.name))) return {};
    if (args >= 4) return {};  // a plain flag: recorded when true
    return "string.find with a pattern (not a plain search)";
  }
  return {};
}

class RecordedVariantRule final : public Rule {
 public:
  std::string_view name() const override { return "recorded-variants"; }

  void check(const FunctionView& fn, PredictionSink& sink) const override {
    for (int pc = 1; pc <= fn.proto.size(); ++pc) {
      const auto& ins = fn.proto.at(pc);
      if (ins.op != Op::CALL && ins.op != Op::CALLM) continue;
      if (!runsHot(fn, pc)) continue;
      Callee callee = resolveCallee(fn, pc);
      if (callee.value.kind != Value::Kind::LibFunction || callee.protectedCall) continue;
      const FastFunctionDef* ff = fn.profile.fastFunction(callee.value.name);
      if (!ff || !ff->recorded()) continue;  // unrecorded ones are call-splits' business
      std::string variant = refusedVariant(fn, pc, ff->name);
      if (variant.empty()) continue;
      bool ends = nextFeedsVariableCount(fn.proto, pc);
      Finding f = splitFinding(pc, SIZE_MAX, ff->name, ff->name, ends, whyEnds(false, false));
      f.message = variant + " is not compiled: " +
                  (ends ? "the trace ends here" : "the trace is stitched around it");
      sink.report(fn, std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> makeRecordedVariantRule() { return std::make_unique<RecordedVariantRule>(); }

}  // namespace ljcheck::rules
