// Offsets into a read dump's bytes (dump_layout.h), after lj_bcwrite.c:
// bcwrite_proto writes flags, numparams, framesize and sizeuv (a byte
// each), then sizekgc, sizekn and sizebc-1 (ULEB128), then unless stripped
// sizedbg and, when it is not 0, firstline and numline (ULEB128), then the
// instructions (4 bytes each) and the upvalue refs.
#include "ljcheck/dump_layout.h"

#include "dump_cursor.h"

namespace ljcheck::bytecode {
namespace {

constexpr std::size_t kFixedHeader = 4;
constexpr std::size_t kInstructionBytes = 4;
constexpr std::uint16_t kUpvalueImmutable = 0x4000;  // PROTO_UV_IMMUTABLE

}  // namespace

std::string_view prototypeRun(const DumpRereader::LastRead& read, std::size_t first, std::size_t last) {
  const std::size_t begin = first == 0 ? read.headerLength : read.spans[first - 1].first + read.spans[first - 1].second;
  const std::size_t end = read.spans[last].first + read.spans[last].second;
  return std::string_view(read.dump).substr(begin, end - begin);
}

std::size_t upvalueRefsAt(std::string_view prototype, bool stripped) {
  Cursor at(prototype, "a prototype to splice");
  at.take(kFixedHeader, "flags, numparams, framesize and sizeuv");
  at.uleb128("numkgc");
  at.uleb128("numkn");
  const std::size_t instructions = at.uleb128("numbc");
  if (!stripped && at.uleb128("debug info length") != 0) {
    at.uleb128("firstline");
    at.uleb128("numline");
  }
  return at.offset() + instructions * kInstructionBytes;
}

void setUpvalueImmutable(std::string& bytes, std::size_t ref, bool immutable, bool bigEndian) {
  // lj_bcwrite.c writes the refs in the writer's byte order, which the dump's big-endian flag names.
  char& high = bytes.at(ref + (bigEndian ? 0 : 1));
  const auto bit = static_cast<unsigned char>(kUpvalueImmutable >> 8);
  high = static_cast<char>(immutable ? (static_cast<unsigned char>(high) | bit) : (static_cast<unsigned char>(high) & ~bit));
}

}  // namespace ljcheck::bytecode
