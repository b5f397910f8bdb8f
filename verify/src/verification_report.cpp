// Gathers the verification report (see verification_report.h): the runs'
// figures, the per-zone breakdown, the source excerpts and the sampled stacks.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>

#include "chunk_names.h"
#include "ljcheck/verification_report.h"

namespace ljcheck {

std::string_view stateLabel(std::string_view state) {
  if (state == "cCode") return "C code";
  if (state == "collecting") return "GC";
  if (state == "compiling") return "JIT compiler";
  if (state.empty()) return "unknown";
  return state;
}

double compiledShare(const StateSamples& s) {
  return s.total() == 0 ? 0.0 : static_cast<double>(s.compiled) / static_cast<double>(s.total());
}

double interpretedShare(const StateSamples& s) {
  return s.total() == 0 ? 0.0 : static_cast<double>(s.interpreted) / static_cast<double>(s.total());
}

namespace {

constexpr int kContextLines = 2;  // shown above and below a site's line
constexpr std::size_t kMaxFrames = 512;

// Source files, each read once.
class SourceFiles {
 public:
  explicit SourceFiles(std::string root) : root_(std::move(root)) {}

  SourceExcerpt excerpt(const std::string& path, int line) {
    SourceExcerpt e;
    std::string file = resolve(path);
    const auto& lines = load(file);
    if (!lines) {
      e.missing = "source file " + file + " cannot be read";
      return e;
    }
    if (line < 1 || line > static_cast<int>(lines->size())) {
      e.missing = "line " + std::to_string(line) + " is past the end of " + file + " (" +
                  std::to_string(lines->size()) + " lines): the source changed since the reports were written";
      return e;
    }
    e.firstLine = std::max(1, line - kContextLines);
    int last = std::min(static_cast<int>(lines->size()), line + kContextLines);
    for (int n = e.firstLine; n <= last; ++n) e.lines.push_back((*lines)[static_cast<std::size_t>(n - 1)]);
    return e;
  }

 private:
  std::string resolve(const std::string& path) const {
    if (path[0] == '/' || root_.empty()) return path;
    return (std::filesystem::path(root_) / path).lexically_normal().string();
  }

  const std::optional<std::vector<std::string>>& load(const std::string& file) {
    auto it = files_.find(file);
    if (it != files_.end()) return it->second;
    std::optional<std::vector<std::string>> lines;
    std::error_code ec;
    std::ifstream in(file, std::ios::binary);
    if (in && !std::filesystem::is_directory(file, ec)) {
      lines.emplace();
      for (std::string text; std::getline(in, text);) {
        if (!text.empty() && text.back() == '\r') text.pop_back();
        lines->push_back(std::move(text));
      }
    }
    return files_.emplace(file, std::move(lines)).first->second;
  }

