// The trace report as the runtime JSON `ljcheck verify` reads: the report
// envelope (ljcheck/report_envelope.h), then the sites.
#include <nlohmann/json.hpp>

#include "ljcheck/trace_report.h"

namespace ljcheck {

std::string toJson(const TraceReport& report) {
  using Json = nlohmann::ordered_json;
  Json sites = Json::array();
  for (const AbortSite& site : report.sites) {
    sites.push_back({{"severity", toString(site.severity)},
                     {"count", site.count},
                     {"reasonId", site.reasonId.str()},
                     {"reasonClass", toString(site.reasonClass)},
                     {"reason", site.reason},
                     {"rawReason", site.rawReason},
                     {"location", site.location()},
                     {"path", site.path},
                     {"line", site.line},
                     {"zonePath", site.zonePath}});
  }
  Json doc = report.envelope.toJson();
  doc["script"] = report.script;
  doc["durationSec"] = report.durationSec;
  doc["totalAborts"] = report.totalAborts;
  doc["blacklisted"] = report.blacklisted;
  doc["sites"] = std::move(sites);
  if (report.coverage) {
    doc["visited"] = report.visited;
    doc["visitedInstructions"] = report.visitedInstructions;
  }
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace ljcheck
