// Helpers for the rule tests: analyze a snippet the way `ljcheck lint`
// does, and pick predictions by line and reasonId.
#pragma once

#include <string>
#include <vector>

#include "ljcheck/analyzer.h"

namespace ljcheck::testing {

inline std::vector<Prediction> predict(const std::string& source, Confidence minConfidence = Confidence::Possible) {
  FileResult r = analyzeSource(source, "snippet.lua", defaultProfile(), minConfidence);
  return r.predictions;
}

// The prediction of `reasonId` on `line`, or null.
inline const Prediction* find(const std::vector<Prediction>& ps, int line, const std::string& reasonId) {
  for (const auto& p : ps)
    if (p.line == line && p.reasonId == reasonId) return &p;
  return nullptr;
}

inline std::string listed(const std::vector<Prediction>& ps) {
  std::string out;
  for (const auto& p : ps)
    out += "\n  " + std::to_string(p.line) + " " + p.reasonId + " [" + std::string(toString(p.confidence)) + "]" +
           (p.maskedBy.empty() ? "" : " masked by " + p.maskedBy);
  return out.empty() ? " (none)" : out;
}

}  // namespace ljcheck::testing
