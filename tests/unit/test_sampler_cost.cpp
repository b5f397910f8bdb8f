// A trace session and a sample session side by side: aborts carry the zone
// path and the trace's start, and each site's cost is the interpreter time
// of the loop it kept out of traces.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "../support/embedded_vm.h"
#include "../support/spin_clock.h"
#include "ljcheck/sample_session.h"
#include "ljcheck/site_cost.h"
#include "ljcheck/trace_session.h"

using namespace ljcheck;

namespace {

// The site's record for one trace start; any start when `start` is empty.
const AbortSite* findSite(const TraceReport& report, const std::string& reasonId, const std::string& location,
                          const std::string& start = "") {
  for (const AbortSite& site : report.sites)
    if (site.reasonId.str() == reasonId && site.location() == location &&
        (start.empty() || site.startLocation() == start))
      return &site;
  return nullptr;
}

}  // namespace

TEST_CASE("an abort site's cost is the interpreted samples of its loop", "[runtime][sampler][cost]") {
  testing::EmbeddedVm vm;
  auto trace = TraceSession::start(vm.L, {false, "/proj", ""});
  auto sampler = SampleSession::start(vm.L, {1, 16, "", "", "/proj"});
  REQUIRE(vm.run(std::string(testing::kSpinClock) +
                 "local ljcheck = require('ljcheck')\n"
                 "local n = 0\n"
                 "ljcheck.zone('hot')\n"
                 "local wall, cpu = deadline(0.4)\n"
                 "while now() < wall or os.clock() < cpu do\n"
                 "  for i = 1, 1000 do\n"
                 "    local f = function() return i end\n"
                 "    n = n + f()\n"
                 "  end\n"
                 "end\n"
                 "ljcheck.zone()\n")
              .empty());
  SampleReport samples = sampler->stop(vm.L);
  TraceReport report = trace->stop(vm.L);
  addSiteCosts(report, samples);

  // The for loop's traces die at the closure (and the while loop's may too:
  // a record per trace start, each with its own extent).
  const AbortSite* site = findSite(report, "NYIBC:FNEW", "snippet.lua:7", "snippet.lua:6");
  REQUIRE(site);
  CHECK(site->zonePath == "hot");
  CHECK(site->extentFirstLine == 6);
  CHECK(site->extentLastLine >= 8);
  CHECK(site->extentLastLine <= 9);
  CHECK(site->interpretedSamples > 20);
  // A sample stands for the session's CPU time per sample taken, not for
  // the 1 ms asked for (the kernel's timer ticks coarser).
  CHECK(samples.cpuMs > 0);
  CHECK(samples.samplesTaken >= samples.samples);
  CHECK(samples.msPerSample() == Approx(samples.cpuMs / static_cast<double>(samples.samplesTaken)));
  CHECK(site->costMs == Approx(static_cast<double>(site->interpretedSamples) * samples.msPerSample()));
  CHECK(samples.states[VmState::Interpreted] >= site->interpretedSamples);

  auto json = nlohmann::json::parse(toJson(report, &samples));
  CHECK(json["samples"]["intervalMs"] == 1);
  CHECK(json["samples"]["samples"].get<std::uint64_t>() == samples.samples);
  bool line7 = false;
  for (const auto& line : json["samples"]["lines"])
    if (line["location"] == "snippet.lua:7") line7 = line["interpreted"].get<int>() > 0;
  CHECK(line7);
  bool forLoop = false;
  for (const auto& s : json["sites"])
    if (s["location"] == "snippet.lua:7" && s["start"] == "snippet.lua:6") {
      forLoop = true;
      CHECK(s["costMs"].get<double>() == Approx(site->costMs));
    }
  CHECK(forLoop);

  std::string summary = runSummary(report, &samples);
  CHECK(summary.find("NYIBC:FNEW  snippet.lua:7") != std::string::npos);
  CHECK(summary.find("(trace started at snippet.lua:6)") != std::string::npos);

  std::string unsampled = runSummary(report, nullptr);
  CHECK(unsampled.find("samples") == std::string::npos);
  CHECK(unsampled.find("top sites by count") != std::string::npos);
  CHECK(unsampled.find("NYIBC:FNEW  snippet.lua:7") != std::string::npos);
}

TEST_CASE("speedscope JSON: one sampled profile per VM state over one frame table", "[runtime][sampler]") {
  SampleReport report;
  report.intervalMs = 10;
  SampleRecord a;
  a.frames = {"main@app.lua", "draw@app.lua:4"};
  a.states[VmState::Compiled] = 3;
  a.states[VmState::Interpreted] = 1;
  SampleRecord b;
  b.frames = {"main@app.lua", "gsub@[C]"};
  b.states[VmState::CCode] = 2;
  report.rows = {a, b};
  auto json = nlohmann::json::parse(toSpeedscopeJson(report, "app.lua"));
  CHECK(json["$schema"] == "https://www.speedscope.app/file-format-schema.json");
  const auto& frames = json["shared"]["frames"];
  REQUIRE(frames.size() == 3);
  CHECK(frames[1]["name"] == "draw@app.lua:4");
  CHECK(frames[1]["file"] == "app.lua");
  CHECK(frames[1]["line"] == 4);
  REQUIRE(json["profiles"].size() == 3);  // compiled, interpreted, cCode
  CHECK(json["profiles"][0]["name"] == "app.lua (compiled)");
  CHECK(json["profiles"][0]["samples"][0] == nlohmann::json({0, 1}));
  CHECK(json["profiles"][0]["weights"][0] == 30.0);
  CHECK(json["profiles"][2]["name"] == "app.lua (cCode)");
  CHECK(json["profiles"][2]["endValue"] == 20.0);
}

TEST_CASE("runtime JSON: the most frequent stacks with their VM states, the rest counted as dropped",
          "[runtime][sampler][stacks]") {
  TraceReport trace;
  SampleReport samples;
  samples.intervalMs = 5;
  samples.stackDepth = 8;
  std::size_t rows = kMaxJsonStacks + 3;
  for (std::size_t i = 0; i < rows; ++i) {  // by count, descending, as the session orders them
    SampleRecord row;
    row.zonePath = i == 0 ? "frame/render" : "";
    row.frames = {"main@app.lua", "f" + std::to_string(i) + "@app.lua:3"};
    row.states[VmState::Compiled] = i == 0 ? 7 : 1;
    row.states[VmState::Interpreted] = i == 0 ? 2 : 1;
    samples.rows.push_back(row);
  }
  auto json = nlohmann::json::parse(toJson(trace, &samples));
  const auto& s = json.at("samples");
  CHECK(s.at("stackDepth") == 8);
  CHECK(s.at("maxStacks") == kMaxJsonStacks);
  REQUIRE(s.at("stacks").size() == kMaxJsonStacks);
  CHECK(s.at("droppedStacks") == 3);
  CHECK(s.at("droppedSamples") == 6);
  const auto& first = s.at("stacks").at(0);
  CHECK(first.at("zonePath") == "frame/render");
  CHECK(first.at("frames") == nlohmann::json({"main@app.lua", "f0@app.lua:3"}));
  CHECK(first.at("count") == 9);
  CHECK(first.at("compiled") == 7);
  CHECK(first.at("interpreted") == 2);
  CHECK(first.at("cCode") == 0);
  CHECK(first.at("collecting") == 0);
  CHECK(first.at("compiling") == 0);
  CHECK(s.at("stacks").back().at("frames").at(1) == "f" + std::to_string(kMaxJsonStacks - 1) + "@app.lua:3");
}
