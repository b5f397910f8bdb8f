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
    if (p.line == line && p.reasonId.str() == reasonId) return &p;
  return nullptr;
}

// "path:line reasonId" of the site that masks p, or "" when none does.
inline std::string maskedBy(const Prediction& p) {
  return p.masked() ? p.maskedBy->location() + " " + p.maskedBy->reasonId.str() : std::string();
}

inline std::string listed(const std::vector<Prediction>& ps) {
  std::string out;
  for (const auto& p : ps)
    out += "\n  " + std::to_string(p.line) + " " + p.reasonId.str() + " [" + std::string(toString(p.confidence)) +
           "]" + (p.masked() ? " masked by " + maskedBy(p) : "");
  return out.empty() ? " (none)" : out;
}

}  // namespace ljcheck::testing
