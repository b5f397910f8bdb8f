// CJITOFF: a prototype passed to jit.off(f) carries PROTO_NOJIT; a trace
// that calls it aborts when it enters the function (lj_record.c:
// rec_func_setup). The abort is reported at the callee's header (pc 0, its
// `function` line), whichever loop calls it; later attempts show BLACKL.
#include "flow/instruction_effects.h"
#include "rules/prediction_sink.h"
#include "rules/rule.h"
#include "rules/split_finding.h"

namespace ljcheck::rules {
namespace {

class JitOffRule final : public Rule {
 public:
  std::string_view name() const override { return "jit-off"; }
  std::vector<ReasonId> reasons(const RecorderProfile&) const override { return {ReasonId::traceError("CJITOFF")}; }

  void check(const FunctionView& fn, PredictionSink& sink) const override {
    if (!fn.values.anyJitDisabled()) return;  // most files: no callee to resolve
    for (int pc = 1; pc <= fn.proto.size(); ++pc) {
      const auto& ins = fn.proto.at(pc);
      if (!flow::isCall(ins.op)) continue;
      Callee callee = resolveCallee(fn, pc);
      if (!callee.value.is(flow::Value::Kind::LuaFunction) || !fn.values.jitDisabled(callee.value.proto)) continue;
      if (!runsHot(fn, pc)) continue;
      std::string name = functionName(fn, callee.value.proto);
      Finding f;
      f.pc = 0;  // the callee's header
      f.proto = callee.value.proto;
      f.tracePc = pc;
      f.reasonId = ReasonId::traceError("CJITOFF");
      f.construct = "closure";
      f.callee = name;
      f.aborts = true;
      f.message = "JIT compilation is disabled for " + name + " (jit.off): traces that call it abort here";
      f.reasoning = name + " is passed to jit.off in this file and called at line " +
                    std::to_string(ins.line) + ", where " + whyHot(fn, pc) +
                    "; the recorder aborts on entering a function with JIT disabled";
      if (std::string bound = boundCalleeWhy(fn, pc, callee); !bound.empty()) f.reasoning += "; " + bound;
      sink.report(fn, std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> makeJitOffRule() { return std::make_unique<JitOffRule>(); }

}  // namespace ljcheck::rules
