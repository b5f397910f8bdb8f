// Terminal table and JSON for a verification.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "ljcheck/verify.h"

namespace ljcheck {
namespace {

void writeTallies(std::ostream& out, const char* heading, const std::map<std::string, Tally>& tallies) {
  out << fmt::format("{:<32} {:>9} {:>7} {:>7} {:>9} {:>7}\n", heading, "confirmed", "missed", "latent",
                     "precision", "recall");
  for (const auto& [name, t] : tallies)
    out << fmt::format("{:<32} {:>9} {:>7} {:>7} {:>9.2f} {:>7.2f}\n", name, t.confirmed, t.missed, t.latent,
                       t.precision(), t.recall());
}

nlohmann::json tallyJson(const Tally& t) {
  return {{"confirmed", t.confirmed}, {"missed", t.missed}, {"latent", t.latent},
          {"precision", t.precision()}, {"recall", t.recall()}};
}

}  // namespace

void writeVerificationText(std::ostream& out, const Verification& v) {
  out << "recorder profile: " << (v.profileName.empty() ? v.profileId : v.profileName) << "\n\n";
  out << fmt::format("{:<10} {:<40} {:<28} {:>8}\n", "status", "location", "reasonId", "observed");
  for (const auto& s : v.sites)
    out << fmt::format("{:<10} {:<40} {:<28} {:>8}\n", toString(s.status), s.location, s.reasonId,
                       s.observedCount);
  out << '\n';
  writeTallies(out, "reason", v.byReason);
  out << '\n';
  writeTallies(out, "class", v.byClass);
  out << fmt::format("\ntotal: {} confirmed, {} missed, {} latent; precision {:.2f}, recall {:.2f}\n",
                     v.total.confirmed, v.total.missed, v.total.latent, v.total.precision(), v.total.recall());
}

void writeVerificationJson(std::ostream& out, const Verification& v) {
  nlohmann::json j;
  j["tool"] = "ljcheck";
  j["kind"] = "verification";
  j["formatVersion"] = 1;
  j["traceProfile"] = {{"id", v.profileId}, {"name", v.profileName}};
  auto& sites = j["sites"] = nlohmann::json::array();
  for (const auto& s : v.sites)
    sites.push_back({{"status", toString(s.status)}, {"location", s.location}, {"reasonId", s.reasonId},
                     {"reasonClass", s.reasonClass}, {"severity", s.severity}, {"observedCount", s.observedCount}});
  for (const auto& [name, t] : v.byReason) j["byReason"][name] = tallyJson(t);
  for (const auto& [name, t] : v.byClass) j["byClass"][name] = tallyJson(t);
  j["total"] = tallyJson(v.total);
  out << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace ljcheck
