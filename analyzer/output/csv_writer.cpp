// CSV output: path,line,reasonId,class,severity,context,column,confidence,masked.
// New columns go at the end: scripts that read the first six keep working.
// A masked site's severity is info, as every format shows it (`masked` says why).
#include "ljcheck/lint_report.h"

namespace ljcheck {

void writeCsv(std::ostream& out, const LintReport& report) {
  out << "path,line,reasonId,class,severity,context,column,confidence,masked\r\n";
  for (const auto& file : report.files)
    for (const auto& p : file.predictions)
      out << csvField(p.path) << ',' << p.line << ',' << csvField(p.reasonId.str()) << ','
          << toString(p.reasonClass) << ',' << toString(shownSeverity(p)) << ',' << toString(p.context) << ','
          << p.column << ',' << toString(p.confidence) << ',' << (p.masked() ? "true" : "false") << "\r\n";
}

}  // namespace ljcheck
