// Chrome Trace Event JSON from a timeline capture (see ljcheck/timeline.h).
// pid is the VM id and tid the recorder's thread id; a thread's trace
// recordings go to a lane of their own (tid + kRecorderLane) so that they
// never cross its zone and scope slices. Slices are kept strictly nested per
// lane: a leave closes the innermost open slice of that name, closing first
// any slice opened inside it and left open (its later leave is then dropped).
#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "ljcheck/timeline.h"

namespace ljcheck {
namespace {

using nlohmann::json;

constexpr std::uint32_t kRecorderLane = 1000000;

struct OpenSlice {
  EventKind kind;
  std::int32_t label;
  std::string name;
};

struct Lane {
  std::uint32_t pid = 0, tid = 0;
  std::vector<OpenSlice> open;
  std::vector<nlohmann::json> out;  // this lane's events, in order
  double lastTs = 0;
};

class Writer {
 public:
  Writer(const TimelineEvents& captured, const TimelineNaming& naming) : captured_(captured), naming_(naming) {}

  json build() {
    std::vector<const Event*> order;
    order.reserve(captured_.events.size());
    for (const Event& e : captured_.events) order.push_back(&e);
    // Per VM and thread in emission order (a thread's chunks drain in order).
    std::stable_sort(order.begin(), order.end(), [](const Event* a, const Event* b) {
      return std::tie(a->vmId, a->threadId, a->timeNs) < std::tie(b->vmId, b->threadId, b->timeNs);
    });
    origin_ = captured_.beganNs;
    for (const Event* e : order)
      if (e->timeNs < origin_) origin_ = e->timeNs;
    for (const Event* e : order) add(*e);
    for (auto& [key, lane] : lanes_)
      while (!lane.open.empty()) closeTop(lane, lane.lastTs);
    json events = json::array();
    for (auto& [key, lane] : lanes_) {
      (void)lane;
      metadata(events, key.first, key.second);
    }
    for (auto& [key, lane] : lanes_)
      for (json& e : lane.out) events.push_back(std::move(e));
    return json{{"traceEvents", std::move(events)},
                {"displayTimeUnit", "ms"},
                {"otherData",
                 {{"generator", "ljcheck"},
                  {"acceptedEvents", captured_.counts.accepted},
                  {"droppedEvents", captured_.counts.dropped}}}};
  }

 private:
  // Label texts, looked up once each (labelText takes a lock).
  const std::string& label_(std::int64_t id) {
    auto key = static_cast<LabelId>(id);
    auto it = labels_.find(key);
    if (it == labels_.end()) it = labels_.emplace(key, labelText(key)).first;
    return it->second;
  }

  double ts(std::uint64_t ns) const { return static_cast<double>(ns - origin_) / 1000.0; }

  Lane& lane(std::uint32_t pid, std::uint32_t tid) {
    Lane& l = lanes_[{pid, tid}];
    l.pid = pid;
    l.tid = tid;
    return l;
  }

  json base(const Lane& l, const char* ph, double at) {
    return json{{"ph", ph}, {"pid", l.pid}, {"tid", l.tid}, {"ts", at}};
  }

  void emit(Lane& l, json e, double at) {
    l.lastTs = std::max(l.lastTs, at);
    l.out.push_back(std::move(e));
  }

  void open(Lane& l, EventKind kind, std::int32_t label, const char* category, double at, json args) {
    std::string name = label_(label);
    if (name.empty()) name = "?";
    json e = base(l, "B", at);
    e["name"] = name;
    e["cat"] = category;
    if (!args.is_null()) e["args"] = std::move(args);
    emit(l, std::move(e), at);
    l.open.push_back({kind, label, std::move(name)});
  }

  void closeTop(Lane& l, double at, json args = nullptr) {
    json e = base(l, "E", at);
    e["name"] = l.open.back().name;
    if (!args.is_null()) e["args"] = std::move(args);
    l.open.pop_back();
    emit(l, std::move(e), at);
  }

  void close(Lane& l, EventKind openKind, std::int32_t label, double at, json args = nullptr) {
    auto it = std::find_if(l.open.rbegin(), l.open.rend(),
                           [&](const OpenSlice& s) { return s.kind == openKind && s.label == label; });
    if (it == l.open.rend()) return;  // its enter was before the capture, or was closed by force
    std::size_t keep = static_cast<std::size_t>(l.open.rend() - it) - 1;
    while (l.open.size() > keep + 1) closeTop(l, at);
    closeTop(l, at, std::move(args));
  }

  void counter(Lane& l, double at, std::int64_t bytes) {
    json e = base(l, "C", at);
    e["name"] = "Lua heap";
    e["args"] = {{"bytes", bytes}};
    emit(l, std::move(e), at);
  }

