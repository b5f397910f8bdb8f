// Reads lint and runtime JSON reports for the join (see verify.h).
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <nlohmann/json.hpp>

#include "ljcheck/reason.h"
#include "ljcheck/system_error_text.h"
#include "ljcheck/verify.h"

namespace ljcheck {
namespace {

}  // namespace

std::string ReportSite::location() const { return path.empty() ? "?" : path + ":" + std::to_string(line); }

namespace {

// "path:line" split at its last colon; the line is 0 when it is not a number.
void splitLocation(const std::string& location, ReportSite& site) {
  auto colon = location.rfind(':');
  site.path = location.substr(0, colon);
  site.line = 0;
  if (colon == std::string::npos) return;
  try {
    site.line = std::stoi(location.substr(colon + 1));
  } catch (const std::exception&) {
    site.path = location;
  }
}

// A site's `count`: how often it was seen, a whole number from 0 up (1
// when absent). A negative, fractional or non-numeric count is a forged or
// broken report, refused by name; a count past 2^63 - 1 saturates there.
long siteCount(const nlohmann::json& s, const std::string& path, const ReportSite& site) {
  if (!s.contains("count")) return 1;
  const auto& c = s.at("count");
  auto refuse = [&](const std::string& what) {
    return ReportError(path + ": site " + site.location() + " " + site.reasonId + " has " + what);
  };
  if (c.is_number_unsigned()) {
    auto n = c.get<std::uint64_t>();
    return n > static_cast<std::uint64_t>(std::numeric_limits<long>::max()) ? std::numeric_limits<long>::max()
                                                                            : static_cast<long>(n);
  }
  if (c.is_number_integer()) {
    auto n = c.get<std::int64_t>();
    if (n < 0) throw refuse("a negative count (" + std::to_string(n) + ")");
    return static_cast<long>(n);
  }
  throw refuse("a count that is not a whole number (" + c.dump() + ")");
}

// A whole-number field from 0 up, 0 when absent. Anything else (a
// fraction, 1e48, a number past 2^63 - 1, a string) is a forged or broken
// report, refused by name: converting such a float to an integer is
// undefined behaviour (found by fuzz/fuzz_reports).
long wholeField(const nlohmann::json& j, const char* key, const std::string& path) {
  if (!j.is_object() || !j.contains(key)) return 0;
  const auto& v = j.at(key);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<long>::max()))
    return static_cast<long>(v.get<std::uint64_t>());
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<long>(v.get<std::int64_t>());
  throw ReportError(path + ": '" + key + "' must be a whole number from 0 to 2^63 - 1, not " + v.dump());
}