  std::string root_;
  std::map<std::string, std::optional<std::vector<std::string>>> files_;
};

std::vector<ZoneBreakdown> zonesOf(const Verification& v, const std::vector<SiteReport>& runs) {
  std::map<std::string, ZoneBreakdown> zones;
  for (const auto& run : runs)
    for (const auto& [path, samples] : run.samplesByZone) zones[path].samples += samples;
  for (const auto& s : v.sites) {
    if (s.observedCount == 0) continue;
    if (s.observedByZone.empty()) {  // built by hand: one zone
      ZoneBreakdown& z = zones[s.zonePath];
      ++z.sites;
      z.observations = saturatingAdd(z.observations, s.observedCount);
      continue;
    }
    for (const auto& [zone, count] : s.observedByZone) {
      ZoneBreakdown& z = zones[zone];
      ++z.sites;
      z.observations = saturatingAdd(z.observations, count);
    }
  }
  for (const auto& [zone, cost] : v.costByZone) zones[zone].costMs = cost;
  std::vector<ZoneBreakdown> out;
  for (auto& [path, zone] : zones) {
    zone.zonePath = path;
    out.push_back(zone);
  }
  std::stable_sort(out.begin(), out.end(), [](const ZoneBreakdown& a, const ZoneBreakdown& b) {
    if (a.costMs != b.costMs) return a.costMs > b.costMs;
    return a.samples.total() > b.samples.total();
  });
  return out;
}

// The flame graph walks stacks recursively: a forged stack thousands of
// frames deep is cut (the sampler keeps 16 by default).
void cutDeepStacks(SampledStacks& stacks) {
  for (auto& stack : stacks.stacks)
    if (stack.frames.size() > kMaxFrames) {
      stack.frames.resize(kMaxFrames);
      stack.frames.back() = "...";
    }
}

// "(no Lua stack)" and other frames as written; a line "stack count".
// A frame as `ljcheck run --sample` escaped it (%3B, %0A, %0D for ';' and
// line breaks, sample_report.cpp); other text as it is.
std::string uncollapsedFrame(const std::string& frame) {
  if (frame.find('%') == std::string::npos) return frame;
  std::string out;
  for (std::size_t i = 0; i < frame.size(); ++i) {
    std::string_view next = std::string_view(frame).substr(i, 3);
    if (next == "%3B") out += ';';
    else if (next == "%0A") out += '\n';
    else if (next == "%0D") out += '\r';
    else {
      out += frame[i];
      continue;
    }
    i += 2;
  }
  return out;
}

// A stack's count or weight: a finite number from 0 to 2^53 (beyond it a
// double no longer counts samples one by one; no profile takes that many).
bool plausibleWeight(double w) { return std::isfinite(w) && w >= 0 && w <= 9007199254740992.0; }

SampledStacks readCollapsed(const std::string& path, std::istream& in) {
  SampledStacks out;
  out.file = path;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    auto space = line.rfind(' ');
    double count = 0;
    std::size_t used = 0;
    try {
      if (space == std::string::npos) throw std::invalid_argument("no count");
      count = std::stod(line.substr(space + 1), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || space + 1 + used != line.size() || !plausibleWeight(count))
      throw ReportError(path + ":" + std::to_string(number) +
                        ": not a collapsed stack (frames separated by ';', a space, a count): " + line.substr(0, 80));
    SampledStack stack;
    std::stringstream frames(line.substr(0, space));
    for (std::string frame; std::getline(frames, frame, ';');) stack.frames.push_back(uncollapsedFrame(frame));
    stack.weight = count;
    out.stacks.push_back(std::move(stack));
  }
  return out;
}

// The VM state a profile of `ljcheck run --speedscope` holds: "app.lua (interpreted)".
std::string stateOfProfile(const std::string& name) {
  for (const char* state : {"compiled", "interpreted", "cCode", "collecting", "compiling"})
    if (name.size() > std::string(state).size() + 2 &&
        name.compare(name.size() - std::string(state).size() - 2, std::string::npos, std::string("(") + state + ")") == 0)
      return state;
  return "";
}

SampledStacks readSpeedscope(const std::string& path, std::istream& in) {
  SampledStacks out;
  out.file = path;
  try {
    nlohmann::json j = nlohmann::json::parse(in);
    const auto& frames = j.at("shared").at("frames");
    for (const auto& profile : j.at("profiles")) {
      if (profile.at("type") != "sampled") continue;
      out.unit = profile.value("unit", "none");
      std::string state = stateOfProfile(profile.value("name", ""));
      const auto& samples = profile.at("samples");
      const auto& weights = profile.at("weights");
      if (samples.size() != weights.size())
        throw ReportError(path + ": profile '" + profile.value("name", "") + "' has " +
                          std::to_string(samples.size()) + " samples but " + std::to_string(weights.size()) +
                          " weights");
      for (std::size_t i = 0; i < samples.size(); ++i) {
        SampledStack stack;
        stack.state = state;
        stack.weight = weights[i].get<double>();
        if (!plausibleWeight(stack.weight))
          throw ReportError(path + ": profile '" + profile.value("name", "") + "': weight " + weights[i].dump() +
                            " of sample " + std::to_string(i) + " is not a number from 0 to 2^53");
        for (const auto& index : samples[i]) stack.frames.push_back(frames.at(index.get<std::size_t>()).at("name"));
        out.stacks.push_back(std::move(stack));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw ReportError(path + ": not speedscope JSON with sampled profiles (" + e.what() + ")");
  }
  return out;
}

}  // namespace

SampledStacks readSampledStacks(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ReportError(path + ": is a directory, not a stacks file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReportError(path + ": cannot open the stacks file");
  char first = ' ';
  while (in.get(first) && std::isspace(static_cast<unsigned char>(first))) {
  }
  in.clear();
  in.seekg(0);
  SampledStacks out = first == '{' ? readSpeedscope(path, in) : readCollapsed(path, in);
  cutDeepStacks(out);
  return out;
}

SampledStacks sampledStacksOf(const std::vector<SiteReport>& runs, std::vector<std::string>& notes) {
  SampledStacks out;
  out.unit = "ms";
  for (const auto& run : runs) {
    if (!run.sampled) continue;
    if (run.stacks.empty() && run.samples.total() > 0)
      notes.push_back(run.file + " was sampled but holds no stacks (an older collector wrote it): pass --stacks "
                                 "for its flame graph");
    if (run.droppedStacks > 0)
      notes.push_back(run.file + ": " + std::to_string(run.droppedStacks) + " rarer stacks (" +
                      std::to_string(run.droppedSamples) + " samples) past the collector's cap are not in the flame graph");
    if (out.file.empty()) out.file = run.file;
    else out.file += ", " + run.file;
    // Milliseconds, so runs sampled at different intervals merge by time.
    double msPerSample = run.msPerSample > 0 ? run.msPerSample : 1.0;
    for (const auto& stack : run.stacks) {
      const StateSamples& s = stack.samples;
      std::pair<const char*, long> byState[] = {{"compiled", s.compiled}, {"interpreted", s.interpreted},
                                                {"cCode", s.cCode}, {"collecting", s.collecting},
                                                {"compiling", s.compiling}};
      for (const auto& [state, count] : byState)
        if (count > 0) out.stacks.push_back({stack.frames, state, static_cast<double>(count) * msPerSample});
    }
  }
  cutDeepStacks(out);
  return out;
}

std::string whyNoSamples(const VerificationReport& r) {
  for (const auto& run : r.runs)
    if (run.sampled) return "the runs were sampled but ended before the first sample";
  return "runs taken with --no-sampling";
}

VerificationReport buildVerificationReport(Verification v, const std::vector<SiteReport>& runs, SampledStacks stacks) {
  VerificationReport r;
  sortByCost(v);
  r.notes = v.warnings;
  for (const auto& run : runs) {
    r.runs.push_back({run.file, run.durationSec, run.totalAborts, run.sampled, run.msPerSample, run.samples});
    r.samples += run.samples;
  }
  r.zones = zonesOf(v, runs);
  SourceFiles sources(v.envelope.root);
  for (const auto& s : v.sites) {
    if (!isFilePath(s.path) || r.excerpts.count(s.location)) continue;
    SourceExcerpt e = sources.excerpt(s.path, s.line);
    if (!e.missing.empty()) {
      r.notes.push_back(s.location + ": excerpt omitted: " + e.missing);
    }
    r.excerpts.emplace(s.location, std::move(e));
  }
  if (stacks.file.empty()) stacks = sampledStacksOf(runs, r.notes);
  else if (stacks.stacks.empty())
    r.notes.push_back(stacks.file + " holds no sampled stacks: the flame graph is empty");
  r.stacks = std::move(stacks);
  r.verification = std::move(v);
  return r;
}

}  // namespace ljcheck
