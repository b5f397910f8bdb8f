// JSON string escaping (see json_text.h).
#include "output/json_text.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "ljcheck/safe_text.h"

namespace ljcheck {

namespace {

// Printable ASCII but '"' and '\\': the bytes a JSON string takes as they are.
constexpr std::array<bool, 256> kPlain = [] {
  std::array<bool, 256> table{};
  for (int c = 0x20; c < 0x80; ++c) table[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
  return table;
}();

// Whether any of the 8 bytes of `w` is not plain: below 0x20, from 0x80
// up, '"' or '\\' (the classic "has a zero byte" test on w ^ that byte).
bool anyNotPlain(std::uint64_t w) {
  constexpr std::uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
  auto hasZero = [](std::uint64_t x) { return ((x - ones) & ~x & highs) != 0; };
  const bool control = ((w - 0x20 * ones) & ~w & highs) != 0;
  return (w & highs) != 0 || control || hasZero(w ^ ('"' * ones)) || hasZero(w ^ ('\\' * ones));
}

// The first index from `i` on whose byte is not plain, or `n`: eight bytes
// at a time, as reasoning sentences and messages are long runs of ASCII.
std::size_t plainUpTo(const unsigned char* bytes, std::size_t i, std::size_t n) {
  for (std::uint64_t w; i + 8 <= n; i += 8) {
    std::memcpy(&w, bytes + i, 8);
    if (anyNotPlain(w)) break;
  }
  while (i < n && kPlain[bytes[i]]) ++i;
  return i;
}

}  // namespace

void appendJsonString(std::string& out, std::string_view text) {
  out += '"';
  appendJsonStringAfterQuote(out, text);
}

void appendJsonStringAfterQuote(std::string& out, std::string_view text) {
  // Bytes that need no escaping are appended in runs: most text is plain
  // ASCII, and one append per run instead of one per byte is what keeps a
  // report of many thousands of rows cheap.
  std::size_t run = 0;
  auto flush = [&](std::size_t upTo) {
    if (upTo > run) out.append(text.data() + run, upTo - run);
  };
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  for (std::size_t i = 0; i < text.size();) {
    i = plainUpTo(bytes, i, text.size());
    if (i == text.size()) break;
    unsigned char c = bytes[i];
    if (c >= 0x80) {
      if (std::size_t n = utf8SequenceLength(text, i); n > 0) {
        i += n;
        continue;
      }
    }
    flush(i);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += "\\ufffd";  // not UTF-8
    }
    run = ++i;
  }
  flush(text.size());
  out += '"';
}

void writeJsonString(std::ostream& out, std::string_view text) {
  std::string literal;
  appendJsonString(literal, text);
  out << literal;
}

}  // namespace ljcheck
