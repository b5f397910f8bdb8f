// gcc-style text output, one line per prediction or file error.
#include "ljcheck/lint_report.h"

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

void writeText(std::ostream& out, const LintReport& report, bool color) {
  const char* reset = color ? "\x1b[0m" : "";
  for (const auto& file : report.files) {
    for (const auto& e : file.errors) {
      out << e.path << ':';
      if (e.line > 0) out << e.line << ':';
      out << ' ' << (color ? "\x1b[1;31m" : "") << "error" << reset << ": " << e.message << '\n';
    }
    for (const auto& p : file.predictions) {
      out << p.path << ':' << p.line << ':';
      if (p.column > 0) out << p.column << ':';
      out << ' ' << (color ? colorOf(p.severity) : "") << gccSeverity(p.severity) << reset << ": "
          << p.message << " [" << p.reasonId << "]\n";
    }
  }
}

}  // namespace ljcheck
