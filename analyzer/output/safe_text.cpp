// Escaping and column conversion for the writers (see safe_text.h).
#include "ljcheck/safe_text.h"

#include <cstdio>

namespace ljcheck {

std::size_t utf8SequenceLength(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  if (n == 2 && c < 0xc2) return 0;                          // overlong
  if (n == 3 && c == 0xe0 && byte(i + 1) < 0xa0) return 0;   // overlong
  if (n == 3 && c == 0xed && byte(i + 1) >= 0xa0) return 0;  // surrogates
  if (n == 4 && (c > 0xf4 || (c == 0xf0 && byte(i + 1) < 0x90) || (c == 0xf4 && byte(i + 1) >= 0x90))) return 0;
  return n;
}

bool isUtf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

namespace {

void appendHex(std::string& out, const char* format, unsigned char byte) {
  char buf[8];
  std::snprintf(buf, sizeof buf, format, byte);
  out += buf;
}

// Whether the valid sequence of `n` bytes at s[i] is a control a terminal
// acts on: C1 (U+0080-U+009F) or a bidirectional override or isolate.
bool isUnicodeControl(std::string_view s, std::size_t i, std::size_t n) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  if (n == 2) return byte(0) == 0xc2 && byte(1) < 0xa0;
  if (n == 3 && byte(0) == 0xe2 && byte(1) == 0x80) return byte(2) >= 0xaa && byte(2) <= 0xae;
  if (n == 3 && byte(0) == 0xe2 && byte(1) == 0x81) return byte(2) >= 0xa6 && byte(2) <= 0xa9;
  return false;
}

}  // namespace

std::string escapeControls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    std::size_t n = utf8SequenceLength(text, i);
    bool unsafe = n == 0 || c < 0x20 || c == 0x7f || isUnicodeControl(text, i, n);
    if (!unsafe) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    for (std::size_t k = 0; k < (n == 0 ? 1 : n); ++k)
      appendHex(out, "\\x%02x", static_cast<unsigned char>(text[i + k]));
    i += n == 0 ? 1 : n;
  }
  return out;
}

std::string percentEncodePath(std::string_view path) {
  static constexpr std::string_view kKept = "-._~!$&'()*+,;=:@/";
  std::string out;
  out.reserve(path.size());
  for (char ch : path) {
    unsigned char c = static_cast<unsigned char>(ch);
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum || (c < 0x80 && kKept.find(ch) != std::string_view::npos)) out += ch;
    else appendHex(out, "%%%02X", c);
  }
  return out;
}

int utf16Column(std::string_view line, int byteColumn) {
  if (byteColumn <= 0) return byteColumn;
  std::size_t end = static_cast<std::size_t>(byteColumn - 1);
  int units = 0;
  std::size_t i = 0;
  while (i < end && i < line.size()) {
    std::size_t n = utf8SequenceLength(line, i);
    if (n == 0 || i + n > end) {  // not UTF-8, or a column inside a sequence: count bytes
      ++units;
      ++i;
      continue;
    }
    units += n == 4 ? 2 : 1;
    i += n;
  }
  if (end > i) units += static_cast<int>(end - i);
  return units + 1;
}

}  // namespace ljcheck
