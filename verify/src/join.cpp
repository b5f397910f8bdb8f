// The join on (location, reasonId) and the per-reason and per-class tallies.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "chunk_names.h"
#include "ljcheck/project_path.h"
#include "ljcheck/reason.h"
#include "ljcheck/verify.h"

namespace ljcheck {

namespace {

std::optional<double> ratio(long part, long whole) {
  if (whole == 0) return std::nullopt;
  return static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

std::optional<double> Tally::precision() const { return ratio(confirmed, confirmed + latent); }

std::optional<double> Tally::recall() const { return ratio(confirmed, confirmed + missed); }

std::string formatRatio(const std::optional<double>& ratio, std::string_view none) {
  return ratio ? fmt::format("{:.2f}", *ratio) : std::string(none);
}

std::string_view severityWord(const std::string& severity) {
  if (severity == "blacklist") return "error";
  if (severity == "warn") return "warning";
  if (severity == "info") return "note";
  return severity;
}

namespace {

// Whether lint predicted the site (whatever the runs say of it).
bool isPredicted(const JoinedSite& site) {
  return site.status != JoinedSite::Status::Missed && site.status != JoinedSite::Status::LoadedChunk &&
         site.status != JoinedSite::Status::Follows;
}

}  // namespace

std::string_view lintSeverityWord(const JoinedSite& site) {
  return isPredicted(site) ? severityWord(site.severity) : "-";
}

std::string runOutcome(const JoinedSite& site) {
  std::string out = site.blacklisted ? "blacklisted" : "";
  if (site.fallback) out += (out.empty() ? "" : "; ") + std::string("left to the interpreter");
  if (site.blacklistedBy)
    out += (out.empty() ? "" : "; ") + std::string("ran into code blacklisted by ") + site.blacklistedBy->location +
           " " + site.blacklistedBy->reasonId;
  else if (site.sameStartAs)
    out += (out.empty() ? "" : "; ") + std::string("aborted the same trace start as ") + site.sameStartAs->location +
           " " + site.sameStartAs->reasonId;
  if (site.interpretedBehind)
    out += (out.empty() ? "" : "; ") + std::string("its function's calls ran interpreted in the loop ") +
           site.interpretedBehind->location + " " + site.interpretedBehind->reasonId + " blacklists";
  return out;
}

std::string_view toString(JoinedSite::Status s) {
  switch (s) {
    case JoinedSite::Status::Confirmed: return "confirmed";
    case JoinedSite::Status::Missed: return "missed";
    case JoinedSite::Status::Latent: return "latent";
    case JoinedSite::Status::Unexercised: return "unexercised";
    case JoinedSite::Status::Masked: return "masked";
    case JoinedSite::Status::LoadedChunk: return "loaded-chunk";
    case JoinedSite::Status::Follows: return "follows";
  }
  return "confirmed";
}

namespace {

using Key = std::pair<std::string, std::string>;  // location, reasonId

void checkCompatible(const SiteReport& lint, const SiteReport& run, const VerifyOptions& options) {
  const ReportEnvelope& a = lint.envelope;
  const ReportEnvelope& b = run.envelope;
  if (a.reasonCatalogId != b.reasonCatalogId)
    throw ReportError(run.file + ": written under reason catalog '" + b.reasonCatalogId + "', " + lint.file +
                      " under '" + a.reasonCatalogId + "'");
  auto named = [](const ProfileRef& p) { return p.name.empty() ? p.id : p.name; };
  if (a.traceProfile.id != b.traceProfile.id && !options.allowProfileMismatch)
    throw ReportError("refusing to join " + lint.file + " (recorder profile " + named(a.traceProfile) + ") with " +
                      run.file + " (recorder profile " + named(b.traceProfile) +
                      "): predictions for one LuaJIT build do not hold for another; lint with --profile "
                      "matching the run, or pass --allow-profile-mismatch");
}

std::string classOf(const std::string& reasonId, const std::string& given) {
  if (!given.empty()) return given;
  const Reason* r = ReasonCatalog::builtin().find(ReasonId::parse(reasonId).code());
  return r ? std::string(toString(r->reasonClass)) : "risk";
}

bool isBenign(const std::string& reasonId) {
  const Reason* r = ReasonCatalog::builtin().find(ReasonId::parse(reasonId).code());
  return r && r->benign;
}

// "a, b, c and 4 more": the first `most` names of `all`, and how many are left.
template <class Names, class NameOf>
std::string someOf(const Names& all, std::size_t most, NameOf nameOf) {
  std::string text;
  std::size_t shown = 0;
  for (const auto& entry : all)
    if (shown++ < most) text += (text.empty() ? "" : ", ") + nameOf(entry);
  if (all.size() > most) text += " and " + std::to_string(all.size() - most) + " more";
  return text;
}

const std::string& itself(const std::string& name) { return name; }

bool isProcessWide(const std::string& reasonId) {
  const Reason* r = ReasonCatalog::builtin().find(ReasonId::parse(reasonId).code());
  return r && r->processWide;
}

// Shows a run's paths as the lint report's root does. Reports written under
// different roots are rebased (and the reader told); a report without a root
// cannot be, and the reader is told that too.
class Rebase {
 public:
  Rebase(const SiteReport& lint, const SiteReport& run, std::vector<std::string>& warnings)
      : target_(lint.envelope.root.empty() ? "/" : lint.envelope.root, "/"),
        source_(run.envelope.root.empty() ? "/" : run.envelope.root, "/") {
    const std::string& to = lint.envelope.root;
    const std::string& from = run.envelope.root;
    if (to == from) return;
    if (to.empty() || from.empty()) {
      const SiteReport& without = to.empty() ? lint : run;
      warnings.push_back(without.file + " does not say which root its paths are relative to; joined as written");
      return;
    }
    warnings.push_back(run.file + " was written with root " + from + ", " + lint.file + " with root " + to +
                       "; the runtime locations are rebased onto " + to);
    active_ = true;
  }
  std::string path(const std::string& shown) const {
    return active_ && isFilePath(shown) ? target_.rebase(shown, source_) : shown;
  }
  std::string location(const std::string& shown) const {  // "path:line"
    if (!active_) return shown;
    auto colon = shown.rfind(':');
    if (colon == std::string::npos) return shown;
    return path(shown.substr(0, colon)) + shown.substr(colon);
  }

 private:
  ProjectRoot target_, source_;
  bool active_ = false;
};

// The line's number for sorting: "fixtures/a.lua:10" after "fixtures/a.lua:9".
bool byPathThenLine(const JoinedSite& a, const JoinedSite& b) {
  if (a.status != b.status) return a.status < b.status;
  if (a.path != b.path) return a.path < b.path;
  if (a.line != b.line) return a.line < b.line;
  return a.reasonId < b.reasonId;
}

// The bytecodes that can carry a prediction of this reasonId; empty: any.
// A line holds code of several functions (a closure's FNEW and its own
// return) and several calls: that the recorder visited the line says nothing
// about the predicted instruction.
// Strings, not views: a subject viewed in the parsed id would dangle once
// the id goes out of scope here.
std::vector<std::string> carriers(const std::string& reasonId) {
  ReasonId id = ReasonId::parse(reasonId);
  const std::string& code = id.code();
  static const std::vector<std::string> calls = {"CALL", "CALLM", "CALLT", "CALLMT", "ITERC", "ITERN"};
  if (code == "NYIBC" && !id.subject().empty()) return {std::string(id.subject())};
  if (code == "STITCH" || code == "RETURN" || code == "NYIFFU" || code == "NYICALL" || code == "NYICONV" ||
      code == "BADTYPE" || code == "CJITOFF")
    return calls;
  if (code == "DOWNREC") return {"RET", "RET0", "RET1", "RETM"};
  if (code == "NYIRETL") return {"RET", "RET0", "RET1", "RETM", "CALLT", "CALLMT"};
  return {};
}

// The instructions the VM may hold for these when it runs them: its ISNEXT
// turns the ITERN of a loop whose iterator is not `next` into ITERC
// (BC_ISNEXT, "despecialize", in vm_x64.dasc), and the collector names what
// it finds in memory.
std::vector<std::string> withRewrites(const std::set<std::string>& instructions) {
  std::vector<std::string> out(instructions.begin(), instructions.end());
  if (instructions.count("ITERN")) out.emplace_back("ITERC");
  return out;
}

void count(Tally& t, JoinedSite::Status status) {
  switch (status) {
    case JoinedSite::Status::Confirmed: ++t.confirmed; break;
    case JoinedSite::Status::Missed: ++t.missed; break;
    case JoinedSite::Status::Latent: ++t.latent; break;
    case JoinedSite::Status::Unexercised: ++t.unexercised; break;
    case JoinedSite::Status::Masked: ++t.masked; break;
    case JoinedSite::Status::LoadedChunk: ++t.loadedChunk; break;
    case JoinedSite::Status::Follows: ++t.follows; break;
  }
}

}  // namespace

void sortByCost(Verification& v) {
  std::stable_sort(v.sites.begin(), v.sites.end(),
                   [](const JoinedSite& a, const JoinedSite& b) { return a.costMs > b.costMs; });
}

namespace {

// What the runs observed, merged, with the paths the lint report's root shows.
struct Observations {
  std::map<Key, JoinedSite> sites;
  std::set<std::string> visited;  // "path:line" under the lint report's root
  std::map<std::string, std::set<std::string>> instructions;  // "path:line" -> bytecode names
  bool byInstruction = false;  // every run with coverage says which bytecodes it visited
  bool coverage = false, sampled = false;
  // What each observed site cost in each run, by the trace start it aborted
  // (costByZone counts a start once).
  struct RunCost {
    std::size_t run;
    std::string start, zone;
    double costMs;
  };
  std::map<Key, std::vector<RunCost>> costs;
  // The trace starts each observed site aborted, in any run.
  std::map<Key, std::set<std::string>> starts;
};

Observations mergeRuns(const SiteReport& lint, const std::vector<SiteReport>& runs, const VerifyOptions& options,
                       std::vector<std::string>& warnings) {
  Observations o;
  o.byInstruction = !runs.empty();
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const SiteReport& run = runs[r];
    checkCompatible(lint, run, options);
    Rebase rebase(lint, run, warnings);
    if (run.siteLimitReached)
      warnings.push_back(run.file + " reached its site limit (" + std::to_string(run.maxSites) + " sites): " +
                         std::to_string(run.overflowAborts) + " aborts and " + std::to_string(run.overflowSplits) +
                         " splits are in no site, so some predictions may show as latent; run again with a "
                         "higher --max-sites");
    o.coverage = o.coverage || run.hasCoverage;
    o.sampled = o.sampled || run.sampled;
    for (const auto& line : run.visited) o.visited.insert(rebase.location(line));
    if (run.hasCoverage && run.visitedInstructions.empty() && !run.visited.empty()) o.byInstruction = false;
    for (const auto& [line, names] : run.visitedInstructions)
      o.instructions[rebase.location(line)].insert(names.begin(), names.end());
    // The starts this run blacklisted: the abort that did it names the
    // start, and every other abort of that start shares the outcome.
    std::set<std::string> blacklistedStarts;
    for (const ReportSite& s : run.sites)
      if (s.severity == "blacklist" && !s.start.empty()) blacklistedStarts.insert(rebase.location(s.start));
    // Sites of one trace start share its extent: each one's cost is the same samples.
    // (Of one zone: the collector gives a start's samples of a zone to its
    // sites of that zone only.)
    std::map<std::pair<std::string, std::string>, int> sitesOfStart;
    for (const ReportSite& s : run.sites)
      if (!s.start.empty() && s.costMs > 0) ++sitesOfStart[{s.start, s.zonePath}];
    // A site aborted from several trace starts (or in several zones) has a
    // row per start and zone; the collector charges each sample to one
    // start and zone (site_cost.h: a nested loop's start, not the outer
    // one's), so the rows' costs add up to the site's cost in this run.
    std::map<Key, double> costInRun;
    for (ReportSite s : run.sites) {
      const bool shared = !s.start.empty() && s.costMs > 0 && sitesOfStart[{s.start, s.zonePath}] > 1;
      s.path = rebase.path(s.path);
      auto& site = o.sites[{s.location(), s.reasonId}];
      site.costShared = site.costShared || shared;
      site.costMeasured = site.costMeasured || s.costMeasured;
      if (s.costMs > 0) o.costs[{s.location(), s.reasonId}].push_back({r, s.start, s.zonePath, s.costMs});
      if (!s.start.empty()) o.starts[{s.location(), s.reasonId}].insert(rebase.location(s.start));
      costInRun[{s.location(), s.reasonId}] += s.costMs;
      site.reasonId = s.reasonId;
      site.location = s.location();
      site.path = s.path;
      site.line = s.line;
      site.reasonClass = classOf(s.reasonId, s.reasonClass);
      if (site.severity.empty() || s.severity == "blacklist") site.severity = s.severity;
      site.observedCount = saturatingAdd(site.observedCount, s.count);
      site.blacklisted = site.blacklisted || s.severity == "blacklist" ||
                         (!s.start.empty() && blacklistedStarts.count(rebase.location(s.start)) > 0);
      site.fallback = site.fallback || s.fallback;
      if (s.blacklistedBy && !site.blacklistedBy)
        site.blacklistedBy = SiteRef{rebase.location(s.blacklistedBy->location), s.blacklistedBy->reasonId};
      long& inZone = site.observedByZone[s.zonePath];
      inZone = saturatingAdd(inZone, s.count);
    }
    for (const auto& [key, cost] : costInRun) o.sites[key].costMs += cost;
  }
  for (auto& [key, site] : o.sites) {  // shown under the zone it was observed in most
    long most = -1;
    for (const auto& [zone, count] : site.observedByZone)
      if (count > most) {
        most = count;
        site.zonePath = zone;
      }
  }
  return o;
}

// Whether some run kept stop-class aborts that blacklisted nothing as
// sites (ljcheck run --include-benign; from older reports, whether one
// holds such a site). Without runs there is nothing to tell.
bool recordsStopClass(const std::vector<SiteReport>& runs) {
  if (runs.empty()) return true;
  for (const auto& run : runs) {
    if (run.includesBenign) {
      if (*run.includesBenign) return true;
      continue;
    }
    for (const auto& s : run.sites)
      if (isBenign(s.reasonId) && s.severity != "blacklist") return true;
  }
  return false;
}

// Each prediction (once per site and reasonId) with its status: confirmed,
// masked, unexercised or latent. `predicted` collects their keys. A
// stop-class prediction no run observed, when no run kept such aborts as
// sites, is not judged at all: the runs could not have shown it (audit 49:
// three LINNER and DOWNREC sites `-jv` showed were "latent"); their
// reasonIds go to `unjudged`.
std::vector<JoinedSite> judgePredictions(const SiteReport& lint, const Observations& o, bool stopClassRecorded,
                                         std::set<Key>& predicted, std::map<std::string, long>& unjudged) {
  // The instructions the predictions of each site are about ("" for one
  // that names none: an older lint report, a function's entry).
  std::map<Key, std::set<std::string>> predictedInstructions;
  for (const auto& s : lint.sites) predictedInstructions[{s.location(), s.reasonId}].insert(s.instruction);
  // And the loads of their callees: a call counts as exercised only when
  // its callee's load ran too, if any prediction of the site names one
  // ("" when one does not: the call alone decides).
  std::map<Key, std::set<std::string>> calleeLoads;
  for (const auto& s : lint.sites) calleeLoads[{s.location(), s.reasonId}].insert(s.calleeInstruction);
  // Whether the runs recorded the predicted instruction (or, from older
  // collectors, its line). A call's prediction names its instruction: the
  // CALL of string.gmatch and the ITERC of the loop it feeds share a line,
  // and recording only the loop does not exercise the call.
  auto exercised = [&](const std::string& location, const std::string& reasonId) {
    if (!o.visited.count(location)) return false;
    if (!o.byInstruction) return true;
    auto wanted = carriers(reasonId);
    if (wanted.empty()) return true;
    // Every site asked about is a lint site, so its key is there.
    const std::set<std::string>& named = predictedInstructions.at({location, reasonId});
    if (!named.count("")) wanted = withRewrites(named);
    auto it = o.instructions.find(location);
    if (it == o.instructions.end()) return false;
    if (!std::any_of(wanted.begin(), wanted.end(), [&](const std::string& op) { return it->second.count(op) > 0; }))
      return false;
    const std::set<std::string>& loads = calleeLoads.at({location, reasonId});
    return loads.count("") > 0 ||
           std::any_of(loads.begin(), loads.end(), [&](const std::string& op) { return it->second.count(op) > 0; });
  };
  std::vector<JoinedSite> sites;
  for (const auto& s : lint.sites) {
    Key key{s.location(), s.reasonId};
    if (!predicted.insert(key).second) continue;
    auto it = o.sites.find(key);
    if (it == o.sites.end() && !stopClassRecorded && isBenign(s.reasonId)) {
      ++unjudged[s.reasonId];
      continue;
    }
    JoinedSite site;
    site.reasonId = s.reasonId;
    site.location = s.location();
    site.path = s.path;
    site.line = s.line;
    site.reasonClass = classOf(s.reasonId, s.reasonClass);
    site.severity = s.severity;
    site.confidence = s.confidence;
    site.maskedBy = s.maskedBy;
    if (it != o.sites.end()) {
      site.status = JoinedSite::Status::Confirmed;
      site.observedCount = it->second.observedCount;
      site.costMs = it->second.costMs;
      site.costShared = it->second.costShared;
      site.costMeasured = it->second.costMeasured;
      site.zonePath = it->second.zonePath;
      site.observedByZone = it->second.observedByZone;
      site.blacklisted = it->second.blacklisted;
      site.fallback = it->second.fallback;
      site.blacklistedBy = it->second.blacklistedBy;
    } else if (s.masked) {
      site.status = JoinedSite::Status::Masked;  // not a finding of its own: the masking site is the one to fix
    } else if (o.coverage && !exercised(site.location, site.reasonId)) {
      site.status = JoinedSite::Status::Unexercised;
    } else {
      site.status = JoinedSite::Status::Latent;
    }
    sites.push_back(std::move(site));
  }
  return sites;
}

// A predicted site that was observed aborting one of the trace starts the
// observed site `key` aborted, if any.
std::optional<SiteRef> predictedOfSameStart(const Observations& o, const Key& key, const std::set<Key>& predicted) {
  auto mine = o.starts.find(key);
  if (mine == o.starts.end()) return std::nullopt;
  for (const Key& other : predicted) {
    auto theirs = o.starts.find(other);
    if (theirs == o.starts.end()) continue;
    for (const std::string& start : mine->second)
      if (theirs->second.count(start)) return SiteRef{other.first, other.second};
  }
  return std::nullopt;
}

// The predicted blocker whose blacklisted loop blacklists, through its
// interpreted calls, the function entry an observation is about: a BLACKL
// at that entry, or a stop-class abort of a trace started there that
// blacklisted it (ReportSite::blacklistsEntry).
std::optional<SiteRef> behindBlacklistedLoop(const SiteReport& lint, const Observations& o, const Key& key,
                                             const JoinedSite& observed) {
  std::set<std::string> where;
  if (observed.reasonId == "BLACKL") where.insert(observed.location);
  if (isBenign(observed.reasonId) && observed.severity == "blacklist")
    if (auto starts = o.starts.find(key); starts != o.starts.end()) where.insert(starts->second.begin(), starts->second.end());
  if (where.empty()) return std::nullopt;
  for (const ReportSite& p : lint.sites)
    if (!p.blacklistsEntry.empty() && where.count(p.blacklistsEntry)) return SiteRef{p.location(), p.reasonId};
  return std::nullopt;
}

// The observations no prediction names: missed, or in a loaded chunk, or
// following a predicted site (Status::Follows). Left out, with a warning
// each: those in files lint did not analyze, aborts of the whole JIT, and
// stop-class aborts that blacklisted nothing (unless asked for).
void judgeUnpredicted(const SiteReport& lint, const Observations& o, const std::set<Key>& predicted,
                      const VerifyOptions& options, Verification& v) {
  long processWide = 0;
  std::set<std::string> processWideReasons;
  std::map<std::string, long> unlinted;  // file -> observations in files lint did not analyze
  for (const auto& [key, observed] : o.sites) {
    if (predicted.count(key)) continue;
    // Lint could not have predicted anything in a file it did not analyze
    // (not given to it, or it did not compile): no missed site there.
    if (lint.linted && isFilePath(observed.path) && !lint.linted->count(observed.path)) {
      unlinted[observed.path] = saturatingAdd(unlinted[observed.path], observed.observedCount);
      continue;
    }
    // Machine-code memory running out lands on whatever was recording: no
    // site's code, so no missed prediction either.
    if (isProcessWide(observed.reasonId)) {
      processWide = saturatingAdd(processWide, observed.observedCount);
      processWideReasons.insert(observed.reasonId);
      continue;
    }
    // Stop-class aborts are trace formation at work: one no prediction names
    // is left out unless asked for, or unless it blacklisted its loop.
    if (isBenign(observed.reasonId) && !options.includeBenign && observed.severity != "blacklist") continue;
    JoinedSite site = observed;
    site.status = fromLoadedChunk(site.path) ? JoinedSite::Status::LoadedChunk : JoinedSite::Status::Missed;
    // A function entry a predicted blocker's loop blacklists through its
    // interpreted calls: its own LLEAVE, and the BLACKL of traces that call it.
    if (std::optional<SiteRef> behind = behindBlacklistedLoop(lint, o, key, observed)) {
      site.status = JoinedSite::Status::Follows;
      site.interpretedBehind = std::move(behind);
      v.sites.push_back(std::move(site));
      continue;
    }
    // Code a run blacklisted for a predicted site: that site is the one to fix.
    if (site.blacklistedBy && predicted.count({site.blacklistedBy->location, site.blacklistedBy->reasonId}))
      site.status = JoinedSite::Status::Follows;
    // A stop-class abort of a blacklisted trace start a predicted site
    // aborted too: fixing that site removes both, whichever came eleventh
    // (audit 79: with --include-benign an LLEAVE that was not the eleventh,
    // its start blacklisted by the predicted UCLO, was missed).
    else if (isBenign(observed.reasonId) && observed.blacklisted)
      if (std::optional<SiteRef> same = predictedOfSameStart(o, key, predicted)) {
        site.status = JoinedSite::Status::Follows;
        site.sameStartAs = std::move(same);
      }
    v.sites.push_back(std::move(site));
  }
  if (!unlinted.empty()) {
    long count = 0;
    for (const auto& entry : unlinted) count = saturatingAdd(count, entry.second);
    auto file = [](const std::pair<const std::string, long>& entry) { return entry.first; };
    v.warnings.push_back(std::to_string(count) + " observations in " + std::to_string(unlinted.size()) +
                         " files the lint report did not analyze (" + someOf(unlinted, 3, file) +
                         ") are left out: lint them too to judge them");
  }
  if (processWide > 0) {
    v.warnings.push_back(std::to_string(processWide) + " aborts of the whole JIT (" +
                         someOf(processWideReasons, processWideReasons.size(), itself) +
                         ": machine-code memory ran out) landed on whatever line was recording; they are no "
                         "site's cost and are not counted as missed (raise maxmcode: luajit -Omaxmcode=...)");
  }
}

// A trace error this catalog does not know: a newer VM (the collector
// names it from the VM's own message), or a damaged report.
void warnOfUnknownReasons(const SiteReport& lint, const std::vector<SiteReport>& runs, Verification& v) {
  std::set<std::string> unknown;
  for (const auto& run : runs)
    for (const auto& s : run.sites)
      if (!ReasonCatalog::builtin().find(ReasonId::parse(s.reasonId).code())) unknown.insert(s.reasonId);
  for (const auto& s : lint.sites)
    if (!ReasonCatalog::builtin().find(ReasonId::parse(s.reasonId).code())) unknown.insert(s.reasonId);
  if (!unknown.empty()) {
    v.warnings.push_back("reasonIds this reason catalog does not know: " + someOf(unknown, 5, itself) +
                         " (a newer LuaJIT, or a report written by hand or damaged); they are joined as written");
  }
}

// The cost of each zone: a trace start's cost once per run, however many
// of the sites shown aborted it.
void addCostByZone(const Observations& o, Verification& v) {
  std::map<std::tuple<std::size_t, std::string, std::string>, double> byStart;  // (run, zone, start) -> cost
  for (const auto& s : v.sites) {
    auto it = s.observedCount > 0 ? o.costs.find({s.location, s.reasonId}) : o.costs.end();
    if (it == o.costs.end()) continue;
    for (const Observations::RunCost& c : it->second) {
      if (c.start.empty()) {  // no start to share: its own
        v.costByZone[c.zone] += c.costMs;
        continue;
      }
      double& cost = byStart[{c.run, c.zone, c.start}];
      cost = std::max(cost, c.costMs);
    }
  }
  for (const auto& [key, cost] : byStart) v.costByZone[std::get<1>(key)] += cost;
}

// A BLACKL that ran into code blacklisted by a row that itself follows a
// predicted site follows it too: fixing that site removes the chain
// (audit 79: a BLACKL behind an LLEAVE that aborted the same start as a
// predicted VARG stayed missed).
void followThroughFollowing(Verification& v) {
  for (bool changed = true; changed;) {
    changed = false;
    std::set<std::pair<std::string, std::string>> following;
    for (const auto& s : v.sites)
      if (s.status == JoinedSite::Status::Follows) following.insert({s.location, s.reasonId});
    for (auto& s : v.sites)
      if (s.status == JoinedSite::Status::Missed && s.blacklistedBy &&
          following.count({s.blacklistedBy->location, s.blacklistedBy->reasonId})) {
        s.status = JoinedSite::Status::Follows;
        changed = true;
      }
  }
}

void addTallies(Verification& v) {
  for (const auto& s : v.sites) {
    for (Tally* t : {&v.byReason[s.reasonId], &v.byClass[s.reasonClass], &v.total}) count(*t, s.status);
    const bool predictedSite = isPredicted(s);
    if (predictedSite) count(v.byConfidence[s.confidence.empty() ? "unknown" : s.confidence], s.status);
    SeverityTally& bySeverity = v.bySeverity[predictedSite ? s.severity : std::string()];
    bySeverity.predicted += predictedSite;
    bySeverity.observed += s.observedCount > 0;
    bySeverity.blacklisted += s.blacklisted;
  }
}

}  // namespace

Verification verify(const SiteReport& lint, const std::vector<SiteReport>& runs, const VerifyOptions& options) {
  Verification v;
  v.envelope = lint.envelope;
  v.envelope.kind = "verification";
  const Observations observations = mergeRuns(lint, runs, options, v.warnings);
  v.coverage = observations.coverage;
  v.sampled = observations.sampled;
  std::set<Key> predicted;
  std::map<std::string, long> unjudged;  // stop-class reasonId -> predictions the runs could not show
  v.sites = judgePredictions(lint, observations, recordsStopClass(runs), predicted, unjudged);
  if (!unjudged.empty()) {
    long count = 0;
    for (const auto& entry : unjudged) count += entry.second;
    auto reason = [](const std::pair<const std::string, long>& entry) { return entry.first; };
    v.warnings.push_back(std::to_string(count) + " stop-class predictions (" + someOf(unjudged, 5, reason) +
                         ") are not judged: no runtime report kept stop-class aborts as sites (record them with "
                         "ljcheck run --include-benign)");
  }
  warnOfUnknownReasons(lint, runs, v);
  judgeUnpredicted(lint, observations, predicted, options, v);
  followThroughFollowing(v);
  std::stable_sort(v.sites.begin(), v.sites.end(), byPathThenLine);
  addCostByZone(observations, v);
  addTallies(v);
  if (!runs.empty() && !v.coverage)
    v.warnings.push_back("no runtime report recorded coverage (ljcheck run records it unless --no-coverage): "
                         "latent predictions include lines the runs never exercised");
  return v;
}

}  // namespace ljcheck
