// Tests of a local's type against a type name: `if type(x) == "string"
// then`, `local t = type(x) ... elseif t == "number" then`, `if type(x) ~=
// "string" then return end`. On the edge where the test holds, the local is
// known to hold a value of that type (values.cpp narrows it there).
#pragma once

#include <string_view>

#include "ljcheck/bytecode.h"

namespace ljcheck::flow {

struct TypeTest {
  int slot = -1;          // the local whose type is tested; -1: no type test
  std::string_view type;  // the type name it is compared with ("string")
  // Where the type matches: on the edge through the JMP after the test
  // (ISEQS: `==` takes the JMP when equal), else on the edge that skips the
  // JMP (ISNES: `~=` skips it when equal).
  bool matchesOnJump = false;
  int callPc = 0;  // the call whose result is tested; the caller checks that it calls `type`
};

// The test at pc when it is an ISEQS or ISNES of the one result of a call
// with one argument, a local x, against a constant string. No test (slot
// -1) when the result or x may be written between the call and the test,
// or when a jump enters the code between them without passing the call.
TypeTest typeTestAt(const bytecode::Chunk& chunk, const bytecode::Prototype& proto, int pc);

}  // namespace ljcheck::flow
