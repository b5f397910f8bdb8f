// Terminal table and JSON for a verification.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "ljcheck/verify.h"

namespace ljcheck {
namespace {

void writeTallies(std::ostream& out, const char* heading, const std::map<std::string, Tally>& tallies) {
  out << fmt::format("{:<32} {:>9} {:>7} {:>7} {:>9} {:>7} {:>11} {:>7}\n", heading, "confirmed", "missed",
                     "latent", "precision", "recall", "unexercised", "masked");
  for (const auto& [name, t] : tallies)
    out << fmt::format("{:<32} {:>9} {:>7} {:>7} {:>9.2f} {:>7.2f} {:>11} {:>7}\n", name, t.confirmed, t.missed,
                       t.latent, t.precision(), t.recall(), t.unexercised, t.masked);
}

nlohmann::ordered_json tallyJson(const Tally& t) {
  return {{"confirmed", t.confirmed},       {"missed", t.missed}, {"latent", t.latent},
          {"precision", t.precision()},     {"recall", t.recall()}, {"unexercised", t.unexercised},
          {"masked", t.masked},             {"loadedChunk", t.loadedChunk}};
}

}  // namespace

void writeVerificationText(std::ostream& out, const Verification& v) {
  const ProfileRef& profile = v.envelope.traceProfile;
  out << "recorder profile: " << (profile.name.empty() ? profile.id : profile.name) << "\n\n";
  out << fmt::format("{:<12} {:<40} {:<28} {:>8} {:>10}\n", "status", "location", "reasonId", "observed", "cost ms");
  for (const auto& s : v.sites)
    out << fmt::format("{:<12} {:<40} {:<28} {:>8} {:>10.1f}\n", toString(s.status), s.location, s.reasonId,
                       s.observedCount, s.costMs);
  out << '\n';
  writeTallies(out, "reason", v.byReason);
  out << '\n';
  writeTallies(out, "class", v.byClass);
  out << '\n';
  writeTallies(out, "confidence", v.byConfidence);
  const Tally& t = v.total;
  out << fmt::format("\ntotal: {} confirmed, {} missed, {} latent; precision {:.2f}, recall {:.2f}\n", t.confirmed,
                     t.missed, t.latent, t.precision(), t.recall());
  out << fmt::format("not judged: {} unexercised (the recorder never visited the line), {} masked, "
                     "{} observed in chunks loaded from strings\n",
                     t.unexercised, t.masked, t.loadedChunk);
}

void writeVerificationJson(std::ostream& out, const Verification& v) {
  nlohmann::ordered_json j = v.envelope.toJson();
  if (!v.warnings.empty()) j["warnings"] = v.warnings;
  j["coverage"] = v.coverage;
  auto& sites = j["sites"] = nlohmann::ordered_json::array();
  for (const auto& s : v.sites)
    sites.push_back({{"status", toString(s.status)}, {"location", s.location}, {"path", s.path}, {"line", s.line},
                     {"reasonId", s.reasonId},
                     {"reasonClass", s.reasonClass}, {"severity", s.severity}, {"confidence", s.confidence},
                     {"observedCount", s.observedCount}, {"zonePath", s.zonePath}, {"costMs", s.costMs}});
  for (const auto& [name, t] : v.byReason) j["byReason"][name] = tallyJson(t);
  for (const auto& [name, t] : v.byClass) j["byClass"][name] = tallyJson(t);
  for (const auto& [name, t] : v.byConfidence) j["byConfidence"][name] = tallyJson(t);
  j["total"] = tallyJson(v.total);
  out << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace ljcheck
