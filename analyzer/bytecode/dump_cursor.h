// A read position in a LuaJIT bytecode dump (lj_bcread.c's reading
// primitives, with bounds): the dump reader's and the dump layout's one
// reader of bytes, ULEB128 numbers and raw fields. Private to the bytecode
// library.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "ljcheck/bytecode.h"

namespace ljcheck::bytecode {

// A read position in the dump with an end that is either the end of the input
// or the declared end of the prototype (or debug block) being read.
class Cursor {
 public:
  // Where the part being read ends, and its name for messages: a prototype's
  // name is only spelled out when a message needs it (a dump has hundreds).
  struct Limit {
    std::size_t end;
    const char* what;               // "the input", or the name before a prototype's number
    std::size_t proto = SIZE_MAX;   // that number; SIZE_MAX: none
    std::uint32_t declared = 0;     // the prototype's or debug block's declared length
    std::string name() const {
      if (proto == SIZE_MAX) return what;
      return what + std::to_string(proto) + " (declared length " + std::to_string(declared) + ")";
    }
  };

  Cursor(std::string_view bytes, std::string_view inputName)
      : bytes_(bytes), inputName_(inputName), limit_{bytes.size(), "the input"} {}

  std::size_t offset() const { return pos_; }
  std::size_t remaining() const { return limit_.end - pos_; }
  bool bigEndian = false;

  [[noreturn]] void failAt(const std::string& what, std::size_t offset) const {
    throw DumpError(std::string(inputName_) + ": " + what + " at byte " + std::to_string(offset));
  }
  [[noreturn]] void fail(const std::string& what) const { failAt(what, pos_); }

  // Checks that `n` more bytes of `field` fit before the current limit.
  void need(std::size_t n, const char* field) const {
    if (n > remaining()) {
      fail(std::string("truncated: ") + field + " runs past the end of " + limit_.name());
    }
  }

  // Restricts reading to the next `n` bytes, the part of prototype `proto`
  // named by `what`; returns the limit to restore.
  Limit narrow(std::uint32_t n, const char* what, std::size_t proto) {
    Limit outer{pos_ + n, what, proto, n};
    std::swap(outer, limit_);
    return outer;
  }
  void restore(Limit outer) { limit_ = outer; }
  std::size_t limitEnd() const { return limit_.end; }

  std::uint8_t byte(const char* field) {
    need(1, field);
    return static_cast<std::uint8_t>(bytes_[pos_++]);
  }

  std::uint32_t uleb128(const char* field) {
    const std::size_t start = pos_;
    std::uint64_t value = 0;
    for (int shift = 0;; shift += 7) {
      if (shift > 28) failAt(std::string("malformed ULEB128 in ") + field + ": longer than 5 bytes", start);
      const std::uint8_t b = byte(field);
      value |= std::uint64_t{b & 0x7fu} << shift;
      if (b < 0x80) break;
    }
    if (value > 0xffffffffu) {
      failAt(std::string("malformed ULEB128 in ") + field + ": value exceeds 32 bits", start);
    }
    return static_cast<std::uint32_t>(value);
  }

  // A 33-bit ULEB128 whose lowest bit is a flag (lj_bcread.c: bcread_uleb128_33);
  // returns the 32 value bits like LuaJIT does.
  std::uint32_t uleb128With33rdBit(const char* field, bool& flag) {
    const std::size_t start = pos_;
    std::uint8_t b = byte(field);
    flag = (b & 1) != 0;
    std::uint64_t value = (b >> 1) & 0x3fu;
    for (int shift = 6; b >= 0x80; shift += 7) {
      if (shift > 27) failAt(std::string("malformed ULEB128 in ") + field + ": longer than 5 bytes", start);
      b = byte(field);
      value |= std::uint64_t{b & 0x7fu} << shift;
    }
    return static_cast<std::uint32_t>(value);
  }

  // Raw multi-byte fields are in the writer's byte order.
  std::uint16_t raw16(const char* field) {
    const std::string_view b = take(2, field);
    const auto b0 = static_cast<std::uint8_t>(b[0]), b1 = static_cast<std::uint8_t>(b[1]);
    return static_cast<std::uint16_t>(bigEndian ? (b0 << 8) | b1 : (b1 << 8) | b0);
  }
  std::uint32_t raw32(const char* field) {
    const std::string_view b = take(4, field);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const auto byteAt = static_cast<std::uint8_t>(b[static_cast<std::size_t>(bigEndian ? i : 3 - i)]);
      v = (v << 8) | byteAt;
    }
    return v;
  }

  std::string_view take(std::size_t n, const char* field) {
    need(n, field);
    const std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }

  std::string zeroTerminated(const char* field) { return std::string(zeroTerminatedView(field)); }
  std::string_view zeroTerminatedView(const char* field) {
    const std::size_t end = bytes_.find('\0', pos_);
    if (end == std::string_view::npos || end >= limit_.end) {
      fail(std::string("truncated: unterminated ") + field + " runs past the end of " + limit_.name());
    }
    const std::string_view out = bytes_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return out;
  }

  void skip(std::size_t n) { pos_ += std::min(n, remaining()); }

 private:
  std::string_view bytes_;
  std::string_view inputName_;
  std::size_t pos_ = 0;
  Limit limit_;
};

}  // namespace ljcheck::bytecode
