// Reads lint and runtime JSON reports for the join (see verify.h).
#include <fstream>
#include <nlohmann/json.hpp>

#include "ljcheck/reason.h"
#include "ljcheck/verify.h"

namespace ljcheck {

SiteReport readReport(const std::string& path, const std::string& expectedKind) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReportError(path + ": cannot open file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw ReportError(path + ": not valid JSON (" + e.what() + ")");
  }
  SiteReport r;
  r.file = path;
  try {
    if (!j.is_object() || j.value("tool", "") != "ljcheck")
      throw ReportError(path + ": not an ljcheck report");
    r.kind = j.value("kind", "");
    if (r.kind != expectedKind)
      throw ReportError(path + ": expected a " + expectedKind + " report, found '" + r.kind + "'");
    const auto& profile = j.at("traceProfile");
    r.profileId = profile.at("id").get<std::string>();
    r.profileName = profile.value("name", "");
    r.catalogId = j.at("reasonCatalogId").get<std::string>();
    r.catalogVersion = j.at("reasonCatalogVersion").get<int>();
    const auto& catalog = ReasonCatalog::builtin();
    const char* list = r.kind == "lint" ? "predictions" : "sites";
    for (const auto& s : j.at(list)) {
      ReportSite site;
      site.reasonId = catalog.upgrade(s.at("reasonId").get<std::string>(), r.catalogVersion);
      site.location = s.at("location").get<std::string>();
      site.reasonClass = s.value("reasonClass", "");
      site.severity = s.value("severity", "");
      site.count = s.value("count", 1L);
      r.sites.push_back(std::move(site));
    }
  } catch (const nlohmann::json::exception& e) {
    throw ReportError(path + ": malformed report (" + e.what() + ")");
  }
  return r;
}

}  // namespace ljcheck
