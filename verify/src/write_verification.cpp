// Terminal table and JSON for a verification.
#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "ljcheck/verify.h"

namespace ljcheck {
namespace {

void writeTallies(std::ostream& out, const char* heading, const std::map<std::string, Tally>& tallies) {
  out << fmt::format("{:<32} {:>9} {:>7} {:>7} {:>9} {:>7} {:>11} {:>7}\n", heading, "confirmed", "missed",
                     "latent", "precision", "recall", "unexercised", "masked");
  for (const auto& [name, t] : tallies)
    out << fmt::format("{:<32} {:>9} {:>7} {:>7} {:>9} {:>7} {:>11} {:>7}\n", name, t.confirmed, t.missed, t.latent,
                       formatRatio(t.precision(), "-"), formatRatio(t.recall(), "-"), t.unexercised, t.masked);
}

// null for a ratio the runs could not judge (nothing in its denominator).
nlohmann::ordered_json ratioJson(const std::optional<double>& ratio) {
  return ratio ? nlohmann::ordered_json(*ratio) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json tallyJson(const Tally& t) {
  return {{"confirmed", t.confirmed},
          {"missed", t.missed},
          {"latent", t.latent},
          {"precision", ratioJson(t.precision())},
          {"recall", ratioJson(t.recall())},
          {"unexercised", t.unexercised},
          {"masked", t.masked},
          {"loadedChunk", t.loadedChunk},
          {"follows", t.follows}};
}

void writeSeverities(std::ostream& out, const std::map<std::string, SeverityTally>& tallies) {
  out << fmt::format("{:<32} {:>9} {:>9} {:>22}\n", "lint severity", "predicted", "observed",
                     "blacklisted in a run");
  for (const char* severity : {"blacklist", "warn", "info", ""}) {
    auto it = tallies.find(severity);
    if (it == tallies.end()) continue;
    const SeverityTally& t = it->second;
    std::string name = *severity ? std::string(severityWord(severity)) : "not predicted";
    out << fmt::format("{:<32} {:>9} {:>9} {:>22}\n", name, *severity ? std::to_string(t.predicted) : "-",
                       t.observed, t.blacklisted);
  }
  out << '\n';
}

}  // namespace

void writeVerificationText(std::ostream& out, const Verification& v) {
  const ProfileRef& profile = v.envelope.traceProfile;
  out << "recorder profile: " << (profile.name.empty() ? profile.id : profile.name) << "\n\n";
  // The location and reasonId columns are as wide as their longest entry
  // (40 and 28 at least): long paths keep the rows aligned.
  std::size_t where = 40, why = 28;
  for (const auto& s : v.sites) {
    where = std::max(where, s.location.size());
    why = std::max(why, s.reasonId.size());
  }
  out << fmt::format("{:<12} {:<{}} {:<{}} {:<8} {:>8} {:>10}  {}\n", "status", "location", where, "reasonId", why,
                     "lint", "observed", "cost ms", "run");
  // `run`: "blacklisted" when a run blacklisted the trace start the site aborted;
  // "left to the interpreter" when it aborted side traces of an exit a run then gave up on;
  // "ran into code blacklisted by ..." for a BLACKL: the site to fix (runOutcome);
  // "masked by ..." when lint said an earlier abort hides the site, and the runs observed it.
  // `cost ms`: "-" where nothing was measured (no sampled run observed it,
  // or it is a split or a side trace's abort, which keep no code out of traces);
  // "cost shared" when other sites aborted the same trace start (their costs overlap).
  std::size_t maskedObserved = 0, shared = 0;
  for (const auto& s : v.sites) {
    bool wronglyMasked = s.status == JoinedSite::Status::Confirmed && s.maskedBy;
    maskedObserved += wronglyMasked;
    shared += s.costShared;
    std::string cost = s.costMeasured ? fmt::format("{:.1f}", s.costMs) : "-";
    out << fmt::format("{:<12} {:<{}} {:<{}} {:<8} {:>8} {:>10}{}{}{}\n", toString(s.status), s.location, where,
                       s.reasonId, why, lintSeverityWord(s), s.observedCount, cost,
                       runOutcome(s).empty() ? "" : "  " + runOutcome(s), s.costShared ? "  cost shared" : "",
                       wronglyMasked ? "  masked by " + s.maskedBy->location + ", observed anyway" : "");
  }
  out << '\n';
  writeSeverities(out, v.bySeverity);
  writeTallies(out, "reason", v.byReason);
  out << '\n';
  writeTallies(out, "class", v.byClass);
  out << '\n';
  writeTallies(out, "confidence", v.byConfidence);
  const Tally& t = v.total;
  out << fmt::format("\ntotal: {} confirmed, {} missed, {} latent; precision {}, recall {}\n", t.confirmed, t.missed,
                     t.latent, formatRatio(t.precision()), formatRatio(t.recall()));
  out << fmt::format("not judged: {} unexercised (the recorder never visited the line), {} masked, "
                     "{} observed in chunks loaded from strings, {} following a predicted site (they ran into "
                     "code a run blacklisted for it, or aborted the trace start it got blacklisted)\n",
                     t.unexercised, t.masked, t.loadedChunk, t.follows);
  if (shared)
    out << fmt::format("cost shared: {} sites aborted a trace start that other sites aborted too; each one's cost is "
                       "the interpreter time of that start's code, so their costs overlap and do not add up\n",
                       shared);
  if (maskedObserved)
    out << fmt::format("masked predictions the runs observed anyway: {} (a trace started behind the masking site)\n",
                       maskedObserved);
}

void writeVerificationJson(std::ostream& out, const Verification& v) {
  nlohmann::ordered_json j = v.envelope.toJson();
  if (!v.warnings.empty()) j["warnings"] = v.warnings;
  j["coverage"] = v.coverage;
  auto& sites = j["sites"] = nlohmann::ordered_json::array();
  for (const auto& s : v.sites) {
    sites.push_back({{"status", toString(s.status)}, {"location", s.location}, {"path", s.path}, {"line", s.line},
                     {"reasonId", s.reasonId},
                     {"reasonClass", s.reasonClass}, {"severity", s.severity}, {"confidence", s.confidence},
                     {"observedCount", s.observedCount}, {"zonePath", s.zonePath},
                     {"observedByZone", s.observedByZone},
                     {"costMs", s.costMeasured ? nlohmann::ordered_json(s.costMs) : nlohmann::ordered_json(nullptr)},
                     {"costShared", s.costShared},
                     {"blacklisted", s.blacklisted},
                     {"fallback", s.fallback}});
    // As lint said it: the site an earlier abort hides (on a confirmed site, a masking error).
    if (s.blacklistedBy)
      sites.back()["blacklistedBy"] = {{"location", s.blacklistedBy->location}, {"reasonId", s.blacklistedBy->reasonId}};
    if (s.sameStartAs)
      sites.back()["sameStartAs"] = {{"location", s.sameStartAs->location}, {"reasonId", s.sameStartAs->reasonId}};
    if (s.interpretedBehind)
      sites.back()["interpretedBehind"] = {{"location", s.interpretedBehind->location},
                                           {"reasonId", s.interpretedBehind->reasonId}};
    if (s.maskedBy)
      sites.back()["maskedBy"] = {{"location", s.maskedBy->location}, {"reasonId", s.maskedBy->reasonId}};
  }
  for (const auto& [name, t] : v.byReason) j["byReason"][name] = tallyJson(t);
  for (const auto& [name, t] : v.byClass) j["byClass"][name] = tallyJson(t);
  for (const auto& [name, t] : v.byConfidence) j["byConfidence"][name] = tallyJson(t);
  // Lint's severity against the runs' blacklisting ("" : observations no prediction names).
  for (const auto& [name, t] : v.bySeverity)
    j["bySeverity"][name.empty() ? "unpredicted" : name] = {
        {"predicted", t.predicted}, {"observed", t.observed}, {"blacklisted", t.blacklisted}};
  j["total"] = tallyJson(v.total);
  out << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace ljcheck
