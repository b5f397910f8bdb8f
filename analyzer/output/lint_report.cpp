// Counts over a lint report.
#include "ljcheck/lint_report.h"

namespace ljcheck {

std::size_t LintReport::predictionCount() const {
  std::size_t n = 0;
  for (const auto& f : files) n += f.predictions.size();
  return n;
}

bool LintReport::hasFindingAtLeast(Severity threshold) const {
  for (const auto& f : files)
    for (const auto& p : f.predictions)
      if (!p.masked() && p.severity >= threshold) return true;
  return false;
}

std::size_t LintReport::errorCount() const {
  std::size_t n = 0;
  for (const auto& f : files) n += f.errors.size();
  return n;
}

std::string csvField(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace ljcheck
