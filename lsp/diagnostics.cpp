// Predictions to LSP Diagnostic objects. Severity follows the site's:
// blacklist is an error, warn a warning, info information; a masked site is
// a hint (fix the masking site first). `code` is the reasonId, linked to its
// reason page; `data` carries what a client or a code action may want back.
// Problems of suppression comments are diagnostics too, coded by their id.
#include "diagnostics.h"

#include <string_view>
#include <utility>

#include "ljcheck/lint_report.h"
#include "ljcheck/reason_docs.h"
#include "output/json_text.h"
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

// The JSON text is written directly, keys in the order nlohmann::json
// sorts them: a 5,000-line file has hundreds of diagnostics, and building
// them as json values and dumping them cost more than analyzing the file.
void appendInt(std::string& out, long long n) { out += std::to_string(n); }

void appendPosition(std::string& out, Position p) {
  out += "{\"character\":";
  appendInt(out, p.character);
  out += ",\"line\":";
  appendInt(out, p.line);
  out += '}';
}

void appendRange(std::string& out, Position start, Position end) {
  out += "{\"end\":";
  appendPosition(out, end);
  out += ",\"start\":";
  appendPosition(out, start);
  out += '}';
}

// "key":"value", with a comma before it unless it opens the object.
void appendField(std::string& out, std::string_view key, std::string_view value, bool first = false) {
  if (!first) out += ',';
  appendJsonString(out, key);
  out += ':';
  appendJsonString(out, value);
}

// The URI of a path the analyzer reported: the document's own, or a file URI.
std::string uriOf(const std::string& path, const Document& document) {
  if (path == document.path) return document.uri;
  return "file://" + percentEncodePath(path);
}

// A masking site in the same document is named by its line (where its own
// diagnostic is, when it has one): the editor shows the message next to that
// document, and relatedInformation links the site.
std::string messageOf(const Prediction& p, const Document& document) {
  std::string message = p.message;
  if (p.masked()) {
    const MaskingSite& site = *p.maskedBy;
    int line = site.range.found() ? site.range.start.line : site.line;
    message += " (masked by " + site.reasonId.str() + " at " +
               (site.path == document.path ? "line " + std::to_string(line) : site.location()) + ")";
  }
  message += "\nconfidence: " + std::string(toString(p.confidence));
  if (!p.reasoning.empty()) message += "; " + p.reasoning;
  return message;
}

void appendFileError(std::string& out, const FileError& e, const LineIndex& lines, PositionEncoding encoding) {
  int line0 = e.line > 0 ? e.line - 1 : 0;
  appendField(out, "code", e.kind == FileError::Kind::Syntax ? "syntax" : "input", true);
  appendField(out, "message", e.message);
  out += ",\"range\":";
  appendRange(out, {line0, 0}, lines.endOfLine(line0, encoding));
  out += ",\"severity\":";
  appendInt(out, kError);
  appendField(out, "source", "ljcheck");
}

void appendRelatedMask(std::string& out, const MaskingSite& m, const Document& document, const LineIndex& lines,
                       PositionEncoding encoding) {
  int line0 = m.line > 0 ? m.line - 1 : 0;
  LineIndex none("");
  const bool here = m.path == document.path;
  const LineIndex& maskLines = here ? lines : none;
  out += ",\"relatedInformation\":[{\"location\":{\"range\":";
  if (here && m.range.found())  // the masking site's own diagnostic range
    appendRange(out, lines.position(m.range.start.line, m.range.start.column, encoding),
                lines.position(m.range.end.line, m.range.end.column, encoding));
  else
    appendRange(out, {line0, 0}, maskLines.endOfLine(line0, encoding));
  appendField(out, "uri", uriOf(m.path, document));
  out += '}';
  appendField(out, "message", "masked by " + m.reasonId.str() + ": fix this site first");
  out += "}]";
}

// A problem of a suppression comment (unpaired push/pop, unused allow):
// from the comment to the end of its line, `code` its directive id.
void appendDirective(std::string& out, const DirectiveProblem& p, const LineIndex& lines, PositionEncoding encoding) {
  auto [start, end] = directiveRange(p, lines, encoding);
  int severity = p.severity == Severity::Blacklist ? kError : p.severity == Severity::Warn ? kWarning : kInformation;
  appendField(out, "code", directiveId(p.kind), true);
  appendField(out, "message", p.message);
  out += ",\"range\":";
  appendRange(out, start, end);
  out += ",\"severity\":";
  appendInt(out, severity);
  appendField(out, "source", "ljcheck");
}

}  // namespace