// A field's value as the message shows it: short, whatever it holds.
std::string shownValue(const nlohmann::json& v) {
  std::string text = v.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

// A number field, `fallback` when absent; anything else is refused by name.
double numberField(const nlohmann::json& j, const char* key, double fallback, const std::string& path) {
  if (!j.is_object() || !j.contains(key)) return fallback;
  const auto& v = j.at(key);
  if (!v.is_number()) throw ReportError(path + ": '" + key + "' must be a number, not " + shownValue(v));
  return v.get<double>();
}

// A true/false field, false when absent; anything else is refused by name.
bool boolField(const nlohmann::json& j, const char* key, const std::string& path) {
  if (!j.is_object() || !j.contains(key)) return false;
  const auto& v = j.at(key);
  if (!v.is_boolean()) throw ReportError(path + ": '" + key + "' must be true or false, not " + shownValue(v));
  return v.get<bool>();
}

// A string field, "" when absent; anything else is refused by name.
std::string textField(const nlohmann::json& j, const char* key, const std::string& path) {
  if (!j.is_object() || !j.contains(key)) return "";
  const auto& v = j.at(key);
  if (!v.is_string()) throw ReportError(path + ": '" + key + "' must be a string, not " + shownValue(v));
  return v.get<std::string>();
}

// An array field (empty when absent and not `required`); anything else is refused by name.
const nlohmann::json& arrayField(const nlohmann::json& j, const char* key, const std::string& path,
                                 bool required = false) {
  static const nlohmann::json empty = nlohmann::json::array();
  if (!j.is_object()) throw ReportError(path + ": expected an object holding '" + key + "', not " + shownValue(j));
  if (!j.contains(key)) {
    if (required) throw ReportError(path + ": no '" + key + "' list");
    return empty;
  }
  const auto& v = j.at(key);
  if (!v.is_array()) throw ReportError(path + ": '" + key + "' must be a list, not " + shownValue(v));
  return v;
}

StateSamples stateSamples(const nlohmann::json& j, const std::string& path) {
  StateSamples s;
  s.compiled = wholeField(j, "compiled", path);
  s.interpreted = wholeField(j, "interpreted", path);
  s.cCode = wholeField(j, "cCode", path);
  s.collecting = wholeField(j, "collecting", path);
  s.compiling = wholeField(j, "compiling", path);
  return s;
}

// The run's duration and, from a sampled run, its samples in all and per zone.
void readRun(const nlohmann::json& j, SiteReport& r) {
  r.durationSec = numberField(j, "durationSec", 0.0, r.file);
  r.totalAborts = wholeField(j, "totalAborts", r.file);
  if (j.contains("includeBenign")) {
    if (!j.at("includeBenign").is_boolean())
      throw ReportError(r.file + ": 'includeBenign' must be true or false, not " + shownValue(j.at("includeBenign")));
    r.includesBenign = j.at("includeBenign").get<bool>();
  }
  if (j.contains("collector")) {
    const auto& collector = j.at("collector");
    r.siteLimitReached = collector.value("limitReached", false);
    r.maxSites = wholeField(collector, "maxSites", r.file);
    r.overflowAborts = wholeField(collector, "overflowAborts", r.file);
    r.overflowSplits = wholeField(collector, "overflowSplits", r.file);
  }
  if (!j.contains("samples")) return;
  const auto& samples = j.at("samples");
  if (!samples.is_object()) throw ReportError(r.file + ": 'samples' must be an object, not " + shownValue(samples));
  r.sampled = true;
  r.msPerSample = numberField(samples, "msPerSample", numberField(samples, "intervalMs", 0.0, r.file), r.file);
  r.samples = stateSamples(samples, r.file);
  for (const auto& line : arrayField(samples, "lines", r.file))
    r.samplesByZone[textField(line, "zonePath", r.file)] += stateSamples(line, r.file);
  for (const auto& stack : arrayField(samples, "stacks", r.file)) {
    std::vector<std::string> frames;
    for (const auto& frame : arrayField(stack, "frames", r.file, true)) {
      if (!frame.is_string()) throw ReportError(r.file + ": a stack frame must be a string, not " + shownValue(frame));
      frames.push_back(frame.get<std::string>());
    }
    r.stacks.push_back({textField(stack, "zonePath", r.file), std::move(frames), stateSamples(stack, r.file)});
  }
  r.droppedStacks = wholeField(samples, "droppedStacks", r.file);
  r.droppedSamples = wholeField(samples, "droppedSamples", r.file);
}

}  // namespace

StateSamples& StateSamples::operator+=(const StateSamples& other) {
  compiled = saturatingAdd(compiled, other.compiled);
  interpreted = saturatingAdd(interpreted, other.interpreted);
  cCode = saturatingAdd(cCode, other.cCode);
  collecting = saturatingAdd(collecting, other.collecting);
  compiling = saturatingAdd(compiling, other.compiling);
  return *this;
}

