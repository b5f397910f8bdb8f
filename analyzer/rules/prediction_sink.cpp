// Findings to Predictions (see prediction_sink.h).
#include "rules/prediction_sink.h"

namespace ljcheck::rules {

using bytecode::Op;

namespace {

// The local variable occupying `slot` just after `pc`: LuaJIT gives active
// locals consecutive slots in declaration order.
std::string localNameAt(const bytecode::Prototype& p, int pc, int slot) {
  int index = 0;
  for (const auto& v : p.vars) {
    if (v.startpc > pc + 1 || v.endpc <= pc) continue;
    if (index == slot) return v.name;
    ++index;
  }
  return {};
}

}  // namespace

std::string functionName(const bytecode::Chunk& chunk, std::size_t index) {
  if (index + 1 == chunk.prototypes.size()) return "<main>";
  const auto& proto = chunk.prototypes[index];
  std::string anonymous = "<anonymous:" + std::to_string(proto.firstline) + ">";
  if (proto.parent == SIZE_MAX) return anonymous;
  const auto& parent = chunk.prototypes[proto.parent];
  for (int pc = 1; pc <= parent.size(); ++pc) {
    const auto& ins = parent.at(pc);
    if (ins.op != Op::FNEW || ins.d >= parent.gc.size()) continue;
    const auto& k = parent.gc[ins.d];
    if (k.kind != bytecode::GcConstant::Kind::Child || k.child != index) continue;
    if (pc < parent.size()) {
      const auto& next = parent.at(pc + 1);
      auto key = [&](std::uint16_t d) -> std::string {
        return d < parent.gc.size() && parent.gc[d].kind == bytecode::GcConstant::Kind::String
                   ? parent.gc[d].str
                   : std::string();
      };
      if (next.op == Op::GSET && next.a == ins.a && !key(next.d).empty()) return key(next.d);
      if (next.op == Op::TSETS && next.a == ins.a && !key(next.c).empty()) return key(next.c);
    }
    std::string local = localNameAt(parent, pc, ins.a);
    return local.empty() || local[0] == '(' ? anonymous : local;
  }
  return anonymous;
}

void CollectingSink::report(const FunctionView& fn, Finding finding) {
  if (finding.proto == SIZE_MAX && maskedByEarlierAbort(fn, finding.pc)) return;
  Prediction p;
  ReasonId id = ReasonId::parse(finding.reasonId);
  const Reason* reason = fn.catalog.find(id.code);
  std::size_t proto = finding.proto == SIZE_MAX ? fn.index : finding.proto;
  Context ctx = contextOf(fn.calls, fn.chunk, proto, finding.pc);
  p.reasonId = finding.reasonId;
  p.reasonClass = reason ? reason->reasonClass : ReasonClass::Risk;
  p.severity = reason ? reason->severity : Severity::Warn;
  // A blocker that runs hot for sure blacklists the loop (or function) its
  // trace starts in; in a function that is only possibly hot (it escapes,
  // its callers are elsewhere) any finding is a note.
  flow::Heat heat = fn.calls.heatAt(proto, finding.pc);
  if (heat == flow::Heat::Known && p.reasonClass == ReasonClass::Blocker) p.severity = Severity::Blacklist;
  if (heat == flow::Heat::Possible) p.severity = Severity::Info;
  p.path = path_;
  p.line = fn.chunk.prototypes[proto].at(finding.pc).line;
  p.context = ctx;
  p.construct = std::move(finding.construct);
  p.callee = std::move(finding.callee);
  p.function = functionName(fn.chunk, proto);
  p.message = std::move(finding.message);
  p.advice = reason ? reason->advice : std::string();
  predictions_.push_back(std::move(p));
}

}  // namespace ljcheck::rules
