// The timeline with real LuaJIT VMs: several VMs, each on its own std::thread,
// feed one capture with their own thread and VM ids; zone pushes and pops stay
// compiled while a timeline records; the Lua API; and the Chrome Trace Event
// JSON is strictly nested with monotonic timestamps per thread.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "embedded_vm.h"
#include "ljcheck/timeline.h"

using namespace ljcheck;
using nlohmann::json;

namespace {

// Empty when the trace is well formed; otherwise what is wrong.
std::string structuralProblems(const json& trace) {
  std::map<std::pair<long, long>, std::vector<std::string>> open;
  std::map<std::pair<long, long>, double> lastTs;
  for (const json& e : trace.at("traceEvents")) {
    std::string ph = e.at("ph");
    std::pair<long, long> lane{e.at("pid").get<long>(), e.at("tid").get<long>()};
    if (ph == "M") continue;
    double ts = e.at("ts").get<double>();
    if (lastTs.count(lane) && ts < lastTs[lane]) return "ts goes back on lane " + std::to_string(lane.second);
    lastTs[lane] = ts;
    if (ph == "B") open[lane].push_back(e.at("name"));
    if (ph == "E") {
      if (open[lane].empty() || open[lane].back() != e.at("name").get<std::string>())
        return "E " + e.at("name").get<std::string>() + " does not close the innermost slice";
      open[lane].pop_back();
    }
    if (ph == "X" && e.at("dur").get<double>() < 0) return "negative duration";
  }
  for (const auto& [lane, names] : open)
    if (!names.empty()) return "slices left open on lane " + std::to_string(lane.second);
  return {};
}

constexpr const char* kZoneLoop = R"(
local ljcheck = require("ljcheck")
local name = ...
ljcheck.nameThread(name)
ljcheck.nameVm("vm of " .. name)
local n = 0
for i = 1, 1000 do
  ljcheck.zone("frame")
  ljcheck.zone("update")
  n = n + i % 7
  ljcheck.zone()
  ljcheck.zone()
end
)";

std::string runWithArg(testing::EmbeddedVm& vm, const std::string& code, const std::string& arg) {
  if (luaL_loadbuffer(vm.L, code.data(), code.size(), "=zone loop") != 0) return lua_tostring(vm.L, -1);
  lua_pushstring(vm.L, arg.c_str());
  if (lua_pcall(vm.L, 1, 0, 0) != 0) return lua_tostring(vm.L, -1);
  return {};
}

}  // namespace

TEST_CASE("timeline: VMs on their own threads record with their own thread and VM ids", "[timeline]") {
  constexpr int kVms = 4;
  auto capture = TimelineCapture::start(16);
  std::vector<std::string> errors(kVms);
  std::vector<std::uint32_t> vmIds(kVms), threadIds(kVms);
  std::vector<std::thread> threads;
  for (int v = 0; v < kVms; ++v)
    threads.emplace_back([&, v] {
      testing::EmbeddedVm vm;
      errors[static_cast<std::size_t>(v)] = runWithArg(vm, kZoneLoop, "worker " + std::to_string(v));
      vmIds[static_cast<std::size_t>(v)] = vmIdOf(vm.L);
      threadIds[static_cast<std::size_t>(v)] = currentThreadId();
    });
  for (auto& t : threads) t.join();
  TimelineEvents events = capture->finish();
  for (const auto& e : errors) CHECK(e == "");

  std::map<std::pair<std::uint32_t, std::uint32_t>, int> enters, leaves;
  for (const Event& e : events.events) {
    if (e.kind == EventKind::ZoneEnter) ++enters[{e.vmId, e.threadId}];
    if (e.kind == EventKind::ZoneLeave) ++leaves[{e.vmId, e.threadId}];
  }
  CHECK(std::set<std::uint32_t>(vmIds.begin(), vmIds.end()).size() == kVms);
  CHECK(std::set<std::uint32_t>(threadIds.begin(), threadIds.end()).size() == kVms);
  CHECK(enters.size() == kVms);
  for (int v = 0; v < kVms; ++v) {
    std::pair<std::uint32_t, std::uint32_t> key{vmIds[static_cast<std::size_t>(v)], threadIds[static_cast<std::size_t>(v)]};
    CHECK(enters[key] == 2000);
    CHECK(leaves[key] == 2000);
  }
  CHECK(events.counts.dropped == 0);
  CHECK(events.counts.accepted == events.events.size());

  json trace = json::parse(toChromeTraceJson(events, {}));
  CHECK(structuralProblems(trace) == "");
  std::set<std::string> names;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "M") names.insert(e["args"]["name"].get<std::string>());
  CHECK(names.count("worker 2") == 1);
  CHECK(names.count("vm of worker 3") == 1);
}

