// Calls that change the JIT a file's predictions assume (see jit_settings.h).
#include "rules/jit_settings.h"

#include "flow/instruction_effects.h"

namespace ljcheck::rules {

namespace {

// Some prototype of the chunk names a field "off" or "start": a file that
// does not cannot reach jit.off or jit.opt.start (most files), and its
// calls need no look.
bool namesSwitch(const bytecode::Chunk& chunk) {
  for (const auto& proto : chunk.prototypes)
    for (const auto& k : proto.gc)
      if (k.kind == bytecode::GcConstant::Kind::String && (k.str == "off" || k.str == "start")) return true;
  return false;
}

}  // namespace

JitSettings jitSettingsOf(const bytecode::Chunk& chunk, const flow::ValueMap& values) {
  JitSettings out;
  if (!namesSwitch(chunk)) return out;
  for (std::size_t q = 0; q < chunk.prototypes.size(); ++q) {
    const auto& proto = chunk.prototypes[q];
    for (int pc = 1; pc <= proto.size(); ++pc) {
      const auto& ins = proto.at(pc);
      if (!flow::isCall(ins.op) || !values.reached(q, pc)) continue;
      const flow::Value callee = values.at(q, pc, flow::calleeSlot(ins));
      if (!callee.is(flow::Value::Kind::LibFunction)) continue;
      // Without arguments jit.on and jit.off switch the whole VM; with a
      // function they mark that one (values.h: jitDisabled).
      const bool noArguments = (ins.op == bytecode::Op::CALL || ins.op == bytecode::Op::CALLT) && flow::fixedArgs(ins) == 0;
      if (callee.name == "jit.off" && noArguments && out.offLine == 0) out.offLine = ins.line;
      if (callee.name == "jit.on" && noArguments) out.turnedOn = true;
      if (callee.name == "jit.opt.start" && out.startLine == 0) out.startLine = ins.line;
    }
  }
  return out;
}

std::string JitSettings::clause() const {
  if (compilerOff())
    return "; jit.off() at line " + std::to_string(offLine) +
           " turns the JIT compiler off, and no jit.on() in this file turns it back on, so nothing that runs after "
           "it is recorded: possible at most";
  if (offLine > 0)
    return "; jit.off() at line " + std::to_string(offLine) +
           " turns the JIT compiler off until a jit.on() of this file, and which code runs in between the bytecode "
           "does not show: likely at most";
  return "; jit.opt.start at line " + std::to_string(startLine) +
         " sets JIT parameters, which these counts take at the recorder profile's defaults: likely at most, and a "
         "warning";
}

}  // namespace ljcheck::rules
