// The trace report as RFC 4180 CSV: the `tostring(report)` text and the file
// `stop(filename)` writes. Rows come in the report's order (actionable first).
#include <string_view>

#include "ljcheck/trace_report.h"

namespace ljcheck {
namespace {

void appendField(std::string& out, std::string_view field) {
  bool quote = field.find_first_of(",\"\r\n") != std::string_view::npos;
  if (!quote) {
    out += field;
    return;
  }
  out += '"';
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

}  // namespace

std::string toCsv(const TraceReport& report) {
  // `start` last: a site aborted from several trace starts is one row per start.
  std::string out = "severity,count,reasonId,reasonClass,location,zonePath,reason,rawReason,start,fallback\r\n";
  for (const AbortSite& site : report.sites) {
    const std::string fields[] = {std::string(toString(site.severity)), std::to_string(site.count),
                                  site.reasonId.str(), std::string(toString(site.reasonClass)),
                                  site.location(), site.zonePath, site.reason, site.rawReason,
                                  site.startLocation(), site.fallback ? "true" : "false"};
    bool first = true;
    for (const std::string& field : fields) {
      if (!first) out += ',';
      first = false;
      appendField(out, field);
    }
    out += "\r\n";
  }
  return out;
}

}  // namespace ljcheck
