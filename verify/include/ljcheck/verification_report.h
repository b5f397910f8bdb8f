// The verification report for people: the join (verify.h) with what the runs
// measured, the source around each site, the catalog's explanation and advice,
// and the sampled stacks, written as one self-contained HTML page or as
// Markdown for a pull-request comment (`ljcheck report`).
#pragma once

#include <cstddef>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "ljcheck/verify.h"

namespace ljcheck {

// The source lines around a site, or why there are none.
struct SourceExcerpt {
  int firstLine = 0;  // the number of lines[0]
  std::vector<std::string> lines;
  std::string missing;  // "cannot open /abs/app.lua": the excerpt is omitted
};

// One sampled stack, root frame first. `state` is the VM state of its
// samples (compiled, interpreted, cCode, collecting, compiling) or "" when
// the input does not say (collapsed text); `weight` is in the stacks' unit.
struct SampledStack {
  std::vector<std::string> frames;
  std::string state;
  double weight = 0;
};

struct SampledStacks {
  std::string file;
  std::string unit = "samples";  // "samples" (collapsed text) or speedscope's unit
  std::vector<SampledStack> stacks;
};

// Reads collapsed stacks ("a;b;c 12" per line) or speedscope JSON with one
// sampled profile per VM state (`ljcheck run --sample` / `--speedscope`).
// Throws ReportError naming the file and the line or field that is wrong.
SampledStacks readSampledStacks(const std::string& path);

// Samples, sites and interpreter cost under one zone path ("" outside any zone).
struct ZoneBreakdown {
  std::string zonePath;
  StateSamples samples;
  long sites = 0;
  long observations = 0;
  double costMs = 0;
};

struct RunSummary {
  std::string file;
  double durationSec = 0;
  long totalAborts = 0;
  bool sampled = false;
  double msPerSample = 0;
  StateSamples samples;
};

struct VerificationReport {
  Verification verification;
  std::vector<RunSummary> runs;
  StateSamples samples;  // over all runs
  std::vector<ZoneBreakdown> zones;  // by cost, then samples, descending
  std::map<std::string, SourceExcerpt> excerpts;  // by site location
  SampledStacks stacks;  // empty when none were given
  std::vector<std::string> notes;  // what the reader should know: warnings, omitted excerpts
};

// Why a report has no samples: no run was sampled (--no-sampling), or the
// sampled runs ended before the first sample.
std::string whyNoSamples(const VerificationReport& r);


// The runs' own sampled stacks (runtime JSON "samples.stacks"), merged, one
// SampledStack per stack and VM state, weights in milliseconds. Notes what
// a run left out past the collector's cap, or a sampled run without stacks.
SampledStacks sampledStacksOf(const std::vector<SiteReport>& runs, std::vector<std::string>& notes);

// Gathers the report: `v` sorted by cost, the runs' figures, the zones and
// the source excerpts (files read under the verification's root). The flame
// graph draws `stacks` when a stacks file was given (its `file` is set),
// otherwise the runs' own stacks.
VerificationReport buildVerificationReport(Verification v, const std::vector<SiteReport>& runs, SampledStacks stacks);

// The sampled stacks as an inline SVG flame graph (root at the bottom),
// each frame coloured by the VM state most of its samples were taken in.
std::string flameGraphSvg(const SampledStacks& stacks, int width);

void writeReportHtml(std::ostream& out, const VerificationReport& report);
// Markdown, summary first; sites and details are cut to keep the text under
// `maxBytes` (a GitHub comment holds 65536 characters), and the cut is said.
void writeReportMarkdown(std::ostream& out, const VerificationReport& report, std::size_t maxBytes);

// Shared by the writers.
std::string_view stateLabel(std::string_view state);  // "interpreted" -> "interpreted", "cCode" -> "C code"
double compiledShare(const StateSamples& s);     // compiled / total, 0 without samples
double interpretedShare(const StateSamples& s);  // interpreted / total

}  // namespace ljcheck
