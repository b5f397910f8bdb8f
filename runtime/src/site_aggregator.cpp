// Events to sites (see site_aggregator.h).
#include "site_aggregator.h"

#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "ljcheck/abort_mapping.h"

namespace ljcheck {
namespace {

struct ResolvedReason {
  std::string reasonId;
  std::string code;       // catalog key: TREDEF name, STITCH or RETURN
  std::string rawReason;  // the VM's text with its argument filled in
};

// The name a builtin goes by in a reasonId: vmdef.ffnames, or C.
std::string builtinName(const LiveProfile& profile, int subject) {
  if (subject == kPlainCFunction) return "C";
  std::string name = profile.fastFunctionName(subject);
  return name.empty() ? "ffid" + std::to_string(subject) : name;
}

// Fills the message's one printf argument (%d or %s) as the VM would show it.
std::string fillMessage(const std::string& format, const std::string& number,
                        const std::string& name) {
  std::string text = format;
  if (auto at = text.find("%d"); at != std::string::npos) text.replace(at, 2, number);
  else if (auto at2 = text.find("%s"); at2 != std::string::npos) text.replace(at2, 2, name);
  return text;
}

ResolvedReason resolveAbort(const TraceEvent& ev, const StringPool& strings,
                            const LiveProfile& profile) {
  if (ev.code < 0) return {"RECERR", "RECERR", strings.text(ev.errorText)};
  RawAbort raw;
  raw.code = ev.code;
  raw.message = profile.traceErrorMessage(ev.code);
  std::string code = traceErrorName(profile.mappingProfile(), raw);
  if (code == "NYIBC") raw.infoName = profile.bytecodeName(ev.subject);
  else if (code == "NYIIR") raw.infoName = profile.irName(ev.subject);
  else if (code == "NYIFFU" && ev.subject != kNoSubject) raw.infoName = builtinName(profile, ev.subject);
  std::string number = ev.subject >= 0 ? std::to_string(ev.subject) : "?";
  std::string rawReason = fillMessage(raw.message, number, raw.infoName.empty() ? number : raw.infoName);
  if (rawReason.empty()) rawReason = "trace error " + std::to_string(ev.code);
  return {reasonIdForAbort(profile.mappingProfile(), raw), code, rawReason};
}

ResolvedReason resolveSplit(const TraceEvent& ev, const LiveProfile& profile) {
  bool stitch = ev.kind == TraceEventKind::Stitch;
  std::string code = stitch ? "STITCH" : "RETURN";
  std::string name = builtinName(profile, ev.subject);
  return {code + ":" + name, code, (stitch ? "stitch at " : "return at ") + name};
}

using SiteKey = std::tuple<std::string, std::string, int, StringId>;  // reasonId, path, line, zone

struct Group {
  AbortSite site;
  bool benign = false;
};

AbortSite newSite(const ResolvedReason& r, const TraceEvent& ev, const std::string& path,
                  const StringPool& strings, const AggregationContext& ctx, bool& benign) {
  AbortSite site;
  site.reasonId = r.reasonId;
  site.rawReason = r.rawReason;
  site.path = path;
  site.line = ev.line;
  site.zonePath = strings.text(ev.zone);
  if (const Reason* reason = ctx.catalog.find(r.code)) {
    site.severity = reason->severity;
    site.reasonClass = reason->reasonClass;
    site.reason = reason->title;
    benign = reason->benign;
  } else {  // a trace error this catalog does not know (a newer VM)
    site.severity = Severity::Warn;
    site.reasonClass = ReasonClass::Risk;
    site.reason = r.rawReason;
    benign = false;
  }
  return site;
}

}  // namespace

void aggregateSites(const std::vector<TraceEvent>& events, const StringPool& strings,
                    const AggregationContext& ctx, TraceReport& report) {
  std::map<SiteKey, Group> groups;
  std::set<std::tuple<StringId, int, int>> blacklistedStarts;
  std::unordered_map<StringId, std::string> paths;  // two chunk names may name one file
  for (const TraceEvent& ev : events) {
    bool abort = ev.kind == TraceEventKind::Abort;
    if (abort) ++report.totalAborts;
    ResolvedReason r = abort ? resolveAbort(ev, strings, ctx.profile) : resolveSplit(ev, ctx.profile);
    auto [pathIt, fresh] = paths.try_emplace(ev.source);
    if (fresh) pathIt->second = ctx.locations.displayPath(strings.text(ev.source));
    SiteKey key{r.reasonId, pathIt->second, ev.line, ev.zone};
    auto it = groups.find(key);
    if (it == groups.end()) {
      Group g;
      g.site = newSite(r, ev, pathIt->second, strings, ctx, g.benign);
      it = groups.emplace(std::move(key), std::move(g)).first;
    }
    ++it->second.site.count;
    if (ev.blacklistedStart) {
      it->second.site.severity = Severity::Blacklist;
      blacklistedStarts.emplace(ev.startSource, ev.startLine, ev.startPc);
    }
  }
  report.blacklisted = blacklistedStarts.size();
  for (auto& [key, group] : groups) {
    // A benign reason that blacklisted its start site is no longer benign.
    if (group.benign && !ctx.includeBenign && group.site.severity != Severity::Blacklist) continue;
    report.sites.push_back(std::move(group.site));
  }
  sortSites(report.sites);
}

}  // namespace ljcheck
