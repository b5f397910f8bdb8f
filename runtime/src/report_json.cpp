// The trace report as the runtime JSON `ljcheck verify` reads: the report
// envelope (ljcheck/report_envelope.h), then the sites.
#include <nlohmann/json.hpp>

#include "ljcheck/sample_report.h"
#include "ljcheck/trace_report.h"

namespace ljcheck {

namespace {

using Json = nlohmann::ordered_json;

Json stateCounts(const StateCounts& states) {
  Json out = Json::object();
  for (int i = 0; i < kVmStateCount; ++i) out[fieldName(static_cast<VmState>(i))] = states.counts[i];
  return out;
}

// The sampled stacks for a flame graph: the most frequent kMaxJsonStacks
// (zone, stack) rows, root frame first, with their counts by VM state; the
// rows past the cap are counted in droppedStacks and droppedSamples.
void addStacks(Json& doc, const SampleReport& samples) {
  Json stacks = Json::array();
  std::uint64_t droppedStacks = 0, droppedSamples = 0;
  for (const SampleRecord& row : samples.rows) {  // by count, descending
    if (stacks.size() >= kMaxJsonStacks) {
      ++droppedStacks;
      droppedSamples += row.count();
      continue;
    }
    Json entry = {{"zonePath", row.zonePath}, {"frames", row.frames}, {"count", row.count()}};
    entry.update(stateCounts(row.states));
    stacks.push_back(std::move(entry));
  }
  doc["stackDepth"] = samples.stackDepth;
  doc["compiledStacks"] = samples.compiledStacks;
  doc["maxStacks"] = kMaxJsonStacks;
  doc["droppedStacks"] = droppedStacks;
  doc["droppedSamples"] = droppedSamples;
  doc["stacks"] = std::move(stacks);
}

// "samples": totals by VM state, the per-line counts a cost join reads and
// the stacks a flame graph draws.
Json samplesJson(const SampleReport& samples) {
  Json doc = {{"intervalMs", samples.intervalMs},
              {"msPerSample", samples.msPerSample()},
              {"cpuMs", samples.cpuMs},
              {"samplesTaken", samples.samplesTaken},
              {"samples", samples.samples}};
  doc.update(stateCounts(samples.states));
  Json lines = Json::array();
  for (const LineSamples& line : samples.lines) {
    Json row = {{"location", line.location()}, {"path", line.path}, {"line", line.line},
                {"function", line.functionLine}, {"zonePath", line.zonePath}, {"count", line.states.total()}};
    row.update(stateCounts(line.states));
    lines.push_back(std::move(row));
  }
  doc["lines"] = std::move(lines);
  addStacks(doc, samples);
  return doc;
}

}  // namespace

std::string toJson(const TraceReport& report) { return toJson(report, nullptr); }

std::string toJson(const TraceReport& report, const SampleReport* samples) {
  Json sites = Json::array();
  for (const AbortSite& site : report.sites) {
    sites.push_back({{"severity", toString(site.severity)},
                     {"count", site.count},
                     {"reasonId", site.reasonId.str()},
                     {"reasonClass", toString(site.reasonClass)},
                     {"reason", site.reason},
                     {"rawReason", site.rawReason},
                     {"location", site.location()},
                     {"path", site.path},
                     {"line", site.line},
                     {"zonePath", site.zonePath},
                     {"start", site.startLocation()},
                     {"extent", {site.extentFirstLine, site.extentLastLine}},
                     {"fallback", site.fallback}});
    if (!site.callerExtents.empty()) {
      Json callers = Json::array();
      for (const AbortSite::CallerExtent& caller : site.callerExtents)
        callers.push_back({{"path", caller.path}, {"function", caller.functionLine},
                           {"extent", {caller.firstLine, caller.lastLine}}});
      sites.back()["callerExtents"] = std::move(callers);
    }
    if (!site.blacklistedByLocation.empty())
      sites.back()["blacklistedBy"] = {{"location", site.blacklistedByLocation},
                                       {"reasonId", site.blacklistedByReasonId}};
    if (report.sampled) {  // null: nothing to measure (a split, a side trace's abort with no fallback)
      sites.back()["costMs"] = site.hasExtent() ? Json(site.costMs) : Json(nullptr);
      sites.back()["interpretedSamples"] = site.interpretedSamples;
      sites.back()["cCodeSamples"] = site.cCodeSamples;
    }
  }
  Json doc = report.envelope.toJson();
  doc["script"] = report.script;
  doc["durationSec"] = report.durationSec;
  doc["totalAborts"] = report.totalAborts;
  doc["blacklisted"] = report.blacklisted;
  doc["fallbackExits"] = report.fallbackExits;
  doc["includeBenign"] = report.includesBenign;
  doc["sites"] = std::move(sites);
  const CollectorUsage& usage = report.collector;
  doc["collector"] = {{"maxSites", usage.maxSites},
                      {"limitReached", usage.limitReached},
                      {"overflowAborts", usage.overflowAborts},
                      {"overflowSplits", usage.overflowSplits},
                      {"memoryBytes", usage.memoryBytes}};
  if (samples) doc["samples"] = samplesJson(*samples);
  if (report.coverage) {
    doc["visited"] = report.visited;
    doc["visitedInstructions"] = report.visitedInstructions;
  }
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace ljcheck
