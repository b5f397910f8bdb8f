// Rewrites toml11's syntax errors (toml_errors.h). Its text reads:
//   [error] toml::parse_array: missing array separator `,` after a value
//    --> .ljcheck.toml
//      |
//    1 | x = [1, 2
//      |     ^--- array starts here
//    ...
//    2 |
//      | ^--- should be `,`
#include "toml_errors.h"

#include <cctype>
#include <vector>

namespace ljcheck::cli {
namespace {

struct Caret {
  int line = 0, column = 0;
  std::string note;  // the words after "^---"
};

std::vector<std::string_view> linesOf(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// " 12 | text" -> 12 and the offset of "text"; 0 for other lines.
int sourceLineNumber(std::string_view line, std::size_t& textAt) {
  std::size_t at = 0;
  while (at < line.size() && line[at] == ' ') ++at;
  int number = 0;
  std::size_t digits = at;
  while (at < line.size() && std::isdigit(static_cast<unsigned char>(line[at])) && number < 10'000'000)
    number = number * 10 + (line[at++] - '0');
  if (at == digits || line.substr(at, 2) != " |") return 0;
  textAt = at + 3;  // past " | "
  return number;
}

std::vector<Caret> caretsOf(const std::vector<std::string_view>& lines) {
  std::vector<Caret> carets;
  int source = 0;
  std::size_t textAt = 0;
  for (std::string_view line : lines) {
    std::size_t at = 0;
    if (int number = sourceLineNumber(line, at)) {
      source = number;
      textAt = at;
      continue;
    }
    std::size_t caret = line.find("^---");
    if (source == 0 || caret == std::string_view::npos || caret < textAt) continue;
    std::string_view note = line.substr(caret + 4);
    while (!note.empty() && note.front() == ' ') note.remove_prefix(1);
    carets.push_back({source, static_cast<int>(caret - textAt) + 1, std::string(note)});
  }
  return carets;
}

// "[error] toml::parse_key: an invalid key appeared." -> "an invalid key appeared"
std::string headlineOf(std::string_view first) {
  if (first.rfind("[error] ", 0) == 0) first.remove_prefix(8);
  if (first.rfind("toml::", 0) == 0) {
    std::size_t colon = first.find(": ");
    if (colon != std::string_view::npos) first.remove_prefix(colon + 2);
  }
  if (first.rfind("bad format: ", 0) == 0) first.remove_prefix(12);
  while (!first.empty() && (first.back() == '.' || first.back() == ' ')) first.remove_suffix(1);
  return std::string(first);
}

// toml11's headlines that read better said another way.
std::string reworded(std::string headline) {
  if (headline == "unknown value appeared") return "not a TOML value (is a string missing its quotes?)";
  if (headline == "an invalid key appeared") return "not a valid key";
  if (headline == "the next token is not a valid string")
    return "not a valid string (a closing quote missing, or an unknown escape)";
  return headline;
}

// toml11's notes that add nothing to the headline.
bool saysNothing(std::string_view note) { return note.empty() || note == "here" || note == "is not a valid key"; }

}  // namespace

std::string tomlSyntaxError(std::string_view what, const std::string& name, int fallbackLine, int fallbackColumn) {
  std::vector<std::string_view> lines = linesOf(what);
  if (lines.empty()) return name + ":" + std::to_string(fallbackLine) + ":" + std::to_string(fallbackColumn) + ": not valid TOML";
  std::string message = reworded(headlineOf(lines.front()));
  std::vector<Caret> carets = caretsOf(lines);
  int line = fallbackLine, column = fallbackColumn;
  if (!carets.empty()) {
    const Caret& last = carets.back();
    line = last.line;
    column = last.column;
    if (!saysNothing(last.note)) message += ": " + last.note;
    for (std::size_t i = 0; i + 1 < carets.size(); ++i)
      if (!saysNothing(carets[i].note))
        message += " (" + carets[i].note + ", " + std::to_string(carets[i].line) + ":" +
                   std::to_string(carets[i].column) + ")";
  }
  return name + ":" + std::to_string(line) + ":" + std::to_string(column) + ": not valid TOML: " + message;
}

}  // namespace ljcheck::cli
