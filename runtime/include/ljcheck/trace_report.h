// The trace report: what a trace session observed, as sites (one row per
// reasonId, location and zone), and its two writers. Plain C++: the `ljcheck
// run` host, the Lua module and `ljcheck verify` share it without Lua.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ljcheck/reason.h"
#include "ljcheck/report_envelope.h"

namespace ljcheck {

struct AbortSite {
  Severity severity = Severity::Info;
  std::uint64_t count = 0;
  ReasonId reasonId;      // NYIBC:FNEW, STITCH:string.gsub
  ReasonClass reasonClass = ReasonClass::Risk;
  std::string reason;     // the catalog title
  std::string rawReason;  // the VM's own text: "NYI: bytecode 51", "stitch at string.gsub"
  std::string path;       // relative to the report root when inside it; "" when unknown
  int line = 0;
  std::string zonePath;
  // Where the aborted trace started (the loop or function that died), and
  // the lines of code it kept out of traces (that loop, or that function),
  // for a root trace; for a trace stitched after a call, or a side trace
  // whose exit the VM left to the interpreter (`fallback`), from there to
  // the end of the loop or function around it; other side traces' aborts
  // have no extent (0): their parent trace keeps running. A RETURN split's
  // start is its own call, where the interpreter takes over on every pass,
  // and its extent the same as a stitched trace's; a STITCH has neither.
  std::string startPath;
  int startLine = 0;
  int startFunctionLine = -1;  // the start function's first line (linedefined; 0: a main chunk)
  int extentFirstLine = 0;
  int extentLastLine = 0;
  // The aborts came in side traces from one exit, and the VM gave up on it:
  // after hotexit + tryside exits (or maxside side traces of the root) it
  // links the exit to the interpreter (-jv: "fallback to interpreter").
  bool fallback = false;
  // Of a fallback exit, a stitched trace's abort or a RETURN split inside
  // a function the root trace had inlined: each
  // frame it returns into, out to the root's, and what that frame then runs
  // interpreted (from its call to the loop's back edge, or its end).
  struct CallerExtent {
    std::string path;
    int functionLine = -1;  // the function's first line (0: a main chunk)
    int firstLine = 0, lastLine = 0;
  };
  std::vector<CallerExtent> callerExtents;
  // Of a BLACKL site (a trace ran into code already blacklisted, at that
  // code's start): the site whose aborts blacklisted that start in this run,
  // the one to fix; empty when the run did not see it.
  std::string blacklistedByLocation;
  std::string blacklistedByReasonId;
  // Interpreter time spent in those lines while sampling: interpreted
  // samples whose innermost Lua frame was the start function on those
  // lines and no nested trace start's (site_cost.h), and the C-code
  // samples taken there (the builtins the interpreter calls), times the
  // interval.
  double costMs = 0;
  std::uint64_t interpretedSamples = 0;
  std::uint64_t cCodeSamples = 0;

  // Whether a cost can be measured: a start with its extent (a root or
  // stitched trace's, a side exit's that fell back to the interpreter, or
  // a RETURN split's).
  bool hasExtent() const { return !startPath.empty() && extentFirstLine > 0; }

  std::string location() const;  // path:line, or "?" when unknown
  std::string startLocation() const;  // startPath:startLine, or "" when unknown
};

// The trace collector's bound on distinct sites and what it held (the
// runtime JSON's "collector"). Past maxSites, aborts and splits of a new
// site are counted here and in the totals, never in a site.
struct CollectorUsage {
  std::size_t maxSites = 0;
  bool limitReached = false;          // some events were counted past the bound
  std::uint64_t overflowAborts = 0;   // aborts in totalAborts that no site shows
  std::uint64_t overflowSplits = 0;   // stitches and returns no site shows
  std::size_t memoryBytes = 0;        // heap bytes the collector held at stop (an estimate)
};

struct TraceReport {
  double durationSec = 0;
  std::uint64_t totalAborts = 0;  // every abort, benign ones included; splits are not aborts
  std::uint64_t blacklisted = 0;  // distinct start sites demoted to the interpreter
  std::uint64_t fallbackExits = 0;  // distinct side exits left to the interpreter
  std::vector<AbortSite> sites;   // actionable first, see sortSites
  // Kind "runtime", the recorder profile and catalog it was taken under,
  // and the absolute directory locations are relative to.
  ReportEnvelope envelope;
  std::string script;  // the hosted script, when known
  bool coverage = false;             // the session recorded visited lines
  // Stop-class aborts (LINNER, LLEAVE, ...) that blacklisted nothing are
  // sites too (--include-benign); without it they are in totalAborts only.
  bool includesBenign = false;
  std::vector<std::string> visited;  // "path:line" the recorder visited, by path then line
  // With coverage: the bytecodes the recorder visited on each such line,
  // by name ("path:line" -> FNEW, CALL, ...).
  std::map<std::string, std::vector<std::string>> visitedInstructions;
  bool sampled = false;  // costs were joined from a sample session (addSiteCosts)
  CollectorUsage collector;
};

// Orders sites: blacklist, warn, info; then count (descending), location, reasonId.
void sortSites(std::vector<AbortSite>& sites);

// RFC 4180 CSV (CRLF line ends), header
// severity,count,reasonId,reasonClass,location,zonePath,reason,rawReason,start.
std::string toCsv(const TraceReport& report);
// The runtime JSON that `ljcheck verify` reads (formatVersion 1); with
// coverage it also holds "visited".
std::string toJson(const TraceReport& report);
// The same with "samples" from a sample session that ran beside the trace
// session: totals and per-line counts by VM state, and the most frequent
// kMaxJsonStacks stacks with their counts by VM state and zone path (the
// rest counted in droppedStacks and droppedSamples).
struct SampleReport;
inline constexpr std::size_t kMaxJsonStacks = 2000;
std::string toJson(const TraceReport& report, const SampleReport* samples);
// Writes text to a file; throws std::runtime_error naming the file.
void writeReportFile(const std::string& filename, const std::string& text);
// Why writeReportFile could not write `filename` (a directory, a missing or
// read-only folder), or "" when it looks writable: checked before a run, so
// that a long run is not lost to a typo in an output path.
std::string reportFileProblem(const std::string& filename);

}  // namespace ljcheck