Json toJson(Position p) { return Json{{"line", p.line}, {"character", p.character}}; }

std::pair<Position, Position> directiveRange(const DirectiveProblem& p, const LineIndex& lines,
                                             PositionEncoding encoding) {
  int line0 = p.line > 0 ? p.line - 1 : 0;
  Position start = p.column > 0 ? lines.position(p.line, p.column, encoding) : Position{line0, 0};
  return {start, lines.endOfLine(line0, encoding)};
}

namespace {

std::pair<Position, Position> rangeOf(const Prediction& p, const LineIndex& lines, PositionEncoding encoding) {
  if (p.range.found())
    return {lines.position(p.range.start.line, p.range.start.column, encoding),
            lines.position(p.range.end.line, p.range.end.column, encoding)};
  int line0 = p.line > 0 ? p.line - 1 : 0;
  return {{line0, 0}, lines.endOfLine(line0, encoding)};
}

}  // namespace

Json predictionRange(const Prediction& p, const LineIndex& lines, PositionEncoding encoding) {
  auto [start, end] = rangeOf(p, lines, encoding);
  return Json{{"start", toJson(start)}, {"end", toJson(end)}};
}

void appendDiagnostic(std::string& out, const Prediction& p, const Document& document, const LineIndex& lines,
                      const DiagnosticStyle& style) {
  const std::string id = p.reasonId.str();
  out += '{';
  appendField(out, "code", id, true);
  std::string page = reasonDocsPage(id);
  constexpr std::string_view docsPrefix = "docs/";
  if (!style.docsUrl.empty() && page.compare(0, docsPrefix.size(), docsPrefix) == 0) {
    out += ",\"codeDescription\":{";
    appendField(out, "href", style.docsUrl + page.substr(docsPrefix.size()), true);
    out += '}';
  }
  // data: what the diagnostic's other fields do not say (the reasonId is its
  // code, the class follows from the reasonId, the reasoning is in the
  // message): a big file's diagnostics are parsed by the client on every change.
  out += ",\"data\":{";
  appendField(out, "confidence", toString(p.confidence), true);
  out += ",\"line\":";
  appendInt(out, p.line);
  if (p.masked()) {
    out += ",\"maskedBy\":{";
    appendField(out, "location", p.maskedBy->location(), true);
    appendField(out, "reasonId", p.maskedBy->reasonId.str());
    out += '}';
  }
  appendField(out, "severity", toString(shownSeverity(p)));
  out += '}';
  appendField(out, "message", messageOf(p, document));
  out += ",\"range\":";
  auto [start, end] = rangeOf(p, lines, style.encoding);
  appendRange(out, start, end);
  if (p.masked()) appendRelatedMask(out, *p.maskedBy, document, lines, style.encoding);
  out += ",\"severity\":";
  appendInt(out, severityOf(p));
  appendField(out, "source", "ljcheck");
  out += '}';
}

Json diagnosticFor(const Prediction& p, const Document& document, const LineIndex& lines,
                   const DiagnosticStyle& style) {
  std::string text;
  appendDiagnostic(text, p, document, lines, style);
  return Json::parse(text);
}

std::string publishParams(const Document& document, const DiagnosticStyle& style) {
  LineIndex lines(document.text);
  return publishParams(document, style, lines, [&](std::string& out, std::size_t i) {
    appendDiagnostic(out, document.result.predictions[i], document, lines, style);
  });
}

std::string publishParams(const Document& document, const DiagnosticStyle& style, const LineIndex& lines,
                          const std::function<void(std::string&, std::size_t)>& appendPrediction) {
  std::string out = "{\"diagnostics\":[";
  bool first = true;
  for (const auto& e : document.result.errors) {
    if (!first) out += ',';
    first = false;
    out += '{';
    appendFileError(out, e, lines, style.encoding);
    out += '}';
  }
  for (std::size_t i = 0; i < document.result.predictions.size(); ++i) {
    if (!first) out += ',';
    first = false;
    appendPrediction(out, i);
  }
  for (const auto& p : document.result.directives) {
    if (!first) out += ',';
    first = false;
    out += '{';
    appendDirective(out, p, lines, style.encoding);
    out += '}';
  }
  out += ']';
  appendField(out, "uri", document.uri);
  out += ",\"version\":";
  appendInt(out, document.version);
  out += '}';
  return out;
}

}  // namespace ljcheck::lsp
