// Register effects and successors of single instructions (instruction_effects.h).
#include "flow/instruction_effects.h"

namespace ljcheck::flow {

using bytecode::Instruction;
using bytecode::Op;

Writes writesOf(const Instruction& ins, int framesize) {
  int a = ins.a;
  switch (ins.op) {
    case Op::MOV: case Op::NOT: case Op::UNM: case Op::LEN:
    case Op::ADDVN: case Op::SUBVN: case Op::MULVN: case Op::DIVVN: case Op::MODVN:
    case Op::ADDNV: case Op::SUBNV: case Op::MULNV: case Op::DIVNV: case Op::MODNV:
    case Op::ADDVV: case Op::SUBVV: case Op::MULVV: case Op::DIVVV: case Op::MODVV:
    case Op::POW: case Op::CAT: case Op::KSTR: case Op::KCDATA: case Op::KSHORT:
    case Op::KNUM: case Op::KPRI: case Op::UGET: case Op::FNEW: case Op::TNEW: case Op::TDUP:
    case Op::GGET: case Op::TGETV: case Op::TGETS: case Op::TGETB: case Op::TGETR:
    case Op::ISTC: case Op::ISFC:
    case Op::BNOT: case Op::BAND: case Op::BOR: case Op::BXOR: case Op::BSHL: case Op::BSHR:
    case Op::BSAR:
      return {a, a};
    case Op::KNIL:
      return {a, ins.d};
    case Op::CALL: case Op::CALLM:  // B - 1 results; B = 0 is a variable count
      return {a, ins.b == 0 ? framesize - 1 : a + ins.b - 2};
    case Op::VARG: case Op::ITERC: case Op::ITERN:
      return {a, ins.b == 0 ? framesize - 1 : a + ins.b - 2};
    case Op::FORI: case Op::JFORI: case Op::FORL: case Op::IFORL: case Op::JFORL:
      return {a, a + 3};
    case Op::ITERL: case Op::IITERL: case Op::JITERL:
      return {a - 1, a - 1};
    default:
      return {};
  }
}

bool isBinaryArithmetic(Op op) {
  return op == Op::ADDVV || op == Op::SUBVV || op == Op::MULVV || op == Op::DIVVV || op == Op::MODVV ||
         op == Op::POW;
}

bool isArithmeticWithConstant(Op op) {
  switch (op) {
    case Op::ADDVN: case Op::SUBVN: case Op::MULVN: case Op::DIVVN: case Op::MODVN:
    case Op::ADDNV: case Op::SUBNV: case Op::MULNV: case Op::DIVNV: case Op::MODNV:
      return true;
    default:
      return false;
  }
}


bool writesSlot(const bytecode::Instruction& ins, int framesize, int slot) {
  Writes w = writesOf(ins, framesize);
  return w.first <= slot && slot <= w.last;
}

int lastWriteBefore(const bytecode::Prototype& proto, int pc, int slot) {
  for (int at = pc - 1; at >= 1; --at)
    if (writesSlot(proto.at(at), proto.framesize, slot)) return at;
  return 0;
}

int copiedParameter(const bytecode::Prototype& proto, int pc, int slot) {
  int at = lastWriteBefore(proto, pc, slot);
  if (at == 0) return -1;
  const auto& ins = proto.at(at);
  if (ins.op != bytecode::Op::MOV || ins.d >= proto.numparams) return -1;
  return static_cast<int>(ins.d);
}

int parameterIn(const bytecode::Prototype& proto, int pc, int slot) {
  if (slot < proto.numparams) return assignsSlot(proto, slot) ? -1 : slot;
  int param = copiedParameter(proto, pc, slot);
  return param >= 0 && !assignsSlot(proto, param) ? param : -1;
}

bool assignsSlot(const bytecode::Prototype& proto, int slot) {
  for (int pc = 1; pc <= proto.size(); ++pc)
    if (writesSlot(proto.at(pc), proto.framesize, slot)) return true;
  return false;
}

}  // namespace ljcheck::flow
