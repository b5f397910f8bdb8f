// What one instruction does to the register file and to control flow, as
// the forward dataflow of values.cpp needs it: which slots it writes, where
// it can go next, and whether its register state is kept for the rules; and
// which instructions are calls, and the slots of their callee and arguments.
#pragma once

#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

// The range of slots an instruction writes: [first, last]; last < first for none.
struct Writes {
  int first = 0, last = -1;
};
// A variable count of results (B = 0) writes up to the top of the frame.
Writes writesOf(const bytecode::Instruction& ins, int framesize);
// Every slot an 8-bit register operand can name: a frame no function outgrows.
constexpr int kAddressableSlots = 256;
// Without the frame at hand: a variable count of results writes up to the
// last addressable slot.
inline Writes writesOf(const bytecode::Instruction& ins) { return writesOf(ins, kAddressableSlots); }

// Whether the instruction writes `slot`.
bool writesSlot(const bytecode::Instruction& ins, int framesize, int slot);
// The pc of the nearest instruction before pc that writes `slot`, in code
// order (0: none). For the argument slots of a call and the operands of a
// store, that is the code just above it.
int lastWriteBefore(const bytecode::Prototype& proto, int pc, int slot);
// The parameter whose value the nearest earlier write copied into `slot`
// (MOV slot, param), or -1.
int copiedParameter(const bytecode::Prototype& proto, int pc, int slot);
// Whether any instruction of the prototype writes `slot` (a parameter
// that is never assigned keeps the caller's value throughout).
bool assignsSlot(const bytecode::Prototype& proto, int slot);
// An unassigned parameter held in `slot` at pc: the slot itself, or a copy
// of it made just before (-1 for neither).
int parameterIn(const bytecode::Prototype& proto, int pc, int slot);

// Successors of an instruction other than pc + 1, and whether it falls through.
struct Flow {
  bool fallsThrough = true;
  int jump = 0;   // target pc, 0 for none
  int skip = 0;   // conditional tests skip the following JMP
};
// Inline: the value pass, the loop maps and the route finders ask it of
// every instruction, several times over.
inline Flow flowOf(const bytecode::Instruction& ins, int pc) {
  using bytecode::Op;
  switch (ins.op) {
    case Op::ISLT: case Op::ISGE: case Op::ISLE: case Op::ISGT: case Op::ISEQV: case Op::ISNEV:
    case Op::ISEQS: case Op::ISNES: case Op::ISEQN: case Op::ISNEN: case Op::ISEQP: case Op::ISNEP:
    case Op::ISTC: case Op::ISFC: case Op::IST: case Op::ISF:
      return {true, 0, pc + 2};
    case Op::JMP: case Op::UCLO: case Op::ISNEXT:
      return {false, ins.jumpTarget(pc), 0};
    case Op::FORI: case Op::JFORI: case Op::FORL: case Op::IFORL: case Op::JFORL:
    case Op::ITERL: case Op::IITERL: case Op::JITERL:
      return {true, ins.jumpTarget(pc), 0};
    case Op::RET: case Op::RET0: case Op::RET1: case Op::RETM: case Op::CALLT: case Op::CALLMT:
      return {false, 0, 0};
    default:
      return {};
  }
}

// Arithmetic with a number constant operand (ADDVN ... MODNV).
bool isArithmeticWithConstant(bytecode::Op op);
// Arithmetic of two registers (ADDVV ... MODVV, POW).
bool isBinaryArithmetic(bytecode::Op op);
// The register state before this instruction is kept (calls, returns, FNEW).
inline bool keepsSnapshot(bytecode::Op op) {
  using bytecode::Op;
  switch (op) {
    case Op::CALL: case Op::CALLM: case Op::CALLT: case Op::CALLMT: case Op::ITERC: case Op::ITERN:
    case Op::RET0: case Op::RET1: case Op::RET: case Op::RETM: case Op::FNEW: case Op::FORI:
      return true;
    default:
      return false;
  }
}

// Facts about calls, inline: rules ask them of every instruction.

// CALL, CALLM, CALLT and CALLMT.
inline bool isCall(bytecode::Op op) {
  using bytecode::Op;
  return op == Op::CALL || op == Op::CALLM || op == Op::CALLT || op == Op::CALLMT;
}
// A call, or the ITERC of a generic for, which calls its iterator.
inline bool isCallOrIterator(bytecode::Op op) { return isCall(op) || op == bytecode::Op::ITERC; }
// RET0, RET1, RET and RETM.
inline bool isReturn(bytecode::Op op) {
  using bytecode::Op;
  return op == Op::RET0 || op == Op::RET1 || op == Op::RET || op == Op::RETM;
}
// CALLT and CALLMT: the callee returns straight to this function's caller.
inline bool isTailCall(bytecode::Op op) { return op == bytecode::Op::CALLT || op == bytecode::Op::CALLMT; }
// A return or a tail call: the function's frame ends here.
inline bool leavesFunction(bytecode::Op op) { return isReturn(op) || isTailCall(op); }
// The slot holding the callee of a call or ITERC/ITERN.
inline int calleeSlot(const bytecode::Instruction& ins) {
  using bytecode::Op;
  return ins.op == Op::ITERC || ins.op == Op::ITERN ? ins.a - 3 : ins.a;
}
// Fixed arguments of a call: C - 1 (CALLM/CALLMT: the C before the multres).
inline int fixedArgs(const bytecode::Instruction& call) {
  using bytecode::Op;
  return call.op == Op::CALLM || call.op == Op::CALLMT ? call.c : call.c - 1;
}
// The slot of argument k (0-based) of a call: above the callee and, in
// two-slot frames (FR2), above its frame link too.
inline int argumentSlot(const bytecode::Chunk& chunk, const bytecode::Instruction& call, int k) {
  return call.a + (chunk.fr2 ? 2 : 1) + k;
}

}  // namespace ljcheck::flow
