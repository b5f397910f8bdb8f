// Bytecode names and the per-build opcode table: the only place that turns a
// build's raw opcode numbers into ljcheck's Op, always by name.
#include <array>

#include "ljcheck/bytecode.h"

namespace ljcheck::bytecode {
namespace {

constexpr std::array<std::string_view, static_cast<std::size_t>(Op::Unknown)> kOpNames = {
#define LJCHECK_OP_NAME(name) #name,
    LJCHECK_OPCODES(LJCHECK_OP_NAME)
#undef LJCHECK_OP_NAME
};

}  // namespace

std::string_view opName(Op op) {
  const auto index = static_cast<std::size_t>(op);
  return index < kOpNames.size() ? kOpNames[index] : std::string_view("UNKNOWN");
}

Op opFromName(std::string_view name) {
  for (std::size_t i = 0; i < kOpNames.size(); ++i) {
    if (kOpNames[i] == name) return static_cast<Op>(i);
  }
  return Op::Unknown;
}

OpcodeTable::OpcodeTable(const std::vector<std::string>& namesByNumber) {
  ops_.reserve(namesByNumber.size());
  for (const std::string& name : namesByNumber) ops_.push_back(opFromName(name));
}

OperandModes operandModes(Op op) {
  constexpr Operand None = Operand::None, Slot = Operand::Slot, SlotTop = Operand::SlotTop,
                    Literal = Operand::Literal, String = Operand::String, Number = Operand::Number,
                    Cdata = Operand::Cdata, Function = Operand::Function, Table = Operand::Table,
                    Upvalue = Operand::Upvalue, Jump = Operand::Jump;
  switch (op) {
    case Op::ISLT: case Op::ISGE: case Op::ISLE: case Op::ISGT: case Op::ISEQV: case Op::ISNEV:
      return {Slot, None, Slot};
    case Op::ISEQS: case Op::ISNES: return {Slot, None, String};
    case Op::ISEQN: case Op::ISNEN: return {Slot, None, Number};
    case Op::ISEQP: case Op::ISNEP: case Op::ISTYPE: case Op::ISNUM: return {Slot, None, Literal};
    case Op::ISTC: case Op::ISFC: case Op::MOV: case Op::NOT: case Op::UNM: case Op::LEN: case Op::BNOT:
      return {Slot, None, Slot};
    case Op::IST: case Op::ISF: return {None, None, Slot};
    case Op::ADDVN: case Op::SUBVN: case Op::MULVN: case Op::DIVVN: case Op::MODVN:
    case Op::ADDNV: case Op::SUBNV: case Op::MULNV: case Op::DIVNV: case Op::MODNV:
      return {Slot, Slot, Number};
    case Op::ADDVV: case Op::SUBVV: case Op::MULVV: case Op::DIVVV: case Op::MODVV: case Op::POW:
    case Op::BAND: case Op::BOR: case Op::BXOR: case Op::BSHL: case Op::BSHR: case Op::BSAR:
    case Op::TGETV: case Op::TGETR: case Op::TSETV: case Op::TSETR:
      return {Slot, Slot, Slot};
    case Op::CAT: return {Slot, SlotTop, SlotTop};
    case Op::KSTR: case Op::GGET: case Op::GSET: return {Slot, None, String};
    case Op::KCDATA: return {Slot, None, Cdata};
    case Op::KSHORT: case Op::KPRI: case Op::TNEW: return {Slot, None, Literal};
    case Op::KNUM: return {Slot, None, Number};
    case Op::KNIL: return {Slot, None, Slot};
    case Op::UGET: return {Slot, None, Upvalue};
    case Op::USETV: return {Upvalue, None, Slot};
    case Op::USETS: return {Upvalue, None, String};
    case Op::USETN: return {Upvalue, None, Number};
    case Op::USETP: return {Upvalue, None, Literal};
    case Op::FNEW: return {Slot, None, Function};
    case Op::TDUP: return {Slot, None, Table};
    case Op::TGETS: case Op::TSETS: return {Slot, Slot, String};
    case Op::TGETB: case Op::TSETB: return {Slot, Slot, Literal};
    case Op::TSETM: return {Slot, None, Number};
    case Op::CALLM: case Op::CALL: case Op::ITERC: case Op::ITERN: case Op::VARG: return {Slot, Literal, Literal};
    case Op::CALLMT: case Op::CALLT: case Op::RETM: return {Slot, None, Literal};
    case Op::RET: case Op::RET0: case Op::RET1: return {SlotTop, None, Literal};
    case Op::ISNEXT: case Op::FORI: case Op::JFORI: case Op::FORL: case Op::IFORL: case Op::JFORL:
    case Op::ITERL: case Op::IITERL: case Op::JITERL:
      return {Slot, None, Jump};
    case Op::UCLO: case Op::LOOP: case Op::ILOOP: case Op::JLOOP: case Op::JMP: return {SlotTop, None, Jump};
    case Op::FUNCF: case Op::IFUNCF: case Op::FUNCV: case Op::IFUNCV: case Op::FUNCC: case Op::FUNCCW:
      return {SlotTop, None, None};
    case Op::JFUNCF: case Op::JFUNCV: return {SlotTop, None, Literal};
    case Op::Unknown: break;
  }
  return {};
}

}  // namespace ljcheck::bytecode
