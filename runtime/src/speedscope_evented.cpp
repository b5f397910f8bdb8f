// Evented speedscope profiles from a timeline: one profile per thread of each
// VM whose zones and scopes opened slices, its B/E slices as O/C events on
// frames of the shared table (see ljcheck/timeline.h). Built from the Chrome
// Trace JSON, whose slices the timeline writer already keeps strictly nested
// with non-decreasing timestamps per thread, as speedscope requires.
#include <map>
#include <nlohmann/json.hpp>

#include "ljcheck/timeline.h"

namespace ljcheck {

std::string addEventedProfiles(const std::string& speedscopeJson, const std::string& chromeTraceJson) {
  using Json = nlohmann::ordered_json;
  if (chromeTraceJson.empty()) return speedscopeJson;
  Json doc = Json::parse(speedscopeJson);
  Json trace = Json::parse(chromeTraceJson);
  Json& frames = doc["shared"]["frames"];
  std::map<std::string, std::size_t> frameIndex;
  for (std::size_t i = 0; i < frames.size(); ++i) frameIndex.emplace(frames[i].value("name", ""), i);
  auto indexOf = [&](const std::string& name) {
    auto [it, fresh] = frameIndex.try_emplace(name, frames.size());
    if (fresh) frames.push_back({{"name", name}});
    return it->second;
  };
  using Lane = std::pair<long long, long long>;
  std::map<Lane, std::string> threadNames;
  std::map<long long, std::string> vmNames;
  std::map<Lane, Json> events;
  std::map<Lane, double> lastAt;
  for (const Json& e : trace["traceEvents"]) {
    std::string ph = e.value("ph", "");
    Lane lane{e.value("pid", 0LL), e.value("tid", 0LL)};
    if (ph == "M" && e.value("name", "") == "thread_name") threadNames[lane] = e["args"].value("name", "");
    if (ph == "M" && e.value("name", "") == "process_name") vmNames[lane.first] = e["args"].value("name", "");
    if (ph != "B" && ph != "E") continue;
    double at = e.value("ts", 0.0) * 1000.0;  // microseconds to nanoseconds
    events[lane].push_back({{"type", ph == "B" ? "O" : "C"}, {"frame", indexOf(e.value("name", "?"))}, {"at", at}});
    lastAt[lane] = at;
  }
  for (auto& [lane, list] : events) {
    std::string name = threadNames[lane].empty() ? "thread " + std::to_string(lane.second) : threadNames[lane];
    if (!vmNames[lane.first].empty()) name = vmNames[lane.first] + ": " + name;
    doc["profiles"].push_back({{"type", "evented"},
                               {"name", name + " (zones and scopes)"},
                               {"unit", "nanoseconds"},
                               {"startValue", 0},
                               {"endValue", lastAt[lane]},
                               {"events", std::move(list)}});
  }
  return doc.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace ljcheck
