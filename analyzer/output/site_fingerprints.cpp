// Line-independent identities of predictions: what SARIF's
// partialFingerprints and the lint baseline match findings by, so that code
// added above a finding does not make it new.
#include <cstdint>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "ljcheck/lint_report.h"
#include "source/line_code.h"

namespace ljcheck {
namespace {

// FNV-1a, 64 bits: stable across runs and machines.
constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

std::uint64_t fnvByte(std::uint64_t h, unsigned char c) { return (h ^ c) * kFnvPrime; }

// `parts` into `h`, each followed by a 0 byte (a separator no part contains).
std::uint64_t fnvParts(std::uint64_t h, std::initializer_list<std::string_view> parts) {
  for (std::string_view part : parts) {
    for (unsigned char c : part) h = fnvByte(h, c);
    h = fnvByte(h, 0);
  }
  return h;
}

std::string hex(std::uint64_t value) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(value));
  return buf;
}

// The parts' hash as 16 hex digits.
std::string fnv1a(std::initializer_list<std::string_view> parts) { return hex(fnvParts(kFnvOffset, parts)); }

// The enclosing function without a line number: "<anonymous:12>" moves
// with the code above it, so anonymous functions are told apart by occurrence.
std::string_view stableFunction(std::string_view function) {
  return function.rfind("<anonymous", 0) == 0 ? std::string_view("<anonymous>") : function;
}

// A line's code without blanks and without its comment, hashed (FNV-1a,
// 64 bits): re-indenting or re-spacing the line keeps the identity, and so
// does a comment added to it (an allow for another site on it). Long lines
// count by their first 160 non-blank bytes, their start is identity
// enough. Kept as a hash: every prediction of a run carries one.
std::uint64_t textHash(std::string_view line) {
  constexpr std::size_t kLongest = 160;
  std::uint64_t h = kFnvOffset;
  std::size_t kept = 0;
  for (char c : withoutComment(line)) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') continue;
    if (kept++ == kLongest) break;
    h = fnvByte(h, static_cast<unsigned char>(c));
  }
  return h;
}

// What occurrences are counted by: reasonId, function, line text.
std::uint64_t occurrenceKey(const Prediction& p, std::uint64_t text) {
  return fnvParts(text, {p.reasonId.code(), p.reasonId.subject(), stableFunction(p.function)});
}

}  // namespace

void assignSiteIdentities(std::vector<Prediction>& predictions,
                          const std::function<std::string_view(int line)>& lineText) {
  std::unordered_map<std::uint64_t, int> occurrences;
  occurrences.reserve(predictions.size());
  for (auto& p : predictions) {
    // The construct's own line where the source showed it (a closure's
    // `function` keyword), else the VM's.
    int line = p.range.found() ? p.range.start.line : p.line;
    p.siteTextHash = textHash(lineText(line));
    p.siteOccurrence = occurrences[occurrenceKey(p, p.siteTextHash)]++;
  }
}

std::vector<SiteFingerprint> siteFingerprints(const FileResult& file) {
  std::vector<SiteFingerprint> out;
  out.reserve(file.predictions.size());
  std::unordered_map<std::uint64_t, int> unassigned;  // numbering of the predictions never assigned one
  for (const auto& p : file.predictions) {
    SiteFingerprint f;
    f.reasonId = p.reasonId.str();
    f.path = p.path;
    f.function = std::string(stableFunction(p.function));
    f.text = p.siteOccurrence >= 0 ? hex(p.siteTextHash) : std::string();
    f.occurrence = p.siteOccurrence >= 0 ? p.siteOccurrence : unassigned[occurrenceKey(p, 0)]++;
    f.hash = fnv1a({f.reasonId, f.path, f.function, f.text, std::to_string(f.occurrence)});
    out.push_back(std::move(f));
  }
  return out;
}

namespace {

// A function's name as recipe v1 knew it: the field alone (`f` for M.f and
// M:f; names were qualified by their table later).
std::string_view unqualified(std::string_view function) {
  if (function.empty() || function.front() == '<') return function;
  const std::size_t sep = function.find_last_of(".:");
  return sep == std::string_view::npos ? function : function.substr(sep + 1);
}

}  // namespace

std::vector<std::string> siteHashesV1(const FileResult& file) {
  std::vector<std::string> out;
  out.reserve(file.predictions.size());
  std::map<std::string, int> occurrences;
  for (const auto& p : file.predictions) {
    std::string reasonId = p.reasonId.str();
    std::string function(unqualified(stableFunction(p.function)));
    int occurrence = occurrences[reasonId + '\n' + function]++;
    out.push_back(fnv1a({reasonId, p.path, function, std::to_string(occurrence)}));
  }
  return out;
}

}  // namespace ljcheck
