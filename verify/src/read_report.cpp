// Reads lint and runtime JSON reports for the join (see verify.h).
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ljcheck/reason.h"
#include "ljcheck/verify.h"

namespace ljcheck {
namespace {

// "No such file or directory" -> "no such file or directory", as the other messages read.
std::string systemError(int code) {
  std::string text = std::strerror(code);
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

}  // namespace

SiteReport readReport(const std::string& path, const std::string& expectedKind) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ReportError(path + ": is a directory, not a report file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReportError(path + ": cannot open file: " + systemError(errno));
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
      throw ReportError(path + ": expected a " + expectedKind + " report (ljcheck " +
                        (expectedKind == "lint" ? "lint --format json" : "run --json") + "), found " +
                        (r.kind.empty() ? "no report kind" : "a " + r.kind + " report"));
    const auto& profile = j.at("traceProfile");
    r.profileId = profile.at("id").get<std::string>();
    r.profileName = profile.value("name", "");
    r.catalogId = j.at("reasonCatalogId").get<std::string>();
    r.catalogVersion = j.at("reasonCatalogVersion").get<int>();
    const auto& catalog = ReasonCatalog::builtin();
    const char* list = r.kind == "lint" ? "predictions" : "sites";
    for (const auto& s : j.at(list)) {
      ReportSite site;
      std::string written = s.at("reasonId").get<std::string>();
      site.reasonId = catalog.upgrade(written, r.catalogVersion);
      site.location = s.at("location").get<std::string>();
      site.reasonClass = s.value("reasonClass", "");
      // An id the aliases renamed takes the class of the code it now names:
      // the class written beside the old id was the old code's.
      if (site.reasonId != written || site.reasonClass.empty())
        if (const Reason* reason = catalog.find(ReasonId::parse(site.reasonId).code))
          site.reasonClass = std::string(toString(reason->reasonClass));
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
