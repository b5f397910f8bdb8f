// Writers for lint results: gcc-style text, JSON, CSV, SARIF, GitHub
// workflow commands, JUnit XML. They read the results and never reach back
// into the analyzer.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ljcheck/prediction.h"
#include "ljcheck/profile.h"

namespace ljcheck {

struct LintReport {
  const RecorderProfile* profile = nullptr;
  std::string root;  // absolute directory the paths are relative to
  std::string toolVersion;  // ljcheck's version, for the formats that name the tool
  // Where the reason pages (docs/reasons/) are published, ending in '/': an
  // absolute URI the SARIF rules link (helpUri). Empty: the pages are named, not linked.
  std::string docsUrl;
  std::vector<FileResult> files;
  std::size_t predictionCount() const;
  std::size_t errorCount() const;
  std::size_t directiveCount() const;
  // Whether an unmasked prediction or a directive problem (an unpaired
  // push/pop, an unused allow) has at least `threshold`: the lint exit status.
  bool hasFindingAtLeast(Severity threshold) const;
};

// A prediction's identity that does not move with its line: reasonId,
// reported path, enclosing function (anonymous ones without their line), the
// text of the construct's first line without blanks (`text`: its hash, 16
// hex digits; empty without a source), and which occurrence of those four
// in the file it is, 0-based. `hash` joins them (FNV-1a, 16 hex
// digits): SARIF's partialFingerprints and the lint baseline both match by
// it. A finding added elsewhere in the function, or an allow comment on
// another site, leaves it as it was; editing the construct's own line
// changes it.
struct SiteFingerprint {
  std::string reasonId, path, function, text;
  int occurrence = 0;
  std::string hash;
};
// Sets siteTextHash and siteOccurrence of each prediction from the source
// lines (`lineText(n)`: line n's text, empty when unknown). Called with
// every prediction of the file, before allow comments filter them.
void assignSiteIdentities(std::vector<Prediction>& predictions,
                          const std::function<std::string_view(int line)>& lineText);
// One per prediction of `file`, in the same order; predictions never
// assigned an identity (a dump, a file that could not be mapped) are
// numbered among themselves with no text.
std::vector<SiteFingerprint> siteFingerprints(const FileResult& file);
// The hashes of fingerprint recipe v1 (reasonId, path, function, occurrence
// among the reported predictions), for matching baselines written before v2.
std::vector<std::string> siteHashesV1(const FileResult& file);

enum class LintFormat { Text, Json, Csv, Sarif, Github, Junit };
std::string_view toString(LintFormat f);
std::optional<LintFormat> parseLintFormat(std::string_view text);  // "text", "json", ...
inline constexpr LintFormat kLintFormats[] = {LintFormat::Text,  LintFormat::Json,   LintFormat::Csv,
                                              LintFormat::Sarif, LintFormat::Github, LintFormat::Junit};

// One severity vocabulary in two spellings: the catalog's (blacklist, warn,
// info) and the words diagnostics print (error, warning, note), which are
// also SARIF's levels. parseSeverityName takes either; "none" is not a severity.
std::string_view diagnosticLevel(Severity s);
std::optional<Severity> parseSeverityName(std::string_view text);

// The severity a prediction is shown with: a masked site is a note, whatever
// its own severity (it is not a finding of its own).
Severity shownSeverity(const Prediction& p);

// The text of a reported file by its reported path, for writers that count
// columns in other units than bytes (SARIF and GitHub count UTF-16 code
// units); nullopt when it cannot be read, and the byte columns are kept.
using SourceLookup = std::function<std::optional<std::string>(const std::string& path)>;

// `path:line:col: severity: message [reasonId]`; severities read as editors
// expect them: blacklist -> error, warn -> warning, info -> note. A masked
// prediction is a note naming its masking site. With `explain`, each
// prediction is followed by a note at the same place: its confidence and the
// analyzer's reasoning.
// Control characters and bytes that are not UTF-8 in paths and messages are
// shown as \xHH, so a file name cannot move the cursor or forge a line.
void writeText(std::ostream& out, const LintReport& report, bool color, bool explain = true);
// `jobs` threads render the prediction rows; the bytes are the same for any
// number. A path that is not UTF-8 is also written losslessly as `pathBytes`.
void writeJson(std::ostream& out, const LintReport& report, unsigned jobs = 1);
// path,line,reasonId,class,severity,context,column,confidence,masked with a header (RFC 4180).
void writeCsv(std::ostream& out, const LintReport& report);

// SARIF 2.1.0 for GitHub code scanning and other SARIF viewers: one rule
// per reasonId reported (texts from the reason catalog), results with a
// region, repo-relative URIs under %SRCROOT%, UTF-16 columns and
// line-independent partialFingerprints.
void writeSarif(std::ostream& out, const LintReport& report, const SourceLookup& source);
// GitHub Actions workflow commands (::error file=...::message), the most
// severe first, then one summary line.
void writeGithubAnnotations(std::ostream& out, const LintReport& report, const SourceLookup& source);
// A Markdown summary of the run, for $GITHUB_STEP_SUMMARY.
void writeGithubSummary(std::ostream& out, const LintReport& report);
// JUnit XML: one testcase per file; one failure per finding at or above
// `threshold` (none: no failures), one error per file error.
void writeJunit(std::ostream& out, const LintReport& report, std::optional<Severity> threshold);

// RFC 4180 field: quoted when it holds a comma, quote or line break.
std::string csvField(std::string_view text);

}  // namespace ljcheck
