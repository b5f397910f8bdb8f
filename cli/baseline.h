// The lint baseline: today's findings recorded by fingerprint, so a later
// run reports only new ones. Matching is by SiteFingerprint (reasonId, path,
// enclosing function, the construct's line text, occurrence), never by line
// number. Baselines of recipe v1 (no line text) are still matched, by v1.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <variant>

#include "ljcheck/lint_report.h"

namespace ljcheck::cli {

struct Baseline {
  std::set<std::string> fingerprints;  // SiteFingerprint::hash
  int recipe = 2;  // which fingerprint recipe wrote them: 1 (before line texts) or 2
};

// What applying a baseline did: findings it hid, entries no longer found.
struct BaselineOutcome {
  std::size_t baselined = 0;
  std::size_t stale = 0;
};

// Reads a file written by writeBaseline; an error message naming the file
// when it cannot be read or is not a baseline.
std::variant<Baseline, std::string> readBaseline(const std::string& path);
// Records every prediction of `report`; an error message when the file
// cannot be written. Entries that no longer occur are not carried over.
std::optional<std::string> writeBaseline(const std::string& path, const LintReport& report);
// Removes the predictions the baseline holds from `report`.
BaselineOutcome applyBaseline(LintReport& report, const Baseline& baseline);

}  // namespace ljcheck::cli
