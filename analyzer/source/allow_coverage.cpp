// Which allow comments cover a prediction, and which cover none (see
// source_map.h): the `--report-unused-allows` report.
#include <algorithm>
#include <optional>
#include <string>

#include "ljcheck/reason_names.h"
#include "ljcheck/source_map.h"

namespace ljcheck {
namespace {

bool covers(const SourceMap::Allow& a, int line) {
  return a.form == SourceMap::AllowForm::File || (line >= a.firstLine && line <= a.lastLine);
}

// The short form names the subject alone: allow(FNEW) is allow(NYIBC:FNEW).
bool names(const std::string& id, const ReasonId& reasonId) {
  return id == "*" || id == reasonId.code() || (!reasonId.subject().empty() && id == reasonId.subject()) ||
         id == reasonId.str();
}

std::string spelled(const SourceMap::Allow& a, const std::string& id) {
  switch (a.form) {
    case SourceMap::AllowForm::File: return "allow-file(" + id + ")";
    case SourceMap::AllowForm::Block: return "push allow(" + id + ")";
    default: return "allow(" + id + ")";
  }
}

std::string where(const SourceMap::Allow& a) {
  if (a.form == SourceMap::AllowForm::File) return "in this file";
  if (a.firstLine == a.lastLine) return "on line " + std::to_string(a.firstLine);
  return "on lines " + std::to_string(a.firstLine) + "-" + std::to_string(a.lastLine);
}

}  // namespace

bool SourceMap::suppressed(int line, const ReasonId& reasonId) const {
  for (const auto& a : allows_) {
    if (!covers(a, line)) continue;
    for (const auto& id : a.ids)
      if (names(id, reasonId)) return true;
  }
  return false;
}

// Every covering ID counts as used, not only the first: an inner allow
// inside a push block for the same ID is not reported as unused.
bool SourceMap::suppress(int line, const ReasonId& reasonId) {
  bool any = false;
  for (auto& a : allows_) {
    if (!covers(a, line)) continue;
    for (std::size_t i = 0; i < a.ids.size(); ++i)
      if (names(a.ids[i], reasonId)) any = a.used[i] = true;
  }
  return any;
}

std::vector<DirectiveProblem> SourceMap::directiveProblems(const std::string& path,
                                                           const RecorderProfile* profile) const {
  std::vector<DirectiveProblem> out = unpaired_;
  for (const auto& a : allows_)
    for (std::size_t i = 0; i < a.ids.size(); ++i) {
      // A typo suppresses nothing either, and is told as what it is.
      std::optional<UnknownReasonName> unknown;
      if (profile && a.ids[i] != "*") unknown = unknownReasonName(a.ids[i], *profile);
      if (unknown)
        out.push_back({DirectiveProblem::Kind::UnknownReason, "", a.commentLine, a.commentColumn, Severity::Warn,
                       spelled(a, a.ids[i]) + ": " + unknown->why, a.ids[i], unknown->nearest, a.idStarts[i]});
      else if (!a.used[i])
        out.push_back({DirectiveProblem::Kind::UnusedAllow, "", a.commentLine, a.commentColumn, Severity::Warn,
                       spelled(a, a.ids[i]) + " suppresses nothing: no prediction of " + a.ids[i] + " " + where(a),
                       {},
                       {},
                       {}});
    }
  for (auto& p : out) p.path = path;
  std::stable_sort(out.begin(), out.end(), [](const DirectiveProblem& x, const DirectiveProblem& y) {
    return x.line != y.line ? x.line < y.line : x.column < y.column;
  });
  return out;
}

}  // namespace ljcheck
