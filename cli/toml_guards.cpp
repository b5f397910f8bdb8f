// Bracket depth, binary integer length and UTF-8 validity of TOML text
// (toml_guards.h). For the first two, only the lexical rules that decide
// whether a byte is code matter:
// comments run to the end of the line, basic strings ("..." and """...""")
// have backslash escapes, literal strings ('...' and '''...''') have none.
// Malformed text is left to toml11 to report; this scan only has to be
// conservative.
#include "toml_guards.h"

#include "ljcheck/safe_text.h"

namespace ljcheck::cli {

namespace {

// Calls `code(i, at)` for each byte outside comments and strings, in order,
// until it returns true; then returns that byte's position.
template <typename Code>
std::optional<TextPosition> firstCodeByte(std::string_view toml, Code code) {
  TextPosition at;
  auto advance = [&](std::size_t& i) {
    if (toml[i] == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
    ++i;
  };
  std::size_t i = 0;
  while (i < toml.size()) {
    const char c = toml[i];
    if (c == '#') {
      while (i < toml.size() && toml[i] != '\n') advance(i);
      continue;
    }
    if (c == '"' || c == '\'') {
      const bool multiline = toml.substr(i, 3) == std::string_view(c == '"' ? "\"\"\"" : "\'\'\'");
      const std::size_t quotes = multiline ? 3 : 1;
      for (std::size_t q = 0; q < quotes; ++q) advance(i);
      while (i < toml.size()) {
        if (!multiline && toml[i] == '\n') break;  // unterminated: toml11 reports it
        if (c == '"' && toml[i] == '\\' && i + 1 < toml.size()) {
          advance(i);
          advance(i);
          continue;
        }
        if (toml[i] == c && (!multiline || toml.substr(i, 3) == std::string_view(c == '"' ? "\"\"\"" : "\'\'\'"))) {
          for (std::size_t q = 0; q < quotes; ++q) advance(i);
          break;
        }
        advance(i);
      }
      continue;
    }
    if (code(i, at)) return at;
    advance(i);
  }
  return std::nullopt;
}

bool isWordByte(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-';
}

}  // namespace

std::optional<TextPosition> tooDeeplyNested(std::string_view toml, int limit) {
  int depth = 0;
  return firstCodeByte(toml, [&](std::size_t i, const TextPosition&) {
    const char c = toml[i];
    if (c == '[' || c == '{') return ++depth > limit;
    if ((c == ']' || c == '}') && depth > 0) --depth;
    return false;
  });
}

std::optional<TextPosition> binaryIntegerTooLong(std::string_view toml, int maxDigits) {
  return firstCodeByte(toml, [&](std::size_t i, const TextPosition&) {
    if (toml.substr(i, 2) != "0b" || (i > 0 && isWordByte(toml[i - 1]))) return false;
    int digits = 0;
    for (std::size_t j = i + 2; j < toml.size() && (toml[j] == '0' || toml[j] == '1' || toml[j] == '_'); ++j)
      digits += toml[j] != '_';
    return digits > maxDigits;
  });
}

std::optional<TextPosition> firstInvalidUtf8(std::string_view toml) {
  TextPosition at;
  for (std::size_t i = 0; i < toml.size();) {
    const std::size_t n = utf8SequenceLength(toml, i);
    if (n == 0) return at;
    if (toml[i] == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
    i += n;
  }
  return std::nullopt;
}

}  // namespace ljcheck::cli