TEST_CASE("timeline: zone push and pop stay compiled with 0 aborts while a timeline records", "[timeline]") {
  testing::EmbeddedVm vm;
  auto capture = TimelineCapture::start(8);
  CHECK(vm.run(R"(
    local ljcheck = require("ljcheck")
    local session = ljcheck.trace()
    local n = 0
    for i = 1, 5000 do
      ljcheck.zone("frame")
      ljcheck.zone("render")
      n = n + i % 3
      ljcheck.zone()
      ljcheck.zone()
    end
    assert(n == 5001)
    local report = session:stop()
    assert(report.totalAborts == 0, "aborts: " .. tostring(report))
  )") == "");
  TimelineEvents events = capture->finish();
  int zoneEnters = 0, traceStops = 0, aborts = 0;
  for (const Event& e : events.events) {
    zoneEnters += e.kind == EventKind::ZoneEnter;
    traceStops += e.kind == EventKind::TraceStop;
    aborts += e.kind == EventKind::TraceAbort;
  }
  CHECK(zoneEnters == 10000);
  CHECK(traceStops >= 1);  // the loop was compiled, and its zone calls with it
  CHECK(aborts == 0);
}

TEST_CASE("timeline: the Lua session writes nested slices, heap counters and abort instants", "[timeline]") {
  testing::EmbeddedVm vm;
  CHECK(vm.run(R"lua(
    local ljcheck = require("ljcheck")
    local tl = ljcheck.timeline({chunks = 4})
    local ok, err = pcall(ljcheck.timeline)
    assert(not ok and err:find("already running"), err)
    local trace = ljcheck.trace()
    ljcheck.zone("frame")
    local total = 0
    for i = 1, 300 do
      local f = function() return i end  -- NYIBC:FNEW aborts the loop's trace
      total = total + f()
    end
    ljcheck.zone()
    trace:stop()
    assert(tostring(tl) == "ljcheck.TimelineSession (running)", tostring(tl))
    timelineJson = tl:stop()
    local again, why = pcall(tl.stop, tl)
    assert(not again and why:find("already stopped"), why)
    assert(tostring(tl) == "ljcheck.TimelineSession (stopped)", tostring(tl))
  )lua") == "");
  lua_getglobal(vm.L, "timelineJson");
  json trace = json::parse(lua_tostring(vm.L, -1));
  lua_pop(vm.L, 1);
  CHECK(structuralProblems(trace) == "");
  bool sawAbort = false, sawFrame = false;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "i" && e["args"].value("reasonId", "") == "NYIBC:FNEW") {
      sawAbort = true;
      CHECK(e["args"]["zone"] == "frame");
      CHECK(e["args"]["location"] == "/proj/snippet.lua:10");
    }
    if (e["ph"] == "B" && e["name"] == "frame") sawFrame = true;
  }
  CHECK(sawAbort);
  CHECK(sawFrame);
  CHECK(vm.run("require('ljcheck').timeline({chunks = 0})").find("'chunks' must be a whole number") !=
        std::string::npos);
  CHECK(vm.run("require('ljcheck').timeline({root = '/nonexistent/proj'})")
            .find("ljcheck.timeline: option 'root': '/nonexistent/proj' is not a directory") != std::string::npos);
  CHECK(vm.run("require('ljcheck').timeline():stop(5)").find("timeline:stop(filename): filename must be a string") !=
        std::string::npos);
}

