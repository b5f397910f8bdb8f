// Events to sites (see site_aggregator.h).
#include "site_aggregator.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "ljcheck/abort_mapping.h"

namespace ljcheck {
namespace {

VmNameTables namesOf(const LiveProfile& profile) {
  return {profile.facts.bytecodeNames, profile.facts.fastFunctionNames, profile.irNames};
}

ResolvedAbort resolve(const TraceEvent& ev, const StringPool& strings, const LiveProfile& profile) {
  switch (ev.kind) {
    case TraceEventKind::Stitch: return resolveSplit(SplitKind::Stitch, ev.subject, namesOf(profile));
    case TraceEventKind::Return: return resolveSplit(SplitKind::Return, ev.subject, namesOf(profile));
    case TraceEventKind::Abort:
    case TraceEventKind::ExitFallback:
    case TraceEventKind::CallerExtent: break;
  }
  RawAbort raw{ev.code, ev.subject, profile.traceErrorMessage(ev.code), ev.code < 0 ? strings.text(ev.errorText) : ""};
  return resolveAbort(profile.mappingProfile(), raw, namesOf(profile));
}

// reasonId, path, line, zone, and the trace start (its file's path, line): a site
// aborted from several starts is one record per start, each with its own
// extent and cost, as runtime.md has it and verify joins them.
using SiteKey = std::tuple<ReasonId, std::string, int, StringId, std::string, int>;

struct Group {
  AbortSite site;
  bool benign = false;
};

AbortSite newSite(const ResolvedAbort& r, const TraceEvent& ev, const std::string& path,
                  const StringPool& strings, const AggregationContext& ctx, bool& benign) {
  AbortSite site;
  site.reasonId = r.reasonId;
  site.rawReason = r.vmText;
  site.path = path;
  site.line = ev.line;
  site.zonePath = strings.text(ev.zone);
  if (ev.startSource) {
    site.startPath = ctx.locations.displayPath(strings.text(ev.startSource));
    site.startLine = ev.startLine;
    site.startFunctionLine = ev.startFunctionLine;
    site.extentFirstLine = ev.extentFirstLine;
    site.extentLastLine = ev.extentLastLine;
  }
  if (const Reason* reason = ctx.catalog.find(r.reasonId.code())) {
    site.severity = reason->severity;
    site.reasonClass = reason->reasonClass;
    site.reason = reason->title;
    benign = reason->benign;
  } else {  // a trace error this catalog does not know (a newer VM)
    site.severity = Severity::Warn;
    site.reasonClass = ReasonClass::Risk;
    site.reason = r.vmText;
    benign = false;
  }
  return site;
}

// A trace that runs into code already blacklisted aborts with BLACKL where
// that code's start is: the site that blacklisted a start there (the one
// with the most aborts, another reason before a BLACKL) is the cause. When
// that start was itself blacklisted by running into blacklisted code (a
// cascade: C calls B calls A, A's closure blacklists A, then B, then C),
// the chain is followed to the site to fix, named on the BLACKL site.
void nameBlacklistCauses(std::vector<AbortSite>& sites) {
  std::map<std::string, const AbortSite*> causes;  // by the start location they blacklisted
  auto better = [](const AbortSite& a, const AbortSite* b) {
    if (!b) return true;
    const bool aBlackl = a.reasonId.code() == "BLACKL", bBlackl = b->reasonId.code() == "BLACKL";
    return aBlackl != bBlackl ? !aBlackl : a.count > b->count;
  };
  for (const AbortSite& site : sites) {
    if (site.severity != Severity::Blacklist || site.startPath.empty()) continue;
    const AbortSite*& cause = causes[site.startLocation()];
    if (better(site, cause)) cause = &site;
  }
  for (AbortSite& site : sites) {
    if (site.reasonId.code() != "BLACKL") continue;
    const AbortSite* cause = nullptr;
    std::string at = site.location();
    for (int hop = 0; hop < 16; ++hop) {  // bounded: a chain never loops back in a real run, a forged one might
      auto found = causes.find(at);
      if (found == causes.end() || found->second == &site || found->second == cause) break;
      cause = found->second;
      if (cause->reasonId.code() != "BLACKL") break;
      at = cause->location();
    }
    if (!cause) continue;
    site.blacklistedByLocation = cause->location();
    site.blacklistedByReasonId = cause->reasonId.str();
  }
}

}  // namespace

void aggregateSites(const EventTally& events, const StringPool& strings, const AggregationContext& ctx,
                    TraceReport& report) {
  std::map<SiteKey, Group> groups;
  std::set<std::tuple<std::string, int, int>> blacklistedStarts;  // by the file the start names
  std::unordered_map<StringId, std::string> paths;  // two chunk names may name one file
  auto pathOf = [&](StringId source) -> const std::string& {
    auto [it, fresh] = paths.try_emplace(source);
    if (fresh) it->second = ctx.locations.displayPath(strings.text(source));
    return it->second;
  };
  // Side exits left to the interpreter (TraceEventKind::ExitFallback), by
  // the file, line and pc they name: the side traces that aborted there
  // kept the code from the exit on out of traces, which is their extent.
  // Each (parent trace, exit) is one record; exits of several parents at
  // one pc share their extent. An exit left without aborts of its own (its
  // root had maxside side traces) is counted, but charges no abort site
  // that other exits at its pc had. The frames such an exit, or a stitched
  // trace's start, returns into (CallerExtent) add theirs.
  std::map<std::tuple<std::string, int, int>, std::pair<int, int>> fallbackExits;
  std::map<std::tuple<std::string, int, int>, std::vector<AbortSite::CallerExtent>> callersByStart;
  std::uint64_t exitsLeft = 0;
  for (const auto& [ev, count] : events.records()) {
    const auto exit = std::make_tuple(pathOf(ev.startSource), ev.startLine, ev.startPc);
    if (ev.kind == TraceEventKind::ExitFallback) {
      ++exitsLeft;
      if (ev.afterAborts) fallbackExits.emplace(exit, std::make_pair(ev.extentFirstLine, ev.extentLastLine));
    } else if (ev.kind == TraceEventKind::CallerExtent) {
      AbortSite::CallerExtent caller{pathOf(ev.source), ev.functionLine, ev.extentFirstLine, ev.extentLastLine};
      auto& callers = callersByStart[exit];
      if (std::none_of(callers.begin(), callers.end(), [&](const AbortSite::CallerExtent& known) {
            return known.path == caller.path && known.functionLine == caller.functionLine &&
                   known.firstLine == caller.firstLine && known.lastLine == caller.lastLine;
          }))
        callers.push_back(std::move(caller));
    }
  }
  for (const auto& [ev, count] : events.records()) {
    if (ev.kind == TraceEventKind::ExitFallback || ev.kind == TraceEventKind::CallerExtent) continue;
    if (ev.kind == TraceEventKind::Abort) report.totalAborts += count;
    ResolvedAbort r = resolve(ev, strings, ctx.profile);
    const std::string& path = pathOf(ev.source);
    // The start by the file it names too: one file, one start, whatever chunk name ran it.
    SiteKey key{r.reasonId, path, ev.line, ev.zone, ev.startSource ? pathOf(ev.startSource) : std::string(),
                ev.startSource ? ev.startLine : 0};
    auto it = groups.find(key);
    if (it == groups.end()) {
      Group g;
      g.site = newSite(r, ev, path, strings, ctx, g.benign);
      it = groups.emplace(std::move(key), std::move(g)).first;
    }
    AbortSite& site = it->second.site;
    site.count += count;
    if (ev.blacklistedStart) {
      site.severity = Severity::Blacklist;
      blacklistedStarts.emplace(std::get<4>(it->first), ev.startLine, ev.startPc);
    }
    if (ev.kind == TraceEventKind::Abort && ev.startSource && site.extentFirstLine == 0) {
      auto exit = fallbackExits.find(std::make_tuple(std::get<4>(it->first), ev.startLine, ev.startPc));
      if (exit != fallbackExits.end()) {
        site.fallback = true;
        site.extentFirstLine = exit->second.first;
        site.extentLastLine = exit->second.second;
      }
    }
    if (ev.kind != TraceEventKind::Stitch && ev.startSource && site.callerExtents.empty() && site.extentFirstLine > 0) {
      auto callers = callersByStart.find(std::make_tuple(std::get<4>(it->first), ev.startLine, ev.startPc));
      if (callers != callersByStart.end()) site.callerExtents = callers->second;
    }
  }
  const EventOverflow& overflow = events.overflow();
  report.totalAborts += overflow.aborts;
  report.collector.maxSites = events.maxRecords();
  report.collector.limitReached = events.overflowed();
  report.collector.overflowAborts = overflow.aborts;
  report.collector.overflowSplits = overflow.splits;
  report.blacklisted = blacklistedStarts.size() + overflow.blacklistings;
  report.fallbackExits = exitsLeft + overflow.fallbacks;
  for (auto& [key, group] : groups) {
    // A benign reason that blacklisted its start site is no longer benign.
    if (group.benign && !ctx.includeBenign && group.site.severity != Severity::Blacklist) continue;
    report.sites.push_back(std::move(group.site));
  }
  nameBlacklistCauses(report.sites);
  sortSites(report.sites);
}

}  // namespace ljcheck
