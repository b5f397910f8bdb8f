// What one instruction does to the register file and to control flow, as
// the forward dataflow of values.cpp needs it: which slots it writes, where
// it can go next, and whether its register state is kept for the rules.
#pragma once

#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

// The range of slots an instruction writes: [first, last]; last < first for none.
struct Writes {
  int first = 0, last = -1;
};
Writes writesOf(const bytecode::Instruction& ins, int framesize);

// Successors of an instruction other than pc + 1, and whether it falls through.
struct Flow {
  bool fallsThrough = true;
  int jump = 0;   // target pc, 0 for none
  int skip = 0;   // conditional tests skip the following JMP
};
Flow flowOf(const bytecode::Instruction& ins, int pc);

// Arithmetic with a number constant operand (ADDVN ... MODNV).
bool isArithmeticWithConstant(bytecode::Op op);
// The register state before this instruction is kept (calls, returns, FNEW).
bool keepsSnapshot(bytecode::Op op);
// Fixed arguments of a CALL-like instruction (CALLM/CALLMT: before the multres).
int fixedArgs(const bytecode::Instruction& call);

}  // namespace ljcheck::flow