SiteReport readReport(const std::string& path, const std::string& expectedKind) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ReportError(path + ": is a directory, not a report file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReportError(path + ": cannot open file: " + systemErrorText(errno));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number like 1e999
    throw ReportError(path + ": not valid JSON (" + e.what() + ")");
  }
  SiteReport r;
  r.file = path;
  try {
    r.envelope = ReportEnvelope::read(j, path, expectedKind);
    const auto& catalog = ReasonCatalog::builtin();
    const char* list = expectedKind == "lint" ? "predictions" : "sites";
    for (const auto& s : arrayField(j, list, path, true)) {
      ReportSite site;
      std::string written = textField(s, "reasonId", path);
      if (written.empty()) throw ReportError(path + ": a site without a reasonId");
      site.reasonId = catalog.upgrade(written, r.envelope.reasonCatalogVersion);
      // Reports carry path and line; reports of catalog version 0 only the location.
      if (s.contains("path") && s.contains("line")) {
        site.path = s.at("path").get<std::string>();
        const long line = wholeField(s, "line", path);
        if (line > std::numeric_limits<int>::max()) throw ReportError(path + ": line " + std::to_string(line) + " is out of range");
        site.line = static_cast<int>(line);
      } else {
        splitLocation(s.at("location").get<std::string>(), site);
      }
      site.reasonClass = textField(s, "reasonClass", path);
      // An id the aliases renamed takes the class of the code it now names:
      // the class written beside the old id was the old code's.
      if (site.reasonId != written || site.reasonClass.empty())
        if (const Reason* reason = catalog.find(ReasonId::parse(site.reasonId).code()))
          site.reasonClass = std::string(toString(reason->reasonClass));
      site.severity = textField(s, "severity", path);
      site.count = siteCount(s, path, site);
      site.confidence = textField(s, "confidence", path);
      site.instruction = textField(s, "instruction", path);
      site.calleeInstruction = textField(s, "calleeInstruction", path);
      site.masked = s.contains("maskedBy");
      if (site.masked && s.at("maskedBy").is_object())
        site.maskedBy = MaskedBy{s.at("maskedBy").value("location", ""), s.at("maskedBy").value("reasonId", "")};
      site.zonePath = textField(s, "zonePath", path);
      site.start = textField(s, "start", path);
      // null: the run sampled, but this site had nothing to measure (a split,
      // a side trace's abort); absent: the run did not sample.
      const bool unmeasured = s.contains("costMs") && s.at("costMs").is_null();
      site.costMs = unmeasured ? 0.0 : numberField(s, "costMs", 0.0, path);
      site.costMeasured = !unmeasured && s.contains("costMs") && !site.start.empty();
      site.interpretedSamples = wholeField(s, "interpretedSamples", path);
      site.cCodeSamples = wholeField(s, "cCodeSamples", path);
      site.fallback = boolField(s, "fallback", path);
      if (s.contains("blacklistsEntry")) {
        const auto& entry = s.at("blacklistsEntry");
        if (!entry.is_object()) throw ReportError(path + ": 'blacklistsEntry' must be an object, not " + shownValue(entry));
        site.blacklistsEntry = textField(entry, "location", path);
      }
      if (s.contains("blacklistedBy")) {
        const auto& by = s.at("blacklistedBy");
        if (!by.is_object()) throw ReportError(path + ": 'blacklistedBy' must be an object, not " + shownValue(by));
        site.blacklistedBy = SiteRef{textField(by, "location", path), textField(by, "reasonId", path)};
      }
      r.sites.push_back(std::move(site));
    }
    if (expectedKind == "runtime") readRun(j, r);
    if (expectedKind == "lint" && j.contains("linted")) {
      r.linted.emplace();
      for (const auto& file : arrayField(j, "linted", path)) {
        if (!file.is_string()) throw ReportError(path + ": 'linted' must list paths, not " + shownValue(file));
        r.linted->insert(file.get<std::string>());
      }
    }
    if (j.contains("visited")) {
      r.hasCoverage = true;
      r.visited = j.at("visited").get<std::vector<std::string>>();
      if (j.contains("visitedInstructions"))
        r.visitedInstructions = j.at("visitedInstructions").get<std::map<std::string, std::vector<std::string>>>();
    }
  } catch (const ReportFormatError& e) {
    throw ReportError(e.what());
  } catch (const nlohmann::json::exception& e) {
    throw ReportError(path + ": malformed report (" + e.what() + ")");
  }
  return r;
}

std::vector<SiteReport> readRuntimeReports(const std::vector<std::string>& paths, std::vector<std::string>& notes) {
  std::vector<SiteReport> runs;
  std::set<std::string> seen;
  for (const auto& path : paths) {
    std::error_code ec;
    std::string same = std::filesystem::weakly_canonical(path, ec).string();
    if (ec) same = path;
    if (!seen.insert(same).second) {
      notes.push_back(path + " is given twice: read once (its counts would double)");
      continue;
    }
    runs.push_back(readReport(path, "runtime"));
  }
  return runs;
}

}  // namespace ljcheck
