// Suppression quickfixes. The line form goes at the end of the prediction's
// `line` (the VM line, which is the line the analyzer checks: a closure's
// FNEW sits on its `end`); the file form goes first, after a shebang line.
#include "code_actions.h"

#include <set>
#include <string_view>

#include "source/lua_tokens.h"

namespace ljcheck::lsp {
namespace {

using Json = nlohmann::json;

Json insertAt(Position at, const std::string& text) {
  return Json{{"range", {{"start", toJson(at)}, {"end", toJson(at)}}}, {"newText", text}};
}

Json quickfix(const std::string& title, const Document& document, Json edit, const Json& diagnostic) {
  return Json{{"title", title},
              {"kind", "quickfix"},
              {"diagnostics", Json::array({diagnostic})},
              {"edit", {{"changes", {{document.uri, Json::array({std::move(edit)})}}}}}};
}

// The lines (1-based) that end inside a long string (`[[...]]` over several
// lines): a comment appended there would become part of the string.
std::set<int> linesEndingInStrings(std::string_view text) {
  std::set<int> inside;
  if (text.find("[[") == std::string_view::npos && text.find("[=") == std::string_view::npos) return inside;
  for (const LuaToken& t : tokenizeLua(text))
    if (t.kind == LuaToken::Kind::String)
      for (int line = t.start.line; line < t.end.line; ++line) inside.insert(line);
  return inside;
}

// An allow ID nothing is called, with a known one near it: replaced in place.
void addReplacements(const Document& document, const LineIndex& lines, int firstLine, int lastLine,
                     const DiagnosticStyle& style, Json& actions) {
  for (const auto& d : document.result.directives) {
    if (d.kind != DirectiveProblem::Kind::UnknownReason || d.nearest.empty() || d.id.empty() || d.idStart.line < 1)
      continue;
    const int line0 = d.line - 1;
    if (line0 < firstLine || line0 > lastLine) continue;
    const Position from = lines.position(d.idStart.line, d.idStart.column, style.encoding);
    const Position to =
        lines.position(d.idStart.line, d.idStart.column + static_cast<int>(d.id.size()), style.encoding);
    Json diagnostic{{"range",
                     {{"start", toJson(lines.position(d.line, d.column, style.encoding))},
                      {"end", toJson(lines.endOfLine(line0, style.encoding))}}},
                    {"code", directiveId(d.kind)},
                    {"message", d.message},
                    {"source", "ljcheck"}};
    Json action = quickfix("Replace " + d.id + " with " + d.nearest + " (ljcheck)", document,
                           Json{{"range", {{"start", toJson(from)}, {"end", toJson(to)}}}, {"newText", d.nearest}},
                           diagnostic);
    action["isPreferred"] = true;
    actions.push_back(std::move(action));
  }
}

}  // namespace

Json codeActionsFor(const Document& document, int firstLine, int lastLine, const DiagnosticStyle& style) {
  LineIndex lines(document.text);
  const std::set<int> inString = linesEndingInStrings(document.text);
  Json actions = Json::array();
  std::set<std::string> fileWide;  // one file-level action per reasonId
  const bool shebang = document.text.rfind("#!", 0) == 0;
  for (const auto& p : document.result.predictions) {
    Json diagnostic = diagnosticFor(p, document, lines, style);
    int start = diagnostic["range"]["start"]["line"].get<int>(), end = diagnostic["range"]["end"]["line"].get<int>();
    if (end < firstLine || start > lastLine) continue;
    const std::string id = p.reasonId.str();
    const int vmLine0 = p.line - 1;
    const bool blank = lines.line(vmLine0).empty();
    // Not at the end of a line inside a long string: the comment would be data.
    if (!inString.count(p.line))
      actions.push_back(quickfix("Allow " + id + " on this line (ljcheck)", document,
                                 insertAt(lines.endOfLine(vmLine0, style.encoding),
                                          std::string(blank ? "" : " ") + "-- ljcheck: allow(" + id + ")"),
                                 diagnostic));
    if (fileWide.insert(id).second)
      actions.push_back(quickfix("Allow " + id + " in this file (ljcheck)", document,
                                 insertAt({shebang ? 1 : 0, 0}, "-- ljcheck: allow-file(" + id + ")\n"), diagnostic));
  }
  addReplacements(document, lines, firstLine, lastLine, style, actions);
  return actions;
}

}  // namespace ljcheck::lsp
