// Cost per abort site: the interpreter time of the code an abort kept out of
// traces, joined from a sample session that ran beside the trace session.
#pragma once

#include <string>
#include <vector>

#include "ljcheck/sample_report.h"
#include "ljcheck/trace_report.h"

namespace ljcheck {

// For each site: the interpreted samples whose innermost Lua frame was the
// function its trace started in, on a line of the site's extent (the loop
// its trace started at, or that function), and those samples in
// milliseconds. A sample is charged to one trace start: the innermost whose
// extent holds it (a nested loop's start, not the outer loop's), and there
// to the sites of its zone (else of the zone where that start aborted
// most); sites of one start share its samples. Closures nested in the
// function are functions of their own: their samples are not its. A
// function's entry trace also takes the interpreted samples of functions it
// calls (through Lua frames, pcall or xpcall) that start no trace of their
// own: its trace would have recorded them inline. The C-code samples taken
// on those lines count too (the builtins the interpreter calls there, which
// a trace compiles inline: a cdata's index and arithmetic, string.sub,
// ffi.new; audit 91: a blacklisted loop over cdata, 11% interpreted and 83%
// C code, whose fix saved 8 times the interpreted samples), except on a
// line where the run saw a split (STITCH or RETURN): a builtin no trace
// compiles runs in C as well once the abort is gone. Garbage collection is
// not charged. A side trace's abort with no extent gets no cost. Sets
// report.sampled.
void addSiteCosts(TraceReport& report, const SampleReport& samples);

// The short run summary `ljcheck run` prints on stderr: samples, compiled vs
// interpreted share, the top `topSites` sites by cost. Without samples (null:
// the run did not sample) there is no samples line and the top sites are by count.
std::string runSummary(const TraceReport& report, const SampleReport* samples, std::size_t topSites = 5);

}  // namespace ljcheck
