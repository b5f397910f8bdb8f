// Offsets into a read dump's bytes (dump_layout.h), after lj_bcwrite.c:
// bcwrite_proto writes flags, numparams, framesize and sizeuv (a byte
// each), then sizekgc, sizekn and sizebc-1 (ULEB128), then unless stripped
// sizedbg and, when it is not 0, firstline and numline (ULEB128), then the
// instructions (4 bytes each) and the upvalue refs.
#include "ljcheck/dump_layout.h"

#include <stdexcept>

namespace ljcheck::bytecode {
namespace {

constexpr std::size_t kFixedHeader = 4;
constexpr std::size_t kInstructionBytes = 4;
constexpr std::uint16_t kUpvalueImmutable = 0x4000;  // PROTO_UV_IMMUTABLE

std::uint32_t uleb128(std::string_view bytes, std::size_t& at) {
  std::uint32_t value = 0;
  for (int shift = 0; at < bytes.size() && shift < 35; shift += 7) {
    const auto byte = static_cast<std::uint8_t>(bytes[at++]);
    value |= static_cast<std::uint32_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return value;
  }
  throw std::out_of_range("prototype header ends inside a ULEB128 number");
}

}  // namespace

std::string_view prototypeRun(const DumpRereader::LastRead& read, std::size_t first, std::size_t last) {
  const std::size_t begin = first == 0 ? read.headerLength : read.spans[first - 1].first + read.spans[first - 1].second;
  const std::size_t end = read.spans[last].first + read.spans[last].second;
  return std::string_view(read.dump).substr(begin, end - begin);
}

std::size_t upvalueRefsAt(std::string_view prototype, bool stripped) {
  std::size_t at = kFixedHeader;
  uleb128(prototype, at);  // sizekgc
  uleb128(prototype, at);  // sizekn
  const std::size_t instructions = uleb128(prototype, at);
  if (!stripped && uleb128(prototype, at) != 0) {
    uleb128(prototype, at);  // firstline
    uleb128(prototype, at);  // numline
  }
  return at + instructions * kInstructionBytes;
}

void setUpvalueImmutable(std::string& bytes, std::size_t ref, bool immutable, bool bigEndian) {
  // lj_bcwrite.c writes the refs in the writer's byte order, which the dump's big-endian flag names.
  char& high = bytes.at(ref + (bigEndian ? 0 : 1));
  const auto bit = static_cast<unsigned char>(kUpvalueImmutable >> 8);
  high = static_cast<char>(immutable ? (static_cast<unsigned char>(high) | bit) : (static_cast<unsigned char>(high) & ~bit));
}

}  // namespace ljcheck::bytecode
