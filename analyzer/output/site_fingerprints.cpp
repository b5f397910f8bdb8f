// Line-independent identities of predictions: what SARIF's
// partialFingerprints and the lint baseline match findings by, so that code
// added above a finding does not make it new.
#include <cstdint>
#include <cstdio>
#include <map>

#include "ljcheck/lint_report.h"

namespace ljcheck {
namespace {

// FNV-1a, 64 bits, as 16 hex digits: stable across runs and machines.
std::string fnv1a(std::initializer_list<std::string_view> parts) {
  std::uint64_t h = 14695981039346656037ull;
  for (std::string_view part : parts) {
    for (unsigned char c : part) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0u) * 1099511628211ull;  // a separator no part contains
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// The enclosing function without a line number: "<anonymous:12>" moves
// with the code above it, so anonymous functions are told apart by occurrence.
std::string_view stableFunction(std::string_view function) {
  return function.rfind("<anonymous", 0) == 0 ? std::string_view("<anonymous>") : function;
}

}  // namespace

std::vector<SiteFingerprint> siteFingerprints(const FileResult& file) {
  std::vector<SiteFingerprint> out;
  out.reserve(file.predictions.size());
  std::map<std::string, int> occurrences;  // per (reasonId, function) in this file
  for (const auto& p : file.predictions) {
    SiteFingerprint f;
    f.reasonId = p.reasonId.str();
    f.path = p.path;
    f.function = std::string(stableFunction(p.function));
    f.occurrence = occurrences[f.reasonId + '\n' + f.function]++;
    f.hash = fnv1a({f.reasonId, f.path, f.function, std::to_string(f.occurrence)});
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ljcheck
