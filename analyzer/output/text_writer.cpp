// gcc-style text output, one line per prediction or file error. Paths and
// messages are escaped (safe_text.h): a file name is bytes from outside and
// must not rewrite the terminal or forge a diagnostic line.
#include <algorithm>
#include <string>
#include <vector>

#include "ljcheck/lint_report.h"
#include "ljcheck/reason_docs.h"
#include "ljcheck/safe_text.h"

namespace ljcheck {
namespace {

std::string_view colorOf(Severity s) {
  switch (s) {
    case Severity::Blacklist: return "\x1b[1;31m";
    case Severity::Warn: return "\x1b[1;35m";
    case Severity::Info: return "\x1b[1;36m";
  }
  return "";
}

// Where an editor takes the user for p: its range's start, else the VM's line.
SourcePosition shownAt(const Prediction& p) { return p.range.found() ? p.range.start : SourcePosition{p.line, 0}; }

// A file's predictions in the order their positions are shown: a closure
// reported at its `function` keyword comes before the loop inside it,
// although its FNEW carries a later line (the order in JSON, by VM line).
std::vector<const Prediction*> inShownOrder(const std::vector<Prediction>& predictions) {
  std::vector<const Prediction*> rows;
  rows.reserve(predictions.size());
  for (const auto& p : predictions) rows.push_back(&p);
  std::stable_sort(rows.begin(), rows.end(), [](const Prediction* a, const Prediction* b) {
    SourcePosition x = shownAt(*a), y = shownAt(*b);
    return x.line != y.line ? x.line < y.line : x.column < y.column;
  });
  return rows;
}

}  // namespace

void writeText(std::ostream& out, const LintReport& report, bool color, bool explain) {
  const char* reset = color ? "\x1b[0m" : "";
  for (const auto& file : report.files) {
    for (const auto& e : file.errors) {
      out << escapeControls(e.path) << ':';
      if (e.line > 0) out << e.line << ':';
      out << ' ' << (color ? colorOf(Severity::Blacklist) : "") << "error" << reset << ": "
          << escapeControls(e.message) << '\n';
    }
    for (const Prediction* row : inShownOrder(file.predictions)) {
      const Prediction& p = *row;
      // A masked site is not a finding of its own: it reads as a note that
      // names the abort to fix first.
      Severity shown = shownSeverity(p);
      const std::string path = escapeControls(p.path);
      // Editors jump to the construct itself (the range's start); the VM's
      // line where the source does not show it.
      auto where = [&] {
        SourcePosition at = shownAt(p);
        out << path << ':' << at.line << ':';
        if (at.column > 0) out << at.column << ':';
        out << ' ';
      };
      where();
      out << (color ? colorOf(shown) : "") << diagnosticLevel(shown) << reset << ": " << escapeControls(p.message);
      if (p.masked())
        out << " (masked by " << escapeControls(p.maskedBy->shownLocation()) << ' '
            << p.maskedBy->reasonId.str() << ")";
      out << " [" << escapeControls(p.reasonId.str()) << "]\n";
      if (!explain || p.reasoning.empty()) continue;
      where();
      out << (color ? colorOf(Severity::Info) : "") << "note" << reset << ": " << toString(p.confidence) << ": "
          << escapeControls(p.reasoning);
      if (std::string page = reasonDocsPage(p.reasonId.str()); !page.empty()) out << " (see " << page << ')';
      out << '\n';
    }
    for (const auto& d : file.directives)
      out << escapeControls(d.path) << ':' << d.line << ':' << d.column << ": " << (color ? colorOf(d.severity) : "")
          << diagnosticLevel(d.severity) << reset << ": " << escapeControls(d.message) << " ["
          << directiveId(d.kind) << "]\n";
  }
}

}  // namespace ljcheck
