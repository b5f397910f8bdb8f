// The join on (location, reasonId) and the per-reason and per-class tallies.
#include <algorithm>
#include <set>

#include "ljcheck/reason.h"
#include "ljcheck/verify.h"

namespace ljcheck {

double Tally::precision() const {
  return confirmed + latent == 0 ? 1.0 : static_cast<double>(confirmed) / static_cast<double>(confirmed + latent);
}

double Tally::recall() const {
  return confirmed + missed == 0 ? 1.0 : static_cast<double>(confirmed) / static_cast<double>(confirmed + missed);
}

std::string_view toString(JoinedSite::Status s) {
  switch (s) {
    case JoinedSite::Status::Confirmed: return "confirmed";
    case JoinedSite::Status::Missed: return "missed";
    case JoinedSite::Status::Latent: return "latent";
  }
  return "confirmed";
}

namespace {

using Key = std::pair<std::string, std::string>;  // location, reasonId

void checkCompatible(const SiteReport& lint, const SiteReport& run, const VerifyOptions& options) {
  if (lint.catalogId != run.catalogId)
    throw ReportError(run.file + ": written under reason catalog '" + run.catalogId + "', " + lint.file +
                      " under '" + lint.catalogId + "'");
  if (lint.profileId != run.profileId && !options.allowProfileMismatch)
    throw ReportError("refusing to join " + lint.file + " (recorder profile " +
                      (lint.profileName.empty() ? lint.profileId : lint.profileName) + ") with " + run.file +
                      " (recorder profile " + (run.profileName.empty() ? run.profileId : run.profileName) +
                      "): predictions for one LuaJIT build do not hold for another; lint with --profile "
                      "matching the run, or pass --allow-profile-mismatch");
}

std::string classOf(const std::string& reasonId, const std::string& given) {
  if (!given.empty()) return given;
  const Reason* r = ReasonCatalog::builtin().find(ReasonId::parse(reasonId).code);
  return r ? std::string(toString(r->reasonClass)) : "risk";
}

bool isBenign(const std::string& reasonId) {
  const Reason* r = ReasonCatalog::builtin().find(ReasonId::parse(reasonId).code);
  return r && r->benign;
}

}  // namespace

Verification verify(const SiteReport& lint, const std::vector<SiteReport>& runs, const VerifyOptions& options) {
  Verification v;
  v.profileId = lint.profileId;
  v.profileName = lint.profileName;
  std::map<Key, JoinedSite> observed;
  for (const auto& run : runs) {
    checkCompatible(lint, run, options);
    for (const auto& s : run.sites) {
      if (isBenign(s.reasonId)) continue;  // stop-class aborts are not predictions' business
      auto& site = observed[{s.location, s.reasonId}];
      site.reasonId = s.reasonId;
      site.location = s.location;
      site.reasonClass = classOf(s.reasonId, s.reasonClass);
      if (site.severity.empty() || s.severity == "blacklist") site.severity = s.severity;
      site.observedCount += s.count;
    }
  }
  std::set<Key> predicted;
  for (const auto& s : lint.sites) {
    Key key{s.location, s.reasonId};
    if (!predicted.insert(key).second) continue;
    auto it = observed.find(key);
    JoinedSite site;
    site.reasonId = s.reasonId;
    site.location = s.location;
    site.reasonClass = classOf(s.reasonId, s.reasonClass);
    site.severity = s.severity;
    if (it != observed.end()) {
      site.status = JoinedSite::Status::Confirmed;
      site.observedCount = it->second.observedCount;
    } else {
      site.status = JoinedSite::Status::Latent;
    }
    v.sites.push_back(std::move(site));
  }
  for (auto& [key, site] : observed) {
    if (predicted.count(key)) continue;
    site.status = JoinedSite::Status::Missed;
    v.sites.push_back(site);
  }
  std::stable_sort(v.sites.begin(), v.sites.end(), [](const JoinedSite& a, const JoinedSite& b) {
    if (a.status != b.status) return a.status < b.status;
    return a.location != b.location ? a.location < b.location : a.reasonId < b.reasonId;
  });
  for (const auto& s : v.sites) {
    for (Tally* t : {&v.byReason[s.reasonId], &v.byClass[s.reasonClass], &v.total}) {
      switch (s.status) {
        case JoinedSite::Status::Confirmed: ++t->confirmed; break;
        case JoinedSite::Status::Missed: ++t->missed; break;
        case JoinedSite::Status::Latent: ++t->latent; break;
      }
    }
  }
  return v;
}

}  // namespace ljcheck
