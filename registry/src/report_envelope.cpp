// The report envelope (see report_envelope.h).
#include "ljcheck/report_envelope.h"

#include "ljcheck/reason.h"

#include <cstdint>

namespace ljcheck {
namespace {

constexpr std::string_view kTool = "ljcheck";

// Which command writes a report of this kind, for messages.
std::string writerOf(std::string_view kind) {
  if (kind == "lint") return "ljcheck lint --format json";
  if (kind == "runtime") return "ljcheck run --json";
  return "ljcheck";
}

// A version field: checked before conversion, since a float out of int's
// range (9.2e19, 8.9e84) would convert with undefined behaviour inside
// get<int>() (found twice by the fuzz campaign under UBSan).
int smallWholeNumber(const nlohmann::json& doc, const char* key, const std::string& file) {
  constexpr std::int64_t kMost = 1000000;
  const auto& v = doc.at(key);
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > kMost)
    throw ReportFormatError(file + ": '" + key + "' must be a whole number, not " + v.dump());
  return static_cast<int>(v.get<std::int64_t>());
}

}  // namespace

ReportEnvelope ReportEnvelope::current(std::string kind, ProfileRef profile, std::string root) {
  const ReasonCatalog& catalog = ReasonCatalog::builtin();
  ReportEnvelope e;
  e.kind = std::move(kind);
  e.traceProfile = std::move(profile);
  e.reasonCatalogId = catalog.id();
  e.reasonCatalogVersion = catalog.version();
  e.root = std::move(root);
  return e;
}

nlohmann::ordered_json ReportEnvelope::toJson() const {
  nlohmann::ordered_json j;
  j["tool"] = kTool;
  j["kind"] = kind;
  j["formatVersion"] = formatVersion;
  j["reasonCatalogId"] = reasonCatalogId;
  j["reasonCatalogVersion"] = reasonCatalogVersion;
  j["traceProfile"] = {{"id", traceProfile.id}, {"name", traceProfile.name}, {"supported", traceProfile.supported}};
  j["root"] = root;
  return j;
}

ReportEnvelope ReportEnvelope::read(const nlohmann::json& doc, const std::string& file,
                                    std::string_view expectedKind) {
  if (!doc.is_object() || !doc.contains("tool") || !doc["tool"].is_string() || doc["tool"].get<std::string>() != kTool)
    throw ReportFormatError(file + ": not an ljcheck report");
  ReportEnvelope e;
  try {
    e.kind = doc.value("kind", "");
    if (e.kind != expectedKind)
      throw ReportFormatError(file + ": expected a " + std::string(expectedKind) + " report (" +
                              writerOf(expectedKind) + "), found " +
                              (e.kind.empty() ? "no report kind" : "a " + e.kind + " report"));
    e.formatVersion = doc.contains("formatVersion") ? smallWholeNumber(doc, "formatVersion", file) : kFormatVersion;
    if (e.formatVersion > kFormatVersion)
      throw ReportFormatError(file + ": report format version " + std::to_string(e.formatVersion) +
                              " is newer than this ljcheck reads (" + std::to_string(kFormatVersion) + ")");
    const auto& profile = doc.at("traceProfile");
    e.traceProfile.id = profile.at("id").get<std::string>();
    e.traceProfile.name = profile.value("name", "");
    e.traceProfile.supported = profile.value("supported", false);
    e.reasonCatalogId = doc.at("reasonCatalogId").get<std::string>();
    e.reasonCatalogVersion = smallWholeNumber(doc, "reasonCatalogVersion", file);
    e.root = doc.value("root", "");
  } catch (const nlohmann::json::exception& ex) {
    throw ReportFormatError(file + ": malformed report (" + ex.what() + ")");
  }
  return e;
}

}  // namespace ljcheck
