// Column ranges of predicted constructs, from a scan of their line that
// skips string literals and comments (see source_map.h).
#include <cctype>

#include "ljcheck/source_map.h"

namespace ljcheck {
namespace {

bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Offsets of code on the line that are outside strings and comments.
std::vector<bool> codeMask(std::string_view line) {
  std::vector<bool> code(line.size(), true);
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      code[i] = false;
      if (c == '\\') {
        if (i + 1 < line.size()) code[++i] = false;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
      code[i] = false;
    } else if (c == '-' && i + 1 < line.size() && line[i + 1] == '-') {
      for (; i < line.size(); ++i) code[i] = false;
    }
  }
  return code;
}

// First occurrence of a whole word in code on the line.
std::size_t findWord(std::string_view line, const std::vector<bool>& code, std::string_view word,
                     std::size_t from = 0) {
  for (std::size_t at = line.find(word, from); at != std::string_view::npos; at = line.find(word, at + 1)) {
    bool before = at == 0 || !isNameChar(line[at - 1]);
    bool after = at + word.size() >= line.size() || !isNameChar(line[at + word.size()]);
    if (before && after && code[at]) return at;
  }
  return std::string_view::npos;
}

ColumnRange range(std::size_t at, std::size_t length) {
  if (at == std::string_view::npos) return {};
  return {static_cast<int>(at) + 1, static_cast<int>(at + length) + 1};
}

}  // namespace

std::string_view SourceMap::lineText(int line) const {
  if (line < 1 || static_cast<std::size_t>(line) > lineStarts_.size()) return {};
  std::size_t start = lineStarts_[static_cast<std::size_t>(line - 1)];
  std::size_t end = source_.find('\n', start);
  if (end == std::string_view::npos) end = source_.size();
  return source_.substr(start, end - start);
}

ColumnRange SourceMap::locate(int line, std::string_view construct, std::string_view callee) const {
  std::string_view text = lineText(line);
  if (text.empty()) return {};
  std::vector<bool> code = codeMask(text);
  if (construct == "closure") return range(findWord(text, code, "function"), 8);
  if (construct == "vararg") {
    for (std::size_t at = text.find("..."); at != std::string_view::npos; at = text.find("...", at + 1))
      if (code[at]) return range(at, 3);
    return {};
  }
  if (construct == "call" && !callee.empty()) {
    // string.gsub may be written gsub (an alias) or s:gsub (a method call).
    std::string_view last = callee.substr(callee.rfind('.') == std::string_view::npos ? 0 : callee.rfind('.') + 1);
    std::size_t whole = findWord(text, code, callee);
    if (whole != std::string_view::npos) return range(whole, callee.size());
    return range(findWord(text, code, last), last.size());
  }
  return {};
}

}  // namespace ljcheck
