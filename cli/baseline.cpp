// `ljcheck lint --write-baseline FILE` and `--baseline FILE` (baseline.h).
// The file is JSON: a format tag and one entry per finding, its fingerprint
// with the parts it was made of, for people reading the file.
#include "baseline.h"
#include "ljcheck/system_error_text.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace ljcheck::cli {
namespace {

using Json = nlohmann::ordered_json;
constexpr std::string_view kFormat = "ljcheck-baseline/v2";
constexpr std::string_view kFormatV1 = "ljcheck-baseline/v1";

// Both recipes write a 64-bit FNV-1a hash as 16 lowercase hex digits.
bool isFingerprint(const std::string& text) {
  return text.size() == 16 &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

std::variant<Baseline, std::string> readBaseline(const std::string& path) {
  // A directory or a FIFO would fail inside the JSON reader, or never end.
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    return path + ": cannot read the baseline: not a regular file";
  std::ifstream in(path, std::ios::binary);
  if (!in) return path + ": cannot read the baseline: " + systemErrorText(errno);
  Json doc;
  try {
    doc = Json::parse(in);
  } catch (const Json::parse_error& e) {
    return path + ": not a baseline file: not valid JSON at byte " + std::to_string(e.byte);
  }
  const std::string format = doc.is_object() && doc.contains("format") && doc["format"].is_string()
                                 ? doc["format"].get<std::string>() : std::string();
  if (format.rfind("ljcheck-baseline/", 0) == 0 && format != kFormat && format != kFormatV1)
    return path + ": a baseline of format " + format + ", which this ljcheck does not know (it reads " +
           std::string(kFormatV1) + " and " + std::string(kFormat) + "): written by a newer ljcheck?";
  if ((format != kFormat && format != kFormatV1) || !doc.contains("entries") || !doc["entries"].is_array())
    return path + ": not a baseline file: expected {\"format\": \"" + std::string(kFormat) + "\", \"entries\": [...]}";
  Baseline baseline;
  baseline.recipe = format == kFormatV1 ? 1 : 2;
  std::size_t index = 0;
  for (const auto& entry : doc["entries"]) {
    if (!entry.is_object() || !entry.contains("fingerprint") || !entry["fingerprint"].is_string())
      return path + ": entry " + std::to_string(index) + " has no \"fingerprint\" string";
    std::string fingerprint = entry["fingerprint"].get<std::string>();
    // A fingerprint edited by hand would never match again: its finding
    // would come back and the entry count as stale, with nothing said.
    if (!isFingerprint(fingerprint))
      return path + ": entry " + std::to_string(index) + ": \"fingerprint\" \"" + fingerprint.substr(0, 40) +
             "\" is not one ljcheck writes (16 hex digits, 0-9 and a-f)";
    baseline.fingerprints.insert(std::move(fingerprint));
    ++index;
  }
  return baseline;
}

std::optional<std::string> writeBaseline(const std::string& path, const LintReport& report) {
  Json entries = Json::array();
  for (const auto& file : report.files)
    for (const auto& f : siteFingerprints(file))
      entries.push_back(Json{{"fingerprint", f.hash},
                             {"reasonId", f.reasonId},
                             {"path", f.path},
                             {"function", f.function},
                             {"lineHash", f.text},
                             {"occurrence", f.occurrence}});
  Json doc{{"format", kFormat}, {"entries", std::move(entries)}};
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << doc.dump(1, ' ', false, Json::error_handler_t::replace) << '\n';
  out.flush();
  if (!out) return path + ": cannot write the baseline: " + systemErrorText(errno);
  return std::nullopt;
}

BaselineOutcome applyBaseline(LintReport& report, const Baseline& baseline) {
  BaselineOutcome outcome;
  std::set<std::string> seen;
  for (auto& file : report.files) {
    std::vector<std::string> hashes;
    if (baseline.recipe == 1) {
      hashes = siteHashesV1(file);
    } else {
      for (auto& f : siteFingerprints(file)) hashes.push_back(std::move(f.hash));
    }
    std::vector<Prediction> kept;
    for (std::size_t i = 0; i < file.predictions.size(); ++i) {
      if (baseline.fingerprints.count(hashes[i])) {
        seen.insert(hashes[i]);
        ++outcome.baselined;
      } else {
        kept.push_back(std::move(file.predictions[i]));
      }
    }
    file.predictions = std::move(kept);
  }
  outcome.stale = baseline.fingerprints.size() - seen.size();
  return outcome;
}

}  // namespace ljcheck::cli
