// gcc-style text output, one line per prediction or file error. Paths and
// messages are escaped (safe_text.h): a file name is bytes from outside and
// must not rewrite the terminal or forge a diagnostic line.
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
    for (const auto& p : file.predictions) {
      // A masked site is not a finding of its own: it reads as a note that
      // names the abort to fix first.
      Severity shown = shownSeverity(p);
      const std::string path = escapeControls(p.path);
      // Editors jump to the construct itself (the range's start); the VM's
      // line where the source does not show it.
      auto where = [&] {
        if (p.range.found()) out << path << ':' << p.range.start.line << ':' << p.range.start.column << ": ";
        else out << path << ':' << p.line << ": ";
      };
      where();
      out << (color ? colorOf(shown) : "") << diagnosticLevel(shown) << reset << ": " << escapeControls(p.message);
      if (p.masked())
        out << " (masked by " << escapeControls(p.maskedBy->location()) << ' ' << p.maskedBy->reasonId.str() << ")";
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
