// The fallback where the syntax index shows no construct: a scan of the
// VM's line that skips string literals and comments (see source_map.h).
#include <cctype>
#include <initializer_list>
#include <utility>

#include "ljcheck/source_map.h"
#include "source/line_code.h"

namespace ljcheck {
namespace {

bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

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

SourceRange onLine(int line, std::size_t at, std::size_t length) {
  if (at == std::string_view::npos) return {};
  return {{line, static_cast<int>(at) + 1}, {line, static_cast<int>(at + length) + 1}};
}

}  // namespace

SourceRange SourceMap::scanLine(const ConstructSite& site) const {
  std::string_view text = lineText(site.line);
  if (text.empty()) return {};
  std::vector<bool> code = codeMask(text);
  auto range = [&](std::size_t at, std::size_t length) { return onLine(site.line, at, length); };
  if (site.construct == "closure") return range(findWord(text, code, "function"), 8);
  if (site.construct == "vararg") {
    for (std::size_t at = text.find("..."); at != std::string_view::npos; at = text.find("...", at + 1))
      if (code[at]) return range(at, 3);
    return {};
  }
  // The first of these keywords on the line.
  auto keyword = [&](std::initializer_list<std::string_view> words) {
    for (std::string_view word : words)
      if (std::size_t at = findWord(text, code, word); at != std::string_view::npos) return range(at, word.size());
    return SourceRange{};
  };
  if (site.construct == "loop") return keyword({"for", "while", "repeat"});
  if (site.construct == "return") return keyword({"return", "end"});
  if (site.construct == "upvalue close") return keyword({"break", "goto", "return", "end", "until"});
  std::string_view callee = site.callee;
  if (site.construct == "metamethod") {
    // The operator of a metamethod call: the callee ends in its name ("lpeg __mul").
    static constexpr std::pair<std::string_view, char> kOperators[] = {
        {"__add", '+'}, {"__sub", '-'}, {"__mul", '*'}, {"__div", '/'},
        {"__mod", '%'}, {"__pow", '^'}, {"__unm", '-'}, {"__len", '#'}};
    for (const auto& [name, symbol] : kOperators) {
      if (callee.size() < name.size() || callee.substr(callee.size() - name.size()) != name) continue;
      for (std::size_t at = text.find(symbol); at != std::string_view::npos; at = text.find(symbol, at + 1))
        if (code[at]) return range(at, 1);
    }
    return {};
  }
  if (site.construct == "call" && !callee.empty()) {
    // string.gsub may be written gsub (an alias) or s:gsub (a method call).
    std::string_view last = callee.substr(callee.rfind('.') == std::string_view::npos ? 0 : callee.rfind('.') + 1);
    std::size_t whole = findWord(text, code, callee);
    if (whole != std::string_view::npos) return range(whole, callee.size());
    return range(findWord(text, code, last), last.size());
  }
  return {};
}

}  // namespace ljcheck
