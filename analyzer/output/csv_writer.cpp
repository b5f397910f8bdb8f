// CSV output: path,line,reasonId,class,severity,context.
#include "ljcheck/lint_report.h"

namespace ljcheck {

void writeCsv(std::ostream& out, const LintReport& report) {
  out << "path,line,reasonId,class,severity,context\r\n";
  for (const auto& file : report.files)
    for (const auto& p : file.predictions)
      out << csvField(p.path) << ',' << p.line << ',' << csvField(p.reasonId.str()) << ','
          << toString(p.reasonClass) << ',' << toString(p.severity) << ',' << toString(p.context)
          << "\r\n";
}

}  // namespace ljcheck
