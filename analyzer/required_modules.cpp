// `require` with a literal name, in a file's text (see required_modules.h).
#include "required_modules.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace ljcheck {
namespace {

bool nameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::size_t skipBlanks(std::string_view text, std::size_t at) {
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  return at;
}

// The literal at `at`: a quoted string without escapes, or a long string
// of level 0; empty when there is none.
std::string_view literalAt(std::string_view text, std::size_t at) {
  if (at >= text.size()) return {};
  if (text[at] == '"' || text[at] == '\'') {
    std::size_t end = text.find_first_of(std::string_view(text[at] == '"' ? "\"\\\n" : "'\\\n"), at + 1);
    if (end == std::string_view::npos || text[end] != text[at]) return {};
    return text.substr(at + 1, end - at - 1);
  }
  if (text.compare(at, 2, "[[") == 0) {
    std::size_t end = text.find("]]", at + 2);
    if (end == std::string_view::npos) return {};
    return text.substr(at + 2, end - at - 2);
  }
  return {};
}

}  // namespace

std::vector<std::string> requiredModules(std::string_view text) {
  std::vector<std::string> out;
  constexpr std::string_view kWord = "require";
  for (std::size_t at = text.find(kWord); at != std::string_view::npos; at = text.find(kWord, at + kWord.size())) {
    if ((at > 0 && nameChar(text[at - 1])) || (at + kWord.size() < text.size() && nameChar(text[at + kWord.size()])))
      continue;
    std::size_t arg = skipBlanks(text, at + kWord.size());
    if (arg < text.size() && text[arg] == '(') arg = skipBlanks(text, arg + 1);
    std::string_view name = literalAt(text, arg);
    if (name.empty() || name.size() > 200) continue;
    if (std::find(out.begin(), out.end(), name) == out.end()) out.emplace_back(name);
  }
  return out;
}

}  // namespace ljcheck
