// Counts over a lint report, and the names of its formats and severities.
#include "ljcheck/lint_report.h"

namespace ljcheck {

std::size_t LintReport::predictionCount() const {
  std::size_t n = 0;
  for (const auto& f : files) n += f.predictions.size();
  return n;
}

bool LintReport::hasFindingAtLeast(Severity threshold) const {
  for (const auto& f : files)
    for (const auto& p : f.predictions)
      if (!p.masked() && p.severity >= threshold) return true;
  for (const auto& f : files)
    for (const auto& d : f.directives)
      if (d.severity >= threshold) return true;
  return false;
}

std::size_t LintReport::directiveCount() const {
  std::size_t n = 0;
  for (const auto& f : files) n += f.directives.size();
  return n;
}

std::size_t LintReport::errorCount() const {
  std::size_t n = 0;
  for (const auto& f : files) n += f.errors.size();
  return n;
}

std::string_view toString(LintFormat f) {
  switch (f) {
    case LintFormat::Text: return "text";
    case LintFormat::Json: return "json";
    case LintFormat::Csv: return "csv";
    case LintFormat::Sarif: return "sarif";
    case LintFormat::Github: return "github";
    case LintFormat::Junit: return "junit";
  }
  return "text";
}

std::optional<LintFormat> parseLintFormat(std::string_view text) {
  for (LintFormat f : kLintFormats)
    if (text == toString(f)) return f;
  return std::nullopt;
}

std::string_view diagnosticLevel(Severity s) {
  switch (s) {
    case Severity::Blacklist: return "error";
    case Severity::Warn: return "warning";
    case Severity::Info: return "note";
  }
  return "warning";
}

std::optional<Severity> parseSeverityName(std::string_view text) {
  for (Severity s : {Severity::Info, Severity::Warn, Severity::Blacklist})
    if (text == toString(s) || text == diagnosticLevel(s)) return s;
  return std::nullopt;
}

Severity shownSeverity(const Prediction& p) { return p.masked() ? Severity::Info : p.severity; }

std::string csvField(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace ljcheck