  void instant(Lane& l, double at, std::string name, json args) {
    json e = base(l, "i", at);
    e["name"] = std::move(name);
    e["s"] = "t";
    if (!args.is_null()) e["args"] = std::move(args);
    emit(l, std::move(e), at);
  }

  std::string reasonOf(int code, int subject) {
    std::string id = naming_.reasonIdOf ? naming_.reasonIdOf(code, subject) : std::string();
    return id.empty() ? "trace error " + std::to_string(code) : id;
  }

  void add(const Event& e) {
    double at = ts(e.timeNs);
    Lane& main = lane(e.vmId, e.threadId);
    switch (e.kind) {
      case EventKind::ZoneEnter: open(main, EventKind::ZoneEnter, e.a, "zone", at, nullptr); break;
      case EventKind::ZoneLeave: close(main, EventKind::ZoneEnter, e.a, at); break;
      case EventKind::ScopeMark:
        open(main, EventKind::ScopeMark, e.a, "scope", at, json{{"heapBytes", e.b}});
        counter(main, at, e.b);
        break;
      case EventKind::ScopeDone: close(main, EventKind::ScopeMark, e.a, at, json{{"memDelta", e.b}}); break;
      case EventKind::Sample:
        counter(main, at, e.b);
        if (e.a == 'G') instant(main, at, "collector (sampled)", nullptr);
        break;
      case EventKind::CollectorStep:
        counter(main, at, e.b);
        instant(main, at, "collector step", nullptr);
        break;
      case EventKind::TraceStart: recording_[e.vmId] = {e.a, at}; break;
      case EventKind::TraceStop: endRecording(e, at, false); break;
      case EventKind::TraceAbort: {
        endRecording(e, at, true);
        auto code = static_cast<int>(static_cast<std::uint64_t>(e.b) >> 32);
        auto subject = static_cast<int>(static_cast<std::uint32_t>(e.b));
        std::string source = label_(static_cast<std::int64_t>(static_cast<std::uint64_t>(e.c) >> 32));
        auto line = static_cast<std::uint32_t>(e.c);
        std::string path = naming_.displayPath ? naming_.displayPath(source) : source;
        std::string reasonId = reasonOf(code, subject);
        instant(main, at, "abort " + reasonId,
                json{{"reasonId", reasonId},
                     {"location", path.empty() ? std::string("?") : path + ":" + std::to_string(line)},
                     {"zone", label_(e.a)}});
        break;
      }
      case EventKind::TraceExit:
        instant(lane(e.vmId, e.threadId + kRecorderLane), at,
                "exit " + std::to_string(e.a) + "/" + std::to_string(e.b), json{{"trace", e.a}, {"exit", e.b}});
        break;
    }
  }

  void endRecording(const Event& e, double at, bool aborted) {
    auto it = recording_.find(e.vmId);
    if (it == recording_.end()) return;
    auto [trace, began] = it->second;
    recording_.erase(it);
    if (!aborted && trace != e.a) return;
    Lane& l = lane(e.vmId, e.threadId + kRecorderLane);
    json x = base(l, "X", began);
    x["name"] = "trace " + std::to_string(trace) + (aborted ? " (aborted)" : "");
    x["cat"] = "jit";
    x["dur"] = at - began;
    emit(l, std::move(x), at);
  }

  void metadata(json& events, std::uint32_t pid, std::uint32_t tid) {
    if (named_.insert({pid, 0}).second) {
      std::string vm = pid ? vmName(pid) : std::string("native");
      if (vm.empty()) vm = "VM " + std::to_string(pid);
      events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", vm}}}});
    }
    bool recorderLane = tid >= kRecorderLane;
    std::uint32_t thread = recorderLane ? tid - kRecorderLane : tid;
    std::string name = threadName(thread);
    if (name.empty()) name = "thread " + std::to_string(thread);
    if (recorderLane) name += " (trace recorder)";
    events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
  }

  const TimelineEvents& captured_;
  const TimelineNaming& naming_;
  std::uint64_t origin_ = 0;
  std::map<std::pair<std::uint32_t, std::uint32_t>, Lane> lanes_;
  std::map<std::uint32_t, std::pair<std::int32_t, double>> recording_;  // per VM: trace, start
  std::set<std::pair<std::uint32_t, int>> named_;
  std::map<LabelId, std::string> labels_;
};

}  // namespace

std::string toChromeTraceJson(const TimelineEvents& captured, const TimelineNaming& naming) {
  return Writer(captured, naming).build().dump() + "\n";
}

}  // namespace ljcheck
