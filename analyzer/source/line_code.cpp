// A line's quoted strings and comment (see line_code.h).
#include "source/line_code.h"

namespace ljcheck {
namespace {

// Walks the line: `code`, when given, gets false at each byte inside a
// quoted string (its quotes and escapes too) or the comment. Returns where
// the comment starts, or the line's length without one.
std::size_t scanLine(std::string_view line, std::vector<bool>* code) {
  auto notCode = [&](std::size_t i) {
    if (code) (*code)[i] = false;
  };
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      notCode(i);
      if (c == '\\') {
        if (i + 1 < line.size()) notCode(++i);
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
      notCode(i);
    } else if (c == '-' && i + 1 < line.size() && line[i + 1] == '-') {
      for (std::size_t j = i; j < line.size(); ++j) notCode(j);
      return i;
    }
  }
  return line.size();
}

}  // namespace

std::vector<bool> codeMask(std::string_view line) {
  std::vector<bool> code(line.size(), true);
  scanLine(line, &code);
  return code;
}

std::string_view withoutComment(std::string_view line) { return line.substr(0, scanLine(line, nullptr)); }

}  // namespace ljcheck
