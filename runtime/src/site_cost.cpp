// Cost per abort site and the run summary (see ljcheck/site_cost.h).
#include "ljcheck/site_cost.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace ljcheck {

namespace {

// One root trace start that some sites aborted: its function, the lines it
// would have compiled, and those sites by the zone they aborted in.
struct TraceStart {
  int firstLine = 0, lastLine = 0;
  std::map<std::string, std::vector<AbortSite*>> sitesByZone;
  std::vector<AbortSite*>* mainZone = nullptr;  // the zone where it aborted most
};

// The starts of each function, by (path, the function's first line), then
// by (extent, start line): two starts never share an entry, even when the
// collector gave them the same lines, so that no sample counts for both.
using Starts = std::map<std::tuple<int, int, int>, TraceStart>;
using StartsByFunction = std::map<std::pair<std::string, int>, Starts>;

StartsByFunction startsOf(TraceReport& report) {
  StartsByFunction starts;
  auto add = [&starts](AbortSite& site, const std::string& path, int functionLine, int first, int last, int line) {
    TraceStart& start = starts[{path, functionLine}][{first, last, line}];
    start.firstLine = first;
    start.lastLine = last;
    start.sitesByZone[site.zonePath].push_back(&site);
  };
  for (AbortSite& site : report.sites) {
    if (!site.hasExtent() || site.startFunctionLine < 0) continue;
    add(site, site.startPath, site.startFunctionLine, site.extentFirstLine, site.extentLastLine, site.startLine);
    // The frames a fallback exit returns into, as starts of no line of
    // their own: exits that return to the same lines share them.
    for (const AbortSite::CallerExtent& caller : site.callerExtents)
      if (caller.functionLine >= 0 && caller.firstLine > 0)
        add(site, caller.path, caller.functionLine, caller.firstLine, caller.lastLine, 0);
  }
  for (auto& [function, byExtent] : starts)
    for (auto& [extent, start] : byExtent) {
      std::uint64_t most = 0;
      for (auto& [zone, sites] : start.sitesByZone) {
        std::uint64_t aborts = 0;
        for (const AbortSite* site : sites) aborts += site->count;
        if (!start.mainZone || aborts > most) {
          start.mainZone = &sites;
          most = aborts;
        }
      }
    }
  return starts;
}

// The innermost start of `starts` whose lines hold `line`: a loop nested in
// another loop, or in a function whose entry also started a trace, takes
// the samples of its own lines. Null when none holds it.
TraceStart* innermost(Starts& starts, int line) {
  TraceStart* best = nullptr;
  for (auto& [extent, start] : starts) {
    if (line < start.firstLine || line > start.lastLine) continue;
    if (!best || start.lastLine - start.firstLine < best->lastLine - best->firstLine) best = &start;
  }
  return best;
}

// A start's sites of the sample's zone take it; a start that aborted in
// other zones only (it was blacklisted there, and runs interpreted in every
// zone) gives it to the zone where it aborted most, so that no sample
// counts twice.
void charge(TraceStart& start, const std::string& zonePath, std::uint64_t interpreted, std::uint64_t cCode) {
  auto inZone = start.sitesByZone.find(zonePath);
  for (AbortSite* site : inZone != start.sitesByZone.end() ? inZone->second : *start.mainZone) {
    site->interpretedSamples += interpreted;
    site->cCodeSamples += cCode;
  }
}

// The lines where the run saw a split (STITCH, RETURN), and the line after
// each: a builtin there runs in C whether the trace around it compiles or
// not. LuaJIT's profiler takes a C function's sample at the next
// instruction the interpreter runs, on the next line when the call ends
// its own (audit 92: os.date's and LPeg's samples one line below the call).
using Lines = std::set<std::pair<std::string, int>>;
Lines splitLines(const TraceReport& report) {
  Lines out;
  for (const AbortSite& site : report.sites)
    if (site.reasonId.code() == "STITCH" || site.reasonId.code() == "RETURN") {
      out.emplace(site.path, site.line);
      out.emplace(site.path, site.line + 1);
    }
  return out;
}

// Interpreted samples of a function with no trace start of its own, called
// (through Lua frames, pcall or xpcall) from a function whose trace aborted:
// the aborted trace would have recorded that call inline, so the callee runs
// interpreted because of it. The caller's start is the innermost one whose
// lines hold the call (a loop's, or the function entry's), as for the
// caller's own lines; a call outside them all takes no start.
void chargeCallees(StartsByFunction& starts, const SampleReport& samples, const Lines& splits) {
  for (const OffTraceStack& stack : samples.offTraceStacks) {
    std::size_t k = stack.frames.size();
    while (k > 0 && !stack.frames[k - 1].function.isLua()) --k;  // the innermost Lua frame
    if (k == 0) continue;
    const FrameFunction& callee = stack.frames[k - 1].function;
    if (starts.count({callee.path, callee.line})) continue;
    const std::uint64_t cCode = splits.count({callee.path, stack.frames[k - 1].line}) ? 0 : stack.cCodeSamples;
    if (stack.samples == 0 && cCode == 0) continue;
    while (--k > 0) {
      const SampledCall& caller = stack.frames[k - 1];
      if (!caller.function.isLua()) {
        if (caller.function.cName == "pcall" || caller.function.cName == "xpcall") continue;
        break;  // called back from C (a gsub replacement, a sort comparator): never inline
      }
      auto function = starts.find({caller.function.path, caller.function.line});
      if (function == starts.end()) continue;
      if (TraceStart* start = innermost(function->second, caller.line))
        charge(*start, stack.zonePath, stack.samples, cCode);
      break;
    }
  }
}

}  // namespace

