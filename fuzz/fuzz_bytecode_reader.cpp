// libFuzzer harness for the bytecode dump reader (analyzer/bytecode/reader.cpp):
// any byte string goes to readDump with the embedded build's opcode table. A
// DumpError is the documented answer to a bad dump; anything else escaping,
// and every crash, leak or undefined behaviour, is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ljcheck/bytecode.h"
#include "ljcheck/profile.h"

namespace {

const ljcheck::bytecode::OpcodeTable* opcodes = nullptr;
ljcheck::bytecode::ReadOptions options;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The profile and its opcode table are built once, not per input.
  const ljcheck::RecorderProfile& profile = ljcheck::defaultProfile();
  static const ljcheck::bytecode::OpcodeTable table(profile.bytecodeNames());
  opcodes = &table;
  options.expectFr2 = profile.gc64;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    ljcheck::bytecode::Chunk chunk = ljcheck::bytecode::readDump(bytes, *opcodes, "fuzz-input", options);
    // Touch what a rule would: every prototype's instructions and their lines.
    std::size_t lines = 0;
    for (const auto& prototype : chunk.prototypes)
      for (int pc = 1; pc <= prototype.size(); ++pc) lines += static_cast<std::size_t>(prototype.at(pc).line);
    (void)lines;
  } catch (const ljcheck::bytecode::DumpError&) {
  }
  return 0;
}
