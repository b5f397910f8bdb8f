// The sample report in speedscope's file format (its JSON schema,
// "file-format-schema.json"): one shared frame table and one "sampled"
// profile per VM state that has samples, weights in milliseconds, each
// sample's stack root first.
#include <map>

#include <nlohmann/json.hpp>

#include "ljcheck/sample_report.h"

namespace ljcheck {
namespace {

using Json = nlohmann::ordered_json;

// A frame label "name@path:line" as speedscope's name, file and line.
Json frameJson(const std::string& label) {
  Json frame = {{"name", label}};
  auto at = label.rfind('@');
  if (at == std::string::npos) return frame;
  std::string where = label.substr(at + 1);
  auto colon = where.rfind(':');
  if (colon != std::string::npos && colon + 1 < where.size() &&
      where.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    frame["file"] = where.substr(0, colon);
    frame["line"] = std::stoi(where.substr(colon + 1));
  } else if (where != "[C]") {
    frame["file"] = where;
  }
  return frame;
}

}  // namespace

std::string toSpeedscopeJson(const SampleReport& report, const std::string& name) {
  std::map<std::string, std::size_t> frameIndex;
  Json frames = Json::array();
  auto indexOf = [&](const std::string& label) {
    auto [it, fresh] = frameIndex.try_emplace(label, frames.size());
    if (fresh) frames.push_back(frameJson(label));
    return it->second;
  };
  Json profiles = Json::array();
  // speedscope opens on the interpreted profile: the time traces did not
  // cover, which is what a user of this tool looks for first.
  std::size_t interpreted = 0;
  for (int i = 0; i < kVmStateCount; ++i) {
    auto state = static_cast<VmState>(i);
    Json samples = Json::array(), weights = Json::array();
    double total = 0;
    for (const SampleRecord& row : report.rows) {
      if (row.states[state] == 0) continue;
      Json stack = Json::array();
      for (const std::string& frame : row.frames) stack.push_back(indexOf(frame));
      samples.push_back(std::move(stack));
      double ms = report.millisecondsOf(row.states[state]);
      weights.push_back(ms);
      total += ms;
    }
    if (samples.empty()) continue;
    if (state == VmState::Interpreted) interpreted = profiles.size();
    profiles.push_back({{"type", "sampled"},
                        {"name", std::string(name) + " (" + fieldName(state) + ")"},
                        {"unit", "milliseconds"},
                        {"startValue", 0},
                        {"endValue", total},
                        {"samples", std::move(samples)},
                        {"weights", std::move(weights)}});
  }
  Json doc = {{"$schema", "https://www.speedscope.app/file-format-schema.json"},
              {"name", name},
              {"exporter", "ljcheck"},
              {"activeProfileIndex", interpreted},
              {"shared", {{"frames", std::move(frames)}}},
              {"profiles", std::move(profiles)}};
  return doc.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace ljcheck