void addSiteCosts(TraceReport& report, const SampleReport& samples) {
  report.sampled = true;
  for (AbortSite& site : report.sites) site.interpretedSamples = site.cCodeSamples = 0;
  StartsByFunction starts = startsOf(report);
  const Lines splits = splitLines(report);
  for (const LineSamples& line : samples.lines) {
    const std::uint64_t interpreted = line.states[VmState::Interpreted];
    const std::uint64_t cCode = splits.count({line.path, line.line}) ? 0 : line.states[VmState::CCode];
    if (interpreted == 0 && cCode == 0) continue;
    auto function = starts.find({line.path, line.functionLine});
    if (function == starts.end()) continue;
    TraceStart* start = innermost(function->second, line.line);
    if (start) charge(*start, line.zonePath, interpreted, cCode);
  }
  chargeCallees(starts, samples, splits);
  for (AbortSite& site : report.sites)
    site.costMs = samples.millisecondsOf(site.interpretedSamples + site.cCodeSamples);
}

namespace {

std::string percent(std::uint64_t part, std::uint64_t whole) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return text;
}

// "12.3 KiB": memory figures for people.
std::string kibibytes(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  return text;
}

// The collector's memory, and what the site limit kept out of the sites.
std::string collectorSummary(const CollectorUsage& usage) {
  std::string out = "ljcheck: collector memory " + kibibytes(usage.memoryBytes) + ", site limit " +
                    std::to_string(usage.maxSites) + (usage.limitReached ? " reached" : "") + "\n";
  if (usage.limitReached)
    out += "ljcheck: " + std::to_string(usage.overflowAborts) + " aborts and " + std::to_string(usage.overflowSplits) +
           " splits past the limit are in the totals but in no site (raise it with --max-sites)\n";
  return out;
}

// "N samples every M ms: x% compiled, ..."
std::string samplesSummary(const SampleReport& samples) {
  // No tick came: there is no rate to state, nor shares.
  if (samples.samplesTaken == 0)
    return "ljcheck: no sample was taken: the run used less CPU time than one tick of the profiler's timer "
           "(asked for every " + std::to_string(samples.intervalMs) + " ms)\n";
  const StateCounts& s = samples.states;
  char every[96];
  std::snprintf(every, sizeof every, " samples, one per %.1f ms of CPU time (asked for every %d ms)",
                samples.msPerSample(), samples.intervalMs);
  return "ljcheck: " + std::to_string(samples.samples) + every + ": " + percent(s[VmState::Compiled], samples.samples) +
         " compiled, " +
         percent(s[VmState::Interpreted], samples.samples) + " interpreted, " +
         percent(s[VmState::CCode], samples.samples) + " C code, " +
         percent(s[VmState::Collecting], samples.samples) + " GC, " +
         percent(s[VmState::Compiling], samples.samples) + " JIT compiler\n";
}

}  // namespace

