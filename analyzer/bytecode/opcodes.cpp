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

}  // namespace ljcheck::bytecode
