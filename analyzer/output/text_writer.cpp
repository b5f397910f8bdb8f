// gcc-style text output, one line per prediction or file error.
#include "ljcheck/lint_report.h"
#include "ljcheck/reason_docs.h"

namespace ljcheck {
namespace {

std::string_view gccSeverity(Severity s) {
  switch (s) {
    case Severity::Blacklist: return "error";
    case Severity::Warn: return "warning";
    case Severity::Info: return "note";
  }
  return "warning";
}

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
      out << e.path << ':';
      if (e.line > 0) out << e.line << ':';
      out << ' ' << (color ? "\x1b[1;31m" : "") << "error" << reset << ": " << e.message << '\n';
    }
    for (const auto& p : file.predictions) {
      // A masked site is not a finding of its own: it reads as a note that
      // names the abort to fix first.
      Severity shown = p.masked() ? Severity::Info : p.severity;
      // Editors jump to the construct itself (the range's start); the VM's
      // line where the source does not show it.
      auto where = [&] {
        if (p.range.found()) out << p.path << ':' << p.range.start.line << ':' << p.range.start.column << ": ";
        else out << p.path << ':' << p.line << ": ";
      };
      where();
      out << (color ? colorOf(shown) : "") << gccSeverity(shown) << reset << ": " << p.message;
      if (p.masked()) out << " (masked by " << p.maskedBy->location() << ' ' << p.maskedBy->reasonId.str() << ")";
      out << " [" << p.reasonId.str() << "]\n";
      if (!explain || p.reasoning.empty()) continue;
      where();
      out << (color ? colorOf(Severity::Info) : "") << "note" << reset << ": " << toString(p.confidence) << ": "
          << p.reasoning;
      if (std::string page = reasonDocsPage(p.reasonId.str()); !page.empty()) out << " (see " << page << ')';
      out << '\n';
    }
  }
}

}  // namespace ljcheck
