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
      if (k.isString("off") || k.isString("start")) return true;
  return false;
}

// Marks `proto`, and with `inside` the functions defined in it, as turned
// off by the call at `line`.
void turnOff(const bytecode::Chunk& chunk, std::size_t proto, bool inside, int line, std::vector<int>& offFor) {
  if (proto >= offFor.size() || offFor[proto] != 0) return;
  offFor[proto] = line;
  if (inside)
    for (std::size_t child : chunk.prototypes[proto].children) turnOff(chunk, child, true, line, offFor);
}

}  // namespace

JitSettings::JitSettings(const bytecode::Chunk& chunk, const flow::ValueMap& values, const flow::CallGraph& calls)
    : main_(chunk.prototypes.empty() ? 0 : chunk.prototypes.size() - 1), offFor_(chunk.prototypes.size(), 0) {
  if (!namesSwitch(chunk)) return;
  for (std::size_t q = 0; q < chunk.prototypes.size(); ++q) {
    const auto& proto = chunk.prototypes[q];
    bool lateCall = false;  // a call of this file's functions came first in the main chunk
    for (int pc = 1; pc <= proto.size(); ++pc) {
      const auto& ins = proto.at(pc);
      if (!flow::isCall(ins.op) || !values.reached(q, pc)) continue;
      flow::Value callee = values.at(q, pc, flow::calleeSlot(ins));
      // pcall(jit.off) and pcall(jit.opt.start, ...) switch it too.
      int first = 0;
      if (callee.is(flow::Value::Kind::LibFunction) && callee.name == "pcall" && flow::fixedArgs(ins) >= 1) {
        callee = values.at(q, pc, flow::argumentSlot(chunk, ins, 0));
        first = 1;
      }
      if (!callee.is(flow::Value::Kind::LibFunction)) {
        lateCall = lateCall || callee.is(flow::Value::Kind::LuaFunction) || !callee.known();
        continue;
      }
      const bool fixed = ins.op == bytecode::Op::CALL || ins.op == bytecode::Op::CALLT;
      const int args = fixed ? flow::fixedArgs(ins) - first : -1;
      const flow::Value arg = args >= 1 ? values.at(q, pc, flow::argumentSlot(chunk, ins, first)) : flow::Value{};
      // jit.off(nil) is jit.off() (lib_jit.c: setjitmode takes nil for the whole VM).
      const bool wholeVm = args == 0 || (args >= 1 && arg.is(flow::Value::Kind::Nil));
      if (callee.name == "jit.off" && wholeVm && offLine_ == 0) {
        offLine_ = ins.line;
        offPc_ = pc;
        offOnLoad_ = q == main_ && calls.onEveryCall(q, pc);
        offFirst_ = offOnLoad_ && !lateCall;
      } else if (callee.name == "jit.off" && args >= 1 && arg.is(flow::Value::Kind::Boolean)) {
        turnOff(chunk, q, args >= 2, ins.line, offFor_);  // jit.off(true[, true]): the calling function
      } else if (callee.name == "jit.off" && args >= 2 && arg.is(flow::Value::Kind::LuaFunction)) {
        turnOff(chunk, arg.proto, true, ins.line, offFor_);  // jit.off(f, true); jit.off(f) is values.h's jitDisabled
      } else if (callee.name == "jit.on" && wholeVm) {
        turnedOn_ = true;
      } else if (callee.name == "jit.opt.start" && startLine_ == 0) {
        startLine_ = ins.line;
      }
    }
  }
}

JitSettings::Effect JitSettings::effectAt(std::size_t proto, int pc) const {
  const std::string offAt = "; jit.off() at line " + std::to_string(offLine_);
  if (proto < offFor_.size() && offFor_[proto] != 0)
    return {Confidence::Possible, "; jit.off at line " + std::to_string(offFor_[proto]) +
                                      " turns the JIT compiler off for this function, so nothing in it is recorded "
                                      "once that call has run: possible at most"};
  if (offLine_ > 0 && !turnedOn_ && offFirst_ && !(proto == main_ && pc < offPc_))
    return {Confidence::Possible, offAt + " turns the JIT compiler off when the file loads, before anything of it "
                                          "runs, and no jit.on() turns it back on: possible at most"};
  if (offLine_ > 0 && !turnedOn_ && offOnLoad_ && proto == main_ && pc > offPc_)
    return {Confidence::Possible, offAt + " turns the JIT compiler off before this runs, and no jit.on() turns it "
                                          "back on: possible at most"};
  if (offLine_ > 0 && !(offOnLoad_ && proto == main_ && pc < offPc_))
    return {Confidence::Likely, offAt + " turns the JIT compiler off when it runs" +
                                    (turnedOn_ ? ", until a jit.on() of this file," : "") +
                                    " and whether that is before this runs the bytecode does not show: likely at "
                                    "most, and a warning"};
  if (startLine_ > 0)
    return {Confidence::Likely, "; jit.opt.start at line " + std::to_string(startLine_) +
                                    " sets JIT parameters, which these counts take at the recorder profile's "
                                    "defaults: likely at most, and a warning"};
  return {};
}

}  // namespace ljcheck::rules
