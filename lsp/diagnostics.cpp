// Predictions to LSP Diagnostic objects. Severity follows the site's:
// blacklist is an error, warn a warning, info information; a masked site is
// a hint (fix the masking site first). `code` is the reasonId, linked to its
// reason page; `data` carries what a client or a code action may want back.
// Problems of suppression comments are diagnostics too, coded by their id.
#include "diagnostics.h"

#include "ljcheck/reason_docs.h"
#include "ljcheck/safe_text.h"

namespace ljcheck::lsp {
namespace {

using Json = nlohmann::json;

enum LspSeverity { kError = 1, kWarning = 2, kInformation = 3, kHint = 4 };

int severityOf(const Prediction& p) {
  if (p.masked()) return kHint;
  switch (p.severity) {
    case Severity::Blacklist: return kError;
    case Severity::Warn: return kWarning;
    case Severity::Info: return kInformation;
  }
  return kWarning;
}

Json rangeJson(Position start, Position end) { return Json{{"start", toJson(start)}, {"end", toJson(end)}}; }

// The URI of a path the analyzer reported: the document's own, or a file URI.
std::string uriOf(const std::string& path, const Document& document) {
  if (path == document.path) return document.uri;
  return "file://" + percentEncodePath(path);
}

std::string messageOf(const Prediction& p) {
  std::string message = p.message;
  if (p.masked()) message += " (masked by " + p.maskedBy->reasonId.str() + " at " + p.maskedBy->location() + ")";
  message += "\nconfidence: " + std::string(toString(p.confidence));
  if (!p.reasoning.empty()) message += "; " + p.reasoning;
  return message;
}

Json fileErrorDiagnostic(const FileError& e, const LineIndex& lines, PositionEncoding encoding) {
  int line0 = e.line > 0 ? e.line - 1 : 0;
  Json d{{"range", rangeJson({line0, 0}, lines.endOfLine(line0, encoding))},
         {"severity", kError},
         {"source", "ljcheck"},
         {"message", e.message}};
  d["code"] = e.kind == FileError::Kind::Syntax ? "syntax" : "input";
  return d;
}

// A problem of a suppression comment (unpaired push/pop, unused allow):
// from the comment to the end of its line, `code` its directive id.
Json directiveDiagnostic(const DirectiveProblem& p, const LineIndex& lines, PositionEncoding encoding) {
  int line0 = p.line > 0 ? p.line - 1 : 0;
  Position start = p.column > 0 ? lines.position(p.line, p.column, encoding) : Position{line0, 0};
  int severity = p.severity == Severity::Blacklist ? kError : p.severity == Severity::Warn ? kWarning : kInformation;
  return Json{{"range", rangeJson(start, lines.endOfLine(line0, encoding))},
              {"severity", severity},
              {"code", directiveId(p.kind)},
              {"source", "ljcheck"},
              {"message", p.message}};
}

}  // namespace

Json toJson(Position p) { return Json{{"line", p.line}, {"character", p.character}}; }

Json predictionRange(const Prediction& p, const LineIndex& lines, PositionEncoding encoding) {
  if (p.range.found())
    return rangeJson(lines.position(p.range.start.line, p.range.start.column, encoding),
                     lines.position(p.range.end.line, p.range.end.column, encoding));
  int line0 = p.line > 0 ? p.line - 1 : 0;
  return rangeJson({line0, 0}, lines.endOfLine(line0, encoding));
}

Json diagnosticFor(const Prediction& p, const Document& document, const LineIndex& lines,
                   const DiagnosticStyle& style) {
  const std::string id = p.reasonId.str();
  Json d{{"range", predictionRange(p, lines, style.encoding)},
         {"severity", severityOf(p)},
         {"code", id},
         {"source", "ljcheck"},
         {"message", messageOf(p)}};
  std::string page = reasonDocsPage(id);
  constexpr std::string_view docsPrefix = "docs/";
  if (!style.docsUrl.empty() && page.compare(0, docsPrefix.size(), docsPrefix) == 0)
    d["codeDescription"] = Json{{"href", style.docsUrl + page.substr(docsPrefix.size())}};
  Json data{{"reasonId", id},
            {"class", toString(p.reasonClass)},
            {"severity", toString(p.severity)},
            {"confidence", toString(p.confidence)},
            {"reasoning", p.reasoning},
            {"line", p.line}};
  if (p.masked()) {
    const MaskingSite& m = *p.maskedBy;
    int line0 = m.line > 0 ? m.line - 1 : 0;
    LineIndex none("");
    const LineIndex& maskLines = m.path == document.path ? lines : none;
    d["relatedInformation"] = Json::array(
        {Json{{"location",
               Json{{"uri", uriOf(m.path, document)},
                    {"range", rangeJson({line0, 0}, maskLines.endOfLine(line0, style.encoding))}}},
              {"message", "masked by " + m.reasonId.str() + ": fix this site first"}}});
    data["maskedBy"] = Json{{"reasonId", m.reasonId.str()}, {"location", m.location()}};
  }
  d["data"] = std::move(data);
  return d;
}

Json publishParams(const Document& document, const DiagnosticStyle& style) {
  LineIndex lines(document.text);
  Json diagnostics = Json::array();
  for (const auto& e : document.result.errors) diagnostics.push_back(fileErrorDiagnostic(e, lines, style.encoding));
  for (const auto& p : document.result.predictions) diagnostics.push_back(diagnosticFor(p, document, lines, style));
  for (const auto& p : document.result.directives) diagnostics.push_back(directiveDiagnostic(p, lines, style.encoding));
  return Json{{"uri", document.uri}, {"version", document.version}, {"diagnostics", std::move(diagnostics)}};
}

}  // namespace ljcheck::lsp
