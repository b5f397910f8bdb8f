// Bracket depth and UTF-8 validity of TOML text (toml_guards.h). For depth,
// only the lexical rules that decide whether a bracket is code matter:
// comments run to the end of the line, basic strings ("..." and """...""")
// have backslash escapes, literal strings ('...' and '''...''') have none.
// Malformed text is left to toml11 to report; this scan only has to be
// conservative about depth.
#include "toml_guards.h"

#include "ljcheck/safe_text.h"

namespace ljcheck::cli {

std::optional<TextPosition> tooDeeplyNested(std::string_view toml, int limit) {
  int depth = 0;
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
      const bool multiline = toml.substr(i, 3) == std::string_view(c == '"' ? "\"\"\"" : "'''");
      const std::size_t quotes = multiline ? 3 : 1;
      for (std::size_t q = 0; q < quotes; ++q) advance(i);
      while (i < toml.size()) {
        if (!multiline && toml[i] == '\n') break;  // unterminated: toml11 reports it
        if (c == '"' && toml[i] == '\\' && i + 1 < toml.size()) {
          advance(i);
          advance(i);
          continue;
        }
        if (toml[i] == c && (!multiline || toml.substr(i, 3) == std::string_view(c == '"' ? "\"\"\"" : "'''"))) {
          for (std::size_t q = 0; q < quotes; ++q) advance(i);
          break;
        }
        advance(i);
      }
      continue;
    }
    if (c == '[' || c == '{') {
      if (++depth > limit) return at;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    advance(i);
  }
  return std::nullopt;
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
