// Cost per abort site: the interpreter time of the code an abort kept out of
// traces, joined from a sample session that ran beside the trace session.
#pragma once

#include <string>
#include <vector>

#include "ljcheck/sample_report.h"
#include "ljcheck/trace_report.h"

namespace ljcheck {

// For each site: the interpreted samples whose innermost Lua frame lay in
// the site's extent (the loop its trace started at, or that function), and
// those samples in milliseconds. Sets report.sampled.
void addSiteCosts(TraceReport& report, const SampleReport& samples);

// The short run summary `ljcheck run` prints on stderr: samples, compiled vs
// interpreted share, the top `topSites` sites by cost. Without samples (null:
// the run did not sample) there is no samples line and the top sites are by count.
std::string runSummary(const TraceReport& report, const SampleReport* samples, std::size_t topSites = 5);

}  // namespace ljcheck
