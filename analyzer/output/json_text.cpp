// JSON string escaping (see json_text.h).
#include "output/json_text.h"

#include <cstdio>

namespace ljcheck {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0.
std::size_t utf8Length(std::string_view s, std::size_t i) {
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

}  // namespace

void writeJsonString(std::ostream& out, std::string_view text) {
  out.put('"');
  // Bytes that need no escaping go out in runs: most text is plain ASCII,
  // and one write per run instead of one per byte is what keeps a report of
  // many thousands of rows cheap.
  std::size_t run = 0;
  auto flush = [&](std::size_t upTo) {
    if (upTo > run) out.write(text.data() + run, static_cast<std::streamsize>(upTo - run));
  };
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (std::size_t n = utf8Length(text, i); n > 0) {
        i += n;
        continue;
      }
    }
    flush(i);
    if (c == '"' || c == '\\') {
      out.put('\\').put(static_cast<char>(c));
    } else if (c == '\n') {
      out << "\\n";
    } else if (c == '\t') {
      out << "\\t";
    } else if (c == '\r') {
      out << "\\r";
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out << buf;
    } else {
      out << "\\ufffd";  // not UTF-8
    }
    run = ++i;
  }
  flush(text.size());
  out.put('"');
}

}  // namespace ljcheck
