// Cost per abort site and the run summary (see ljcheck/site_cost.h).
#include "ljcheck/site_cost.h"

#include <algorithm>
#include <cstdio>

namespace ljcheck {

void addSiteCosts(TraceReport& report, const SampleReport& samples) {
  report.sampled = true;
  for (AbortSite& site : report.sites) {
    site.interpretedSamples = 0;
    if (site.startPath.empty() || site.extentFirstLine <= 0) continue;
    for (const LineSamples& line : samples.lines)
      if (line.path == site.startPath && line.line >= site.extentFirstLine && line.line <= site.extentLastLine)
        site.interpretedSamples += line.states[VmState::Interpreted];
    site.costMs = samples.millisecondsOf(site.interpretedSamples);
  }
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
         " sites, " + std::to_string(report.blacklisted) + " blacklisted\n";
  out += collectorSummary(report.collector);
  std::vector<const AbortSite*> sites;
  for (const AbortSite& site : report.sites) sites.push_back(&site);
  if (samples)
    std::stable_sort(sites.begin(), sites.end(),
                     [](const AbortSite* a, const AbortSite* b) { return a->costMs > b->costMs; });
  else
    std::stable_sort(sites.begin(), sites.end(),
                     [](const AbortSite* a, const AbortSite* b) { return a->count > b->count; });
  if (sites.size() > topSites) sites.resize(topSites);
  if (!sites.empty()) out += samples ? "ljcheck: top sites by interpreter cost:\n" : "ljcheck: top sites by count:\n";
  for (const AbortSite* site : sites) {
    // A split's trace does not die (no start, no extent): nothing to measure.
    char cost[32];
    if (site->startPath.empty()) std::snprintf(cost, sizeof cost, "%9s   ", "-");
    else std::snprintf(cost, sizeof cost, "%9.1f ms", site->costMs);
    out += std::string("  ") + (samples ? std::string(cost) + "  " : std::string()) + site->reasonId.str() + "  " +
           site->location() + "  x" + std::to_string(site->count);
    if (!site->startPath.empty()) out += "  (trace started at " + site->startLocation() + ")";
    out += "\n";
  }
  return out;
}

}  // namespace ljcheck