std::string runSummary(const TraceReport& report, const SampleReport* samples, std::size_t topSites) {
  std::string out = samples ? samplesSummary(*samples) : std::string();
  // Splits (STITCH, RETURN) are sites too, not aborts; aborts no site holds
  // are stop-class ones left out without includeBenign, or past the site limit.
  std::uint64_t splits = 0, abortsInSites = 0;
  for (const AbortSite& site : report.sites) {
    const std::string& code = site.reasonId.code();
    (code == "STITCH" || code == "RETURN" ? splits : abortsInSites) += site.count;
  }
  std::uint64_t unsited = report.totalAborts > abortsInSites ? report.totalAborts - abortsInSites : 0;
  unsited = unsited > report.collector.overflowAborts ? unsited - report.collector.overflowAborts : 0;
  out += "ljcheck: " + std::to_string(report.totalAborts) + " trace aborts";
  if (unsited > 0) out += " (" + std::to_string(unsited) + " stop-class, in no site without --include-benign)";
  out += ", " + std::to_string(splits) + " splits (stitched or returned calls), " + std::to_string(report.sites.size()) +
         " sites, " + std::to_string(report.blacklisted) + " blacklisted";
  if (report.fallbackExits > 0)
    out += ", " + std::to_string(report.fallbackExits) + " side exit" + (report.fallbackExits == 1 ? "" : "s") +
           " left to the interpreter";
  out += "\n";
  out += collectorSummary(report.collector);
  std::vector<const AbortSite*> sites;
  for (const AbortSite& site : report.sites) sites.push_back(&site);
  // Sites that aborted one trace start in one zone cost the same samples
  // (addSiteCosts): their costs overlap and do not add up (audit 92: two
  // blockers of one loop, each shown with the whole loop's cost).
  using StartKey = std::tuple<std::string, int, int, int, std::string>;
  auto startOfSite = [](const AbortSite& s) {
    return StartKey{s.startPath, s.startLine, s.extentFirstLine, s.extentLastLine, s.zonePath};
  };
  std::map<StartKey, int> costedOfStart;
  if (samples)
    for (const AbortSite& site : report.sites)
      if (site.hasExtent() && site.costMs > 0) ++costedOfStart[startOfSite(site)];
  if (samples)
    std::stable_sort(sites.begin(), sites.end(),
                     [](const AbortSite* a, const AbortSite* b) { return a->costMs > b->costMs; });
  else
    std::stable_sort(sites.begin(), sites.end(),
                     [](const AbortSite* a, const AbortSite* b) { return a->count > b->count; });
  if (sites.size() > topSites) sites.resize(topSites);
  if (!sites.empty()) out += samples ? "ljcheck: top sites by interpreter cost:\n" : "ljcheck: top sites by count:\n";
  for (const AbortSite* site : sites) {
    // A stitch's trace goes on after the call (no start), and a side
    // trace's abort leaves its parent running (no extent, unless the VM
    // then left its exit to the interpreter): nothing to measure.
    char cost[32];
    if (!site->hasExtent()) std::snprintf(cost, sizeof cost, "%9s   ", "-");
    else std::snprintf(cost, sizeof cost, "%9.1f ms", site->costMs);
    out += std::string("  ") + (samples ? std::string(cost) + "  " : std::string()) + site->reasonId.str() + "  " +
           site->location() + "  x" + std::to_string(site->count);
    std::string why;
    if (site->fallback) why = "side traces from " + site->startLocation() + ", left to the interpreter";
    else if (site->reasonId.code() == "RETURN" && site->hasExtent()) why = "its trace returns to the interpreter here";
    else if (!site->startPath.empty()) why = "trace started at " + site->startLocation();
    if (!site->blacklistedByLocation.empty())
      why += (why.empty() ? "" : "; ") + std::string("ran into code blacklisted by ") + site->blacklistedByReasonId +
             " at " + site->blacklistedByLocation;
    if (samples && site->hasExtent() && site->costMs > 0)
      if (int n = costedOfStart[startOfSite(*site)]; n > 1)
        why += (why.empty() ? "" : "; ") + std::string("cost shared with ") + std::to_string(n - 1) + " other site" +
               (n > 2 ? "s" : "") + " of that start";
    if (!why.empty()) out += "  (" + why + ")";
    out += "\n";
  }
  return out;
}

}  // namespace ljcheck