// ljcheck.scope marks and dones reach the timeline through the scope hook:
// a slice per closed scope, nested per thread, with the scope's label.
TEST_CASE("timeline: scopes become nested slices", "[timeline][scopes]") {
  testing::EmbeddedVm vm;
  CHECK(vm.run(R"(
    local ljcheck = require("ljcheck")
    local tl = ljcheck.timeline({chunks = 4})
    local scope = ljcheck.scope
    for _ = 1, 3 do
      scope.mark("frame")
      scope.mark("update")
      local t = {}
      for i = 1, 100 do t[i] = i end
      scope.done()
      scope.done()
    end
    timelineJson = tl:stop()
  )") == "");
  lua_getglobal(vm.L, "timelineJson");
  json trace = json::parse(lua_tostring(vm.L, -1));
  lua_pop(vm.L, 1);
  CHECK(structuralProblems(trace) == "");
  int frames = 0, updates = 0;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] != "B" && e["ph"] != "X") continue;
    if (e["name"] == "frame") ++frames;
    if (e["name"] == "update") ++updates;
  }
  CHECK(frames == 3);
  CHECK(updates == 3);
}

// Side exits of compiled code: a loop whose trace compiled one branch leaves
// it through a side exit each time the other branch runs (until a side trace
// is compiled). The texit handler is attached only while the timeline runs,
// calls on the handler attached before it, and gives "texit" back at stop.
TEST_CASE("timeline: trace exits become instants with trace and exit numbers, chained to an earlier handler",
          "[timeline]") {
  testing::EmbeddedVm vm;
  CHECK(vm.run(R"(
    local ljcheck = require("ljcheck")
    exitsSeenByEarlier = 0
    earlier = function(tr, ex) exitsSeenByEarlier = exitsSeenByEarlier + 1 end
    jit.attach(earlier, "texit")
    local function run()
      local t = 0
      for i = 1, 3000 do
        if i % 4 == 0 then t = t + 1 else t = t - 1 end
      end
      return t
    end
    local tl = ljcheck.timeline({chunks = 4})
    run()
    timelineJson = tl:stop()
    exitsDuringTimeline = exitsSeenByEarlier
    exitsSeenByEarlier = 0
    jit.flush()
    run()  -- after stop: the earlier handler has "texit" back
  )") == "");
  lua_getglobal(vm.L, "timelineJson");
  json trace = json::parse(lua_tostring(vm.L, -1));
  lua_getglobal(vm.L, "exitsDuringTimeline");
  lua_Integer chainedDuring = lua_tointeger(vm.L, -1);
  lua_getglobal(vm.L, "exitsSeenByEarlier");
  lua_Integer earlierAfter = lua_tointeger(vm.L, -1);
  lua_pop(vm.L, 3);
  CHECK(structuralProblems(trace) == "");
  std::size_t exits = 0;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "i" && e.contains("args") && e["args"].contains("exit")) {
      ++exits;
      CHECK(e["args"]["trace"].get<int>() >= 1);
      CHECK(e["args"]["exit"].get<int>() >= 0);
      CHECK(e["name"] == "exit " + std::to_string(e["args"]["trace"].get<int>()) + "/" +
                             std::to_string(e["args"]["exit"].get<int>()));
    }
  CHECK(exits >= 10);  // hotexit is 10: at least that many before a side trace takes over
  CHECK(chainedDuring == static_cast<lua_Integer>(exits));
  CHECK(earlierAfter >= 10);
  // Stopped: the earlier handler holds "texit" itself again, no C handler is left.
  CHECK(vm.run(R"(
    local cHandlers, earlierThere = 0, false
    for _, handler in pairs(debug.getregistry()._VMEVENTS or {}) do
      if handler == earlier then earlierThere = true end
      if debug.getinfo(handler, "S").what == "C" then cHandlers = cHandlers + 1 end
    end
    assert(earlierThere and cHandlers == 0, "earlier handler restored: " .. tostring(earlierThere) .. ", C handlers: " .. cHandlers)
  )") == "");
}

TEST_CASE("timeline: exits = false records no trace exits and leaves texit alone", "[timeline]") {
  testing::EmbeddedVm vm;
  CHECK(vm.run(R"(
    local ljcheck = require("ljcheck")
    local tl = ljcheck.timeline({chunks = 4, exits = false})
    local t = 0
    for i = 1, 3000 do
      if i % 4 == 0 then t = t + 1 else t = t - 1 end
    end
    local handlers = 0
    for _ in pairs(debug.getregistry()._VMEVENTS or {}) do handlers = handlers + 1 end
    assert(handlers == 0, "no texit handler attached: " .. handlers)
    local json = tl:stop()
    assert(not json:find('"exit":'), "no exit instants")
  )") == "");
  CHECK(vm.run("require('ljcheck').timeline({exits = 1})").find("option 'exits' must be a boolean") !=
        std::string::npos);
}
