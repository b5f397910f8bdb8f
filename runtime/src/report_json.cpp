// The trace report as the runtime JSON `ljcheck verify` reads (formatVersion 1).
#include <nlohmann/json.hpp>

#include "ljcheck/trace_report.h"

namespace ljcheck {

std::string toJson(const TraceReport& report) {
  using Json = nlohmann::ordered_json;
  Json sites = Json::array();
  for (const AbortSite& site : report.sites) {
    sites.push_back({{"severity", toString(site.severity)},
                     {"count", site.count},
                     {"reasonId", site.reasonId},
                     {"reasonClass", toString(site.reasonClass)},
                     {"reason", site.reason},
                     {"rawReason", site.rawReason},
                     {"location", site.location()},
                     {"path", site.path},
                     {"line", site.line},
                     {"zonePath", site.zonePath}});
  }
  Json doc = {{"tool", "ljcheck"},
              {"kind", "runtime"},
              {"formatVersion", 1},
              {"reasonCatalogId", report.reasonCatalogId},
              {"reasonCatalogVersion", report.reasonCatalogVersion},
              {"traceProfile",
               {{"id", report.traceProfile.id},
                {"name", report.traceProfile.name},
                {"supported", report.traceProfile.supported}}},
              {"root", report.root},
              {"script", report.script},
              {"durationSec", report.durationSec},
              {"totalAborts", report.totalAborts},
              {"blacklisted", report.blacklisted},
              {"sites", std::move(sites)}};
  if (report.coverage) doc["visited"] = report.visited;
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace ljcheck
