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
