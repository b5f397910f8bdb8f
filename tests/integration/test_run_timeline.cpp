// `ljcheck run --timeline --speedscope` end to end: the host's timeline has
// trace-exit instants (the texit handler it attaches while the timeline
// runs), and the speedscope file gains one evented profile per thread whose
// open/close events are the zones, balanced and in time order.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <vector>

#include "../support/cli.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::readFile;
using ljcheck::testing::runLjcheck;
using ljcheck::testing::writeFile;
using nlohmann::json;

TEST_CASE("ljcheck run: the timeline has trace exits and speedscope gets an evented profile of the zones",
          "[cli][run][timeline]") {
  std::string dir = ljcheck::testing::scratchDirectory("run_timeline");
  writeFile(dir + "/app.lua",
            "local ljcheck = require('ljcheck')\n"
            "local t = 0\n"
            "for frame = 1, 20 do\n"
            "  ljcheck.zone('frame')\n"
            "  ljcheck.zone('update')\n"
            "  for i = 1, 200 do\n"
            "    if i % 3 == 0 then t = t + 1 else t = t - 1 end\n"
            "  end\n"
            "  ljcheck.zone()\n"
            "  ljcheck.zone()\n"
            "end\n");
  ProcessResult run = runLjcheck({"run", "--quiet", "--timeline", "tl.json", "--speedscope", "prof.json",
                                  "--interval", "1", "--", "app.lua"}, dir);
  INFO(run.err);
  REQUIRE(run.exitCode == 0);

  json timeline = json::parse(readFile(dir + "/tl.json"));
  std::size_t exits = 0;
  for (const json& e : timeline["traceEvents"])
    if (e["ph"] == "i" && e.contains("args") && e["args"].contains("exit")) ++exits;
  CHECK(exits >= 10);

  json speedscope = json::parse(readFile(dir + "/prof.json"));
  const json* evented = nullptr;
  for (const json& p : speedscope["profiles"])
    if (p["type"] == "evented") evented = &p;
  REQUIRE(evented != nullptr);
  CHECK((*evented)["name"] == "app.lua: main (zones and scopes)");
  const json& frames = speedscope["shared"]["frames"];
  std::vector<std::string> open;
  std::size_t opened = 0;
  double last = 0;
  for (const json& e : (*evented)["events"]) {
    std::string name = frames.at(e["frame"].get<std::size_t>())["name"];
    CHECK(e["at"].get<double>() >= last);
    last = e["at"].get<double>();
    if (e["type"] == "O") {
      open.push_back(name);
      ++opened;
    } else {
      REQUIRE_FALSE(open.empty());
      CHECK(open.back() == name);
      open.pop_back();
    }
  }
  CHECK(open.empty());
  CHECK(opened == 40);  // 20 frames, each with its update
}

TEST_CASE("ljcheck run: a scope mark on the timeline carries the Lua heap, its done the scope's delta",
          "[cli][run][timeline]") {
  // The mark's heapBytes and the "Lua heap" counter are the heap at the mark
  // (timeline.md); they carried the inverse delta, which went negative.
  std::string dir = ljcheck::testing::scratchDirectory("run_timeline_heap");
  writeFile(dir + "/app.lua",
            "local scope = require('ljcheck').scope\n"
            "local keep = {}\n"
            "for i = 1, 300 do\n"
            "  scope.mark('tick')\n"
            "  keep[#keep + 1] = {i}\n"
            "  if i % 50 == 0 then keep = {} collectgarbage() end\n"
            "  scope.done()\n"
            "end\n");
  ProcessResult run = runLjcheck({"run", "--quiet", "--no-sampling", "--timeline", "tl.json", "--", "app.lua"}, dir);
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  json timeline = json::parse(readFile(dir + "/tl.json"));
  std::size_t marks = 0;
  long long smallest = -1;
  for (const json& e : timeline["traceEvents"]) {
    if (e["ph"] == "B" && e.contains("args") && e["args"].contains("heapBytes")) {
      ++marks;
      long long heap = e["args"]["heapBytes"].get<long long>();
      smallest = smallest < 0 ? heap : std::min(smallest, heap);
    }
    if (e["ph"] == "C" && e["name"] == "Lua heap")
      for (const auto& [key, value] : e["args"].items()) CHECK(value.get<long long>() > 10000);
  }
  CHECK(marks == 300);
  CHECK(smallest > 10000);  // a Lua heap is tens of kilobytes at least, never a delta of bytes
}
