// Coverage in the runtime collector: with `coverage`, a trace session records
// the lines the trace recorder visited (the "record" vmevent) and reports them
// as sorted "path:line" in the report, the runtime JSON and the Lua table.
#include <catch2/catch.hpp>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../support/embedded_vm.h"
#include "ljcheck/lua_module.h"
#include "ljcheck/trace_session.h"

using namespace ljcheck;

namespace {

using Vm = testing::EmbeddedVm;

// Line 3 and the helper's body (line 1) are recorded; line 6 runs once, line 8 never.
const char* const kHotLoop =
    "local function double(x) return x * 2 end\n"  // 1
    "local s = 0\n"                                 // 2
    "for i = 1, 2000 do s = s + double(i) end\n"    // 3
    "\n"                                            // 4
    "local t = {}\n"                                // 5
    "t.done = s\n"                                  // 6
    "if s < 0 then\n"                               // 7
    "  for i = 1, 2000 do s = s - i end\n"          // 8
    "end\n";                                        // 9

bool contains(const std::vector<std::string>& v, const std::string& item) {
  return std::find(v.begin(), v.end(), item) != v.end();
}

}  // namespace

TEST_CASE("coverage records the lines the recorder visited, sorted", "[runtime][coverage]") {
  Vm vm;
  auto session = TraceSession::start(vm.L, {false, "/proj", "", true});
  REQUIRE(vm.run(kHotLoop).empty());
  REQUIRE(vm.run("local n = 0\nfor i = 1, 1000 do\n  n = n + i\nend\n", "@/proj/b/later.lua").empty());
  TraceReport report = session->stop(vm.L);
  REQUIRE(report.coverage);
  CHECK(contains(report.visited, "snippet.lua:1"));
  CHECK(contains(report.visited, "snippet.lua:3"));
  CHECK_FALSE(contains(report.visited, "snippet.lua:6"));
  CHECK_FALSE(contains(report.visited, "snippet.lua:8"));
  CHECK(contains(report.visited, "b/later.lua:3"));
  // By path, then line as a number; no duplicates.
  CHECK(report.visited.front().rfind("b/later.lua:", 0) == 0);
  CHECK(std::adjacent_find(report.visited.begin(), report.visited.end()) == report.visited.end());

  nlohmann::json doc = nlohmann::json::parse(toJson(report));
  REQUIRE(doc.contains("visited"));
  CHECK(doc["visited"].get<std::vector<std::string>>() == report.visited);
}

TEST_CASE("without coverage nothing is recorded and the JSON has no visited", "[runtime][coverage]") {
  Vm vm;
  auto session = TraceSession::start(vm.L, {false, "/proj", ""});
  REQUIRE(vm.run(kHotLoop).empty());
  TraceReport report = session->stop(vm.L);
  CHECK_FALSE(report.coverage);
  CHECK(report.visited.empty());
  CHECK_FALSE(nlohmann::json::parse(toJson(report)).contains("visited"));
}

TEST_CASE("coverage is paused with the session and detached at stop", "[runtime][coverage]") {
  Vm vm;
  auto session = TraceSession::start(vm.L, {false, "/proj", "", true});
  session->pause();
  REQUIRE(vm.run(kHotLoop, "@/proj/paused.lua").empty());
  session->resume();
  REQUIRE(vm.run(kHotLoop).empty());
  TraceReport report = session->stop(vm.L);
  CHECK(contains(report.visited, "snippet.lua:3"));
  CHECK_FALSE(contains(report.visited, "paused.lua:3"));
  // Detached: a second session without coverage sees no visits of the first.
  auto second = TraceSession::start(vm.L, {false, "/proj", ""});
  REQUIRE(vm.run(kHotLoop, "@/proj/after.lua").empty());
  CHECK(second->stop(vm.L).visited.empty());
}

TEST_CASE("the Lua option coverage = true adds report.visited", "[runtime][coverage][module]") {
  Vm vm;
  std::string error = vm.run(
      "local ljcheck = require('ljcheck')\n"
      "local s = ljcheck.trace({root = '/', coverage = true})\n"
      "local n = 0\n"
      "for i = 1, 1000 do n = n + i end\n"
      "local r = s:stop()\n"
      "local found = false\n"
      "for _, loc in ipairs(r.visited) do found = found or loc == 'proj/snippet.lua:4' end\n"
      "assert(found, 'line 4 not visited')\n"
      "assert(r:json():find('\"visited\"', 1, true))\n"
      "local plain = ljcheck.trace({root = '/'}):stop()\n"
      "assert(plain.visited == nil)\n"
      "local ok, e = pcall(ljcheck.trace, {coverage = 1})\n"
      "assert(not ok and e:find(\"'coverage' must be a boolean\", 1, true), e)\n");
  INFO(error);
  CHECK(error.empty());
}
