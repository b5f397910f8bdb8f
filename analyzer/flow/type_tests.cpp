// Finds `type(x) == "name"` tests in the bytecode (type_tests.h), and
// narrows the tested local for the value map's forward pass (values.h). The
// compiler leaves `if type(x) == "string" then` as
//   MOV  t+2, x ; CALL t 2 2 ; ISNES t "string" ; JMP else
// and `local tx = type(x) ... if tx == "string"` as a CALL into tx's slot
// and, later, ISNES tx "string".
#include "flow/type_tests.h"

#include <array>

#include "flow/instruction_effects.h"
#include "flow/values.h"

namespace ljcheck::flow {

using bytecode::Op;

namespace {

constexpr std::array<std::string_view, 9> kTypeNames = {"nil",      "boolean", "number", "string", "table",
                                                        "function", "userdata", "thread", "cdata"};

const std::string* typeName(const bytecode::Prototype& proto, int d) {
  if (d < 0 || static_cast<std::size_t>(d) >= proto.gc.size()) return nullptr;
  const auto& k = proto.gc[static_cast<std::size_t>(d)];
  if (k.kind != bytecode::GcConstant::Kind::String) return nullptr;
  for (std::string_view name : kTypeNames)
    if (k.str == name) return &k.str;
  return nullptr;
}

bool writes(const bytecode::Instruction& ins, int slot) {
  Writes w = writesOf(ins);
  return slot >= w.first && slot <= w.last;
}

// The last instruction before pc that writes slot, or 0.
int lastWriter(const bytecode::Prototype& proto, int pc, int slot) {
  for (int q = pc - 1; q >= 1; --q)
    if (writes(proto.at(q), slot)) return q;
  return 0;
}

// Whether some instruction outside [first, last] jumps (or skips) to a pc
// in (first, last]: that path reaches the test without the call.
bool enteredBetween(const bytecode::Prototype& proto, int first, int last) {
  for (int q = 1; q <= proto.size(); ++q) {
    if (q >= first && q <= last) continue;
    Flow f = flowOf(proto.at(q), q);
    for (int target : {f.jump, f.skip})
      if (target > first && target <= last) return true;
  }
  return false;
}

}  // namespace

TypeTest typeTestAt(const bytecode::Chunk& chunk, const bytecode::Prototype& proto, int pc) {
  const auto& test = proto.at(pc);
  if (test.op != Op::ISEQS && test.op != Op::ISNES) return {};
  const std::string* name = typeName(proto, test.d);
  if (!name) return {};
  int result = test.a;
  int callPc = lastWriter(proto, pc, result);
  if (callPc == 0) return {};
  const auto& call = proto.at(callPc);
  if (call.op != Op::CALL || call.a != result || call.b != 2 || call.c != 2) return {};
  int argument = argumentSlot(chunk, call, 0);
  int movPc = lastWriter(proto, callPc, argument);
  if (movPc == 0) return {};
  const auto& mov = proto.at(movPc);
  if (mov.op != Op::MOV || mov.a != argument || mov.d >= call.a) return {};  // x must be a local below the call
  int x = mov.d;
  for (int q = movPc + 1; q < pc; ++q)
    if (writes(proto.at(q), x) || (q > callPc && writes(proto.at(q), result))) return {};
  // `if type(x) == "s"` (MOV, CALL, test in a row) is one expression, which
  // no jump enters in the middle; a test of a local holding type(x) further
  // on is checked (the scan is the costly part).
  bool oneExpression = callPc == movPc + 1 && pc == callPc + 1;
  if (!oneExpression && enteredBetween(proto, movPc, pc)) return {};
  TypeTest t;
  t.slot = x;
  t.type = *name;
  t.matchesOnJump = test.op == Op::ISEQS;
  t.callPc = callPc;
  return t;
}

// A type test of a local (type_tests.h) whose call calls the library
// function `type`, as the pass has seen it so far.
TypeTest ValueMap::typeTestOf(std::size_t index, int pc, const Snapshots& before) const {
  const bytecode::Prototype& p = chunk_.prototypes[index];
  TypeTest t = typeTestAt(chunk_, p, pc);
  if (t.slot < 0) return t;
  RegisterView regs = before.find(t.callPc);
  const bytecode::Instruction& call = p.at(t.callPc);
  bool isType = regs && call.a < regs->size() && (*regs)[call.a].is(Value::Kind::LibFunction) && (*regs)[call.a].name == "type";
  return isType ? t : TypeTest{};
}

// On the edge where a type test holds, a local the pass knows nothing of
// holds a value of the tested type: a string, a number, a boolean or nil.
// Tables and functions stay unknown: a Table or LuaFunction names the
// constructor or prototype it comes from, which a test does not show.
void ValueMap::narrowType(Registers& regs, const TypeTest& test) {
  if (test.slot < 0 || static_cast<std::size_t>(test.slot) >= regs.size()) return;
  Value& v = regs[static_cast<std::size_t>(test.slot)];
  if (v.kind != Value::Kind::Unknown || v.reassignable || v.isMissingMember()) return;
  if (test.type == "string") v = Value::string({});
  else if (test.type == "number") v = Value::of(Value::Kind::Number);
  else if (test.type == "boolean") v = Value::of(Value::Kind::Boolean);
  else if (test.type == "nil") v = Value::of(Value::Kind::Nil);
}

}  // namespace ljcheck::flow
