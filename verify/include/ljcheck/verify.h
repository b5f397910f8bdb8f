// The verification report: joins the analyzer's predictions with the
// runtime collector's observations on (location, reasonId).
#pragma once

#include <limits>
#include <map>
#include <optional>
#include <set>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ljcheck/report_envelope.h"

namespace ljcheck {

// A report file that cannot be used: names the file and what was wrong.
class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The site a masked prediction is hidden behind (lint's maskedBy).
// Another site a report names: the one that masks a prediction, or the
// one whose aborts blacklisted the code a BLACKL observation ran into.
struct SiteRef {
  std::string location;  // path:line
  std::string reasonId;
};
using MaskedBy = SiteRef;

struct ReportSite {
  std::string reasonId;
  std::string path;  // as the report shows it: relative to its root, or absolute
  int line = 0;
  std::string reasonClass;
  std::string severity;
  long count = 1;
  std::string confidence;  // of a prediction: certain, likely, possible ("" in older reports)
  // Of a prediction: the bytecode instruction it is about, CALL, ITERC,
  // MULVV ("" in older reports and for a function's entry).
  std::string instruction;
  // Of a call's prediction: the instruction that loads its callee on the
  // same line (lint's calleeInstruction; "" when none, and in older reports).
  std::string calleeInstruction;
  bool masked = false;  // a prediction an earlier certain abort hides (lint's maskedBy)
  std::optional<MaskedBy> maskedBy;
  std::string zonePath;  // of an observation: the zone open when it happened
  // Of an observation from a sampled run: the interpreter time its abort cost
  // (costMs, the interpreted and C-code samples in the trace's extent times
  // the interval).
  double costMs = 0;
  long interpretedSamples = 0;
  long cCodeSamples = 0;
  // Sampled, and of a trace start with an extent: a root or stitched trace's,
  // or a side exit's the VM left to the interpreter (a split's or another
  // side trace's: not).
  bool costMeasured = false;
  // Of an observation: side-trace aborts from an exit the VM then left to
  // the interpreter (the runtime JSON's "fallback").
  bool fallback = false;
  // Of a BLACKL observation: the site whose aborts blacklisted the code it
  // ran into, when the run saw it (the runtime JSON's "blacklistedBy").
  std::optional<SiteRef> blacklistedBy;
  // Of an observation: "path:line" of the trace start its aborts came from
  // ("" in older reports, and for splits).
  std::string start;
  // Of a prediction: "path:line" of a function's entry its blacklisted loop
  // blacklists too through interpreted calls (lint's blacklistsEntry); "" for none.
  std::string blacklistsEntry;
  std::string location() const;  // path:line
};

// Counts from several reports add up; a forged count near 2^63 saturates
// instead of wrapping to a negative number (signed overflow is undefined).
inline long saturatingAdd(long a, long b) {
  long sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? std::numeric_limits<long>::max() : std::numeric_limits<long>::min();
  return sum;
}

// Samples by VM state, as the runtime JSON's "samples" counts them.
struct StateSamples {
  long compiled = 0, interpreted = 0, cCode = 0, collecting = 0, compiling = 0;
  long total() const {
    return saturatingAdd(saturatingAdd(saturatingAdd(saturatingAdd(compiled, interpreted), cCode), collecting), compiling);
  }
  StateSamples& operator+=(const StateSamples& other);
};

// One sampled stack of a runtime report: its zone path, frames (root first)
// and samples by VM state.
struct RunStack {
  std::string zonePath;
  std::vector<std::string> frames;
  StateSamples samples;
};

struct SiteReport {
  std::string file;  // where it was read from
  ReportEnvelope envelope;
  std::vector<ReportSite> sites;
  // A lint report's `linted`: the files its rules ran over, as its paths
  // show them. Without it (older reports) every file counts as linted.
  std::optional<std::set<std::string>> linted;
  // A runtime report taken with coverage (`ljcheck run` records it by
  // default): the "path:line"s the trace recorder visited.
  bool hasCoverage = false;
  std::vector<std::string> visited;
  // The bytecodes visited on each of those lines ("path:line" -> FNEW, CALL,
  // ...), from collectors that record them; empty from older ones.
  std::map<std::string, std::vector<std::string>> visitedInstructions;
  // A runtime report's run: its wall time and, when it was sampled, the
  // samples by VM state in all and per zone path ("" outside any zone).
  double durationSec = 0;
  long totalAborts = 0;
  bool sampled = false;
  // What one sample stands for: the collector's CPU time per sample taken
  // (msPerSample), or the interval asked for from collectors that did not
  // write it.
  double msPerSample = 0;
  StateSamples samples;
  std::map<std::string, StateSamples> samplesByZone;
  // Its most frequent sampled stacks (none from collectors before they were
  // written); the stacks and samples left out past the collector's cap.
  std::vector<RunStack> stacks;
  long droppedStacks = 0;
  long droppedSamples = 0;
  // The collector's site limit ("collector"; absent from older reports):
  // once reached, some aborts and splits are in totalAborts but in no site.
  bool siteLimitReached = false;
  long maxSites = 0, overflowAborts = 0, overflowSplits = 0;
  // Whether the run kept stop-class aborts that blacklisted nothing as
  // sites ("includeBenign"; absent from older reports: then whether it
  // holds such a site).
  std::optional<bool> includesBenign;
};

// Reads lint JSON or runtime JSON; reasonIds written under an older catalog
// version are upgraded through the catalog's aliases. Throws ReportError.
SiteReport readReport(const std::string& path, const std::string& expectedKind);

// The runtime reports verify and report join: a file named twice (the same
// file by another path too) is read once, or its counts would double, with
// a note in `notes`. Throws ReportError as readReport does.
std::vector<SiteReport> readRuntimeReports(const std::vector<std::string>& paths, std::vector<std::string>& notes);

// Sites by status. Precision and recall count only what the runs can judge:
// unexercised and masked predictions, and observations in chunks loaded from
// strings, are counted apart.
struct Tally {
  long confirmed = 0, missed = 0, latent = 0;
  long unexercised = 0, masked = 0, loadedChunk = 0, follows = 0;
  // Neither is defined when the runs judged nothing it counts: a
  // verification with no exercised prediction has no precision, not 1.
  std::optional<double> precision() const;  // confirmed / (confirmed + latent)
  std::optional<double> recall() const;     // confirmed / (confirmed + missed)
};

// A ratio as the reports print it: two decimals, or `none` when undefined.
std::string formatRatio(const std::optional<double>& ratio, std::string_view none = "n/a");

struct JoinedSite {
  // Confirmed: predicted and observed. Missed: observed, not predicted.
  // Latent: predicted on a line the recorder visited (or, without coverage,
  // anywhere), never observed: the runs refute it. Unexercised: predicted on
  // a line the recorder never visited: the runs say nothing. Masked: a
  // prediction an earlier certain abort hides, not observed. LoadedChunk:
  // observed in code loaded from a string, which has no file to predict in.
  // Follows: observed, not predicted, and it ran into code a run blacklisted
  // for a site lint predicted (a BLACKL after the blacklisted closure), or,
  // a stop-class abort, it aborted a blacklisted trace start a predicted site
  // aborted too (an LLEAVE among the closure's eleven aborts): fixing that
  // site removes it, so it is no miss of its own (audits 66, 71).
  enum class Status { Confirmed, Missed, Latent, Unexercised, Masked, LoadedChunk, Follows };
  Status status = Status::Confirmed;
  std::string reasonId, reasonClass, location, severity;
  std::string path;  // relative to the verification's root, or absolute
  int line = 0;
  long observedCount = 0;
  std::string confidence;  // of the prediction, when there is one
  std::string zonePath;    // of the observation ("" when none or not observed): where it was observed most
  // The zones it was observed in, with the observations in each (a
  // library function aborts in every zone that calls it).
  std::map<std::string, long> observedByZone;
  double costMs = 0;       // interpreter time the runs spent in its trace's extent, summed over runs
  // Some sampled run measured it: observed there, as the abort of a root
  // trace's start. Otherwise costMs is 0 for want of a measure, and shown "-".
  bool costMeasured = false;
  // Other observed sites aborted the same trace start in some run: they
  // cost the same interpreted code, so their costs overlap and do not add up.
  bool costShared = false;
  std::optional<MaskedBy> maskedBy;
  // Observed, and in some run the trace start it aborted was blacklisted:
  // by this abort, or by another abort of the same start.
  bool blacklisted = false;
  // Observed in side traces from an exit that some run then left to the
  // interpreter: the code from that exit on ran interpreted on the passes
  // that took it (the runtime JSON's "fallback").
  bool fallback = false;
  // Of a BLACKL observation: the site that blacklisted the code it ran into.
  std::optional<SiteRef> blacklistedBy;
  // Of a stop-class observation whose trace start a run blacklisted (an
  // LLEAVE among the eleven aborts): a predicted site that aborted the same
  // start, whose fix removes it (status Follows).
  std::optional<SiteRef> sameStartAs;
  // Of an LLEAVE at a function's entry, or a BLACKL that ran into it: the
  // predicted blocker whose blacklisted loop ran that function's calls in
  // the interpreter until its entry was blacklisted (lint's
  // blacklistsEntry; status Follows).
  std::optional<SiteRef> interpretedBehind;
};

// Lint's severity against the runs' blacklisting: of the predictions at one
// severity, how many the runs observed and how many of those had their
// trace start blacklisted. The row "" counts observations no prediction
// names (predicted stays 0).
struct SeverityTally {
  long predicted = 0, observed = 0, blacklisted = 0;
};

struct Verification {
  ReportEnvelope envelope;  // kind "verification", the lint report's profile, catalog and root
  // What the reader should know about the join: reports written under
  // different roots (rebased), or without a root to rebase by.
  std::vector<std::string> warnings;
  std::vector<JoinedSite> sites;  // by status (in Status order), then path, then line
  std::map<std::string, Tally> byReason, byClass;
  // The calibration table: of the predictions at each confidence, how many
  // the runs confirmed among exercised lines.
  std::map<std::string, Tally> byConfidence;
  std::map<std::string, SeverityTally> bySeverity;  // by lint's severity (blacklist, warn, info, "")
  bool coverage = false;  // some run recorded the lines it visited
  Tally total;
  // Per zone path, the interpreter time behind the observed sites shown:
  // each trace start's cost once per run, since the sites of one start
  // share its extent's samples (a per-site sum would count them again).
  std::map<std::string, double> costByZone;
  bool sampled = false;  // some run was sampled: costs were measured
};

struct VerifyOptions {
  bool allowProfileMismatch = false;
  // Count stop-class (benign) observations no prediction names as missed.
  // Without it they are left out; one at a predicted site always confirms it.
  bool includeBenign = false;
};

// A severity in lint's own words: blacklist -> error, warn -> warning,
// info -> note (anything else as written).
std::string_view severityWord(const std::string& severity);

// Lint's severity of a site in lint's own words (error, warning, note), as
// the `lint` column of every verification output shows it; "-" for an
// observation no prediction names.
std::string_view lintSeverityWord(const JoinedSite& site);

// What the runs did with a site's trace, in the words every verification
// output shows: "blacklisted", "left to the interpreter", "ran into code
// blacklisted by path:line REASON", joined by "; "; "" for none of them.
std::string runOutcome(const JoinedSite& site);

// Throws ReportError when the reports come from different recorder profiles
// (unless allowed) or different catalogs.
Verification verify(const SiteReport& lint, const std::vector<SiteReport>& runs, const VerifyOptions& options);

// Most costly sites first (ties keep their order): `verify --sort cost`.
void sortByCost(Verification& v);

std::string_view toString(JoinedSite::Status s);
void writeVerificationText(std::ostream& out, const Verification& v);
void writeVerificationJson(std::ostream& out, const Verification& v);

}  // namespace ljcheck
