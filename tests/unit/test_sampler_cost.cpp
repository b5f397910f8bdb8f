// A trace session and a sample session side by side: aborts carry the zone
// path and the trace's start, and each site's cost is the interpreter time
// of the loop it kept out of traces.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <limits>
#include <map>
#include <string>
#include <utility>

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

// Runs `snippet` (after kSpinClock) under a trace session (with coverage or
// not) and a 1 ms sampler, and charges the samples to the abort sites.
std::pair<TraceReport, SampleReport> runCosted(const std::string& snippet, bool coverage) {
  testing::EmbeddedVm vm;
  auto trace = TraceSession::start(vm.L, {coverage, "/proj", ""});
  auto sampler = SampleSession::start(vm.L, {1, 16, "", "", "/proj"});
  REQUIRE(vm.run(std::string(testing::kSpinClock) + snippet).empty());
  SampleReport samples = sampler->stop(vm.L);
  TraceReport report = trace->stop(vm.L);
  addSiteCosts(report, samples);
  return {std::move(report), std::move(samples)};
}

// Interpreted samples on lines [first, last] of the function whose first
// line is `functionLine` (0: the main chunk).
std::uint64_t interpretedOn(const SampleReport& samples, int functionLine, int first = 0,
                            int last = std::numeric_limits<int>::max()) {
  std::uint64_t n = 0;
  for (const LineSamples& line : samples.lines)
    if (line.functionLine == functionLine && line.line >= first && line.line <= last)
      n += line.states[VmState::Interpreted];
  return n;
}

// A vararg helper on lines 2-6 of a snippet that starts with it: it starts
// no trace of its own (LuaJIT never hot-counts a vararg function's entry),
// so it runs interpreted whenever its caller does.
constexpr const char* kVarargHelper =
    "local n = 0\n"
    "local function g(...)\n"
    "  local a, b = ...\n"
    "  local t = { a, b, a * b, a + b }\n"
    "  return t[1] + t[2] * t[3] - t[4]\n"
    "end\n";

}  // namespace

TEST_CASE("an abort site's cost is the interpreted samples of its loop", "[runtime][sampler][cost]") {
  auto [report, samples] = runCosted("local ljcheck = require('ljcheck')\n"
                                     "local n = 0\n"
                                     "ljcheck.zone('hot')\n"
                                     "local wall, cpu = deadline(0.4)\n"
                                     "while now() < wall or os.clock() < cpu do\n"
                                     "  for i = 1, 1000 do\n"
                                     "    local f = function() return i end\n"
                                     "    n = n + f()\n"
                                     "  end\n"
                                     "end\n"
                                     "ljcheck.zone()\n", false);

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
  // The C code the interpreted lines call counts too (site_cost.cpp): a
  // sample may land in the allocator or the collector the closures call
  // (seen in CI under load: 4 of 225 ms).
  CHECK(site->costMs ==
        Approx(static_cast<double>(site->interpretedSamples + site->cCodeSamples) * samples.msPerSample()));
  CHECK(site->cCodeSamples <= site->interpretedSamples / 10);
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

namespace {

AbortSite rootSite(const std::string& path, int line, int functionLine, int first, int last,
                   const std::string& zone = "", std::uint64_t count = 1) {
  AbortSite site;
  site.reasonId = ReasonId::parse("NYIBC:FNEW");
  site.path = site.startPath = path;
  site.line = line;
  site.startLine = first;
  site.startFunctionLine = functionLine;
  site.extentFirstLine = first;
  site.extentLastLine = last;
  site.zonePath = zone;
  site.count = count;
  return site;
}

// A sample report whose every sample stands for 1 ms (100 taken in 100 ms
// of CPU time), to which a test adds its lines.
SampleReport millisecondSamples() {
  SampleReport samples;
  samples.intervalMs = 1;
  samples.cpuMs = 100;
  samples.samplesTaken = 100;
  return samples;
}

LineSamples interpreted(const std::string& path, int line, int functionLine, std::uint64_t n,
                        const std::string& zone = "") {
  LineSamples l;
  l.path = path;
  l.line = line;
  l.functionLine = functionLine;
  l.zonePath = zone;
  l.states[VmState::Interpreted] = n;
  return l;
}

}  // namespace

TEST_CASE("a sample costs one trace start: the innermost, of its own function and zone", "[runtime][cost]") {
  SampleReport samples = millisecondSamples();
  TraceReport report;
  // In main (function line 0): an outer loop at 2-10 and an inner loop at 4-8 each aborted.
  report.sites.push_back(rootSite("a.lua", 3, 0, 2, 10));
  report.sites.push_back(rootSite("a.lua", 5, 0, 4, 8));
  // A function defined at 20 whose entry started a trace, with a closure at 22-24.
  report.sites.push_back(rootSite("a.lua", 22, 20, 20, 30, "hot", 3));
  report.sites.push_back(rootSite("a.lua", 22, 20, 20, 30, "cold", 1));
  // A side trace's abort: no extent, nothing to measure.
  AbortSite side = rootSite("a.lua", 6, 0, 0, 0);
  side.startLine = 6;
  report.sites.push_back(side);
  samples.lines = {
      interpreted("a.lua", 3, 0, 5),          // outer loop only
      interpreted("a.lua", 6, 0, 40),         // inner loop: not the outer's too
      interpreted("a.lua", 23, 22, 70),       // in the closure nested at 22: its own function
      interpreted("a.lua", 25, 20, 9, "hot"),  // the function's own line in zone hot
      interpreted("a.lua", 26, 20, 4, "ui"),   // a zone where it never aborted: the zone it aborted most in
      interpreted("b.lua", 3, 0, 50),         // another file
  };
  addSiteCosts(report, samples);
  CHECK(report.sites[0].interpretedSamples == 5);
  CHECK(report.sites[1].interpretedSamples == 40);
  CHECK(report.sites[2].interpretedSamples == 13);  // hot: 9 of its own zone, 4 of ui
  CHECK(report.sites[3].interpretedSamples == 0);   // cold: nothing sampled there
  CHECK(report.sites[4].interpretedSamples == 0);
  CHECK(report.sites[1].costMs == Approx(40.0));
  std::uint64_t charged = 0;
  for (const AbortSite& site : report.sites) charged += site.interpretedSamples;
  CHECK(charged == 5 + 40 + 9 + 4);  // no sample twice, none from the closure or the other file

  auto json = nlohmann::json::parse(toJson(report, &samples));
  CHECK(json["sites"][1]["costMs"].get<double>() == Approx(40.0));
  CHECK(json["sites"][4]["costMs"].is_null());  // the side trace's: not measured, not 0
  CHECK(json["samples"]["lines"][2]["function"] == 22);
  std::string summary = runSummary(report, &samples);
  CHECK(summary.find("-     NYIBC:FNEW  a.lua:6") != std::string::npos);

  // A run too short for one tick states no rate it never measured.
  SampleReport none;
  none.intervalMs = 10;
  std::string brief = runSummary(report, &none);
  CHECK(brief.rfind("ljcheck: no sample was taken: the run used less CPU time than one tick", 0) == 0);
  CHECK(brief.find("one per") == std::string::npos);
}

TEST_CASE("nested loops' aborts are charged no sample twice in a real run", "[runtime][sampler][cost]") {
  // The outer loop's closure is cheap and its loop is not blacklisted; the
  // inner loop's closure blacklists it. The inner loop's interpreted time is
  // the inner start's, not the outer's as well.
  auto [report, samples] = runCosted("local acc = 0\n"
                                     "local wall, cpu = deadline(0.4)\n"
                                     "while now() < wall or os.clock() < cpu do\n"
                                     "  local cheap = function() return 1 end\n"
                                     "  for j = 1, 200 do\n"
                                     "    local g = function() return j end\n"
                                     "    acc = acc + g() acc = acc * 3 % 17 + acc / 5 acc = acc * 3 % 17 + acc / 5\n"
                                     "  end\n"
                                     "  acc = acc + cheap()\n"
                                     "end\n", false);
  const AbortSite* inner = findSite(report, "NYIBC:FNEW", "snippet.lua:6", "snippet.lua:5");
  REQUIRE(inner);
  CHECK(inner->extentFirstLine == 5);
  CHECK(inner->interpretedSamples > 10);
  // Sites of one start (and zone) share its samples (LLEAVE beside the
  // closure, say): counted once each.
  std::map<std::pair<std::string, std::string>, std::uint64_t> byStart;
  for (const AbortSite& site : report.sites) {
    auto& n = byStart[{site.startLocation(), site.zonePath}];
    n = std::max(n, site.interpretedSamples);
  }
  std::uint64_t charged = 0, elsewhere = 0;
  for (const auto& [start, n] : byStart) {
    charged += n;
    if (start.first != "snippet.lua:5") elsewhere += n;
  }
  INFO(runSummary(report, &samples, 10));
  CHECK(elsewhere < inner->interpretedSamples);  // the outer loop's own lines are few
  CHECK(charged <= samples.states[VmState::Interpreted]);
}

TEST_CASE("two starts the collector gave the same lines share no sample", "[runtime][cost]") {
  SampleReport samples = millisecondSamples();
  TraceReport report;
  // The entry of a function at 2 and a loop at 9 in it, both over 2-13.
  AbortSite entry = rootSite("a.lua", 5, 2, 2, 13);
  AbortSite loop = rootSite("a.lua", 12, 2, 2, 13);
  loop.startLine = 9;
  report.sites = {entry, loop};
  samples.lines = {interpreted("a.lua", 10, 2, 30)};
  addSiteCosts(report, samples);
  CHECK(report.sites[0].interpretedSamples + report.sites[1].interpretedSamples == 30);
}

TEST_CASE("a while loop's start covers the loop, not its whole function", "[runtime][sampler][cost]") {
  // Two while loops in a function called hot: the entry's traces stop at
  // the first loop (LINNER), the second loop's traces leave it (LLEAVE).
  // Each start's cost is its own lines' samples.
  auto [report, samples] = runCosted("local function number_to_bit(num, length)\n"
                                     "  local bits = {}\n"
                                     "  while num > 0 do\n"
                                     "    local rest = math.floor(math.fmod(num, 2))\n"
                                     "    table.insert(bits, rest)\n"
                                     "    num = (num - rest) / 2\n"
                                     "  end\n"
                                     "  while #bits < length do\n"
                                     "    table.insert(bits, \"0\")\n"
                                     "  end\n"
                                     "  return string.reverse(table.concat(bits))\n"
                                     "end\n"
                                     "local n, i = 0, 0\n"
                                     "local wall, cpu = deadline(0.4)\n"
                                     "while now() < wall or os.clock() < cpu do\n"
                                     "  i = i + 1\n"
                                     "  n = n + #number_to_bit(i % 64, 6 + i % 3)\n"
                                     "end\n", true);
  INFO(runSummary(report, &samples, 10));
  std::map<std::pair<std::string, std::string>, std::uint64_t> byStart;
  bool secondLoop = false;
  for (const AbortSite& site : report.sites) {
    if (!site.hasExtent()) continue;
    if (site.startLocation() == "snippet.lua:8") {
      secondLoop = true;
      CHECK(site.extentFirstLine == 8);
      CHECK(site.extentLastLine >= 9);  // the back edge carries the body's last line
      CHECK(site.extentLastLine <= 10);
    }
    if (site.startLocation() == "snippet.lua:1") {
      CHECK(site.extentFirstLine == 1);
      CHECK(site.extentLastLine == 12);
    }
    auto& n = byStart[{site.startLocation(), site.zonePath}];
    n = std::max(n, site.interpretedSamples);
  }
  CHECK(secondLoop);
  std::uint64_t charged = 0;
  for (const auto& [start, n] : byStart) charged += n;
  CHECK(charged <= samples.states[VmState::Interpreted]);
}

TEST_CASE("a pairs loop's start covers the loop, not its whole function", "[runtime][sampler][cost]") {
  // A pairs loop's traces start at its ITERN (after the body in the
  // bytecode): the closure in it aborts each of them, and the start's cost
  // is the loop's lines, not the work before the loop in its function.
  auto [report, samples] = runCosted("local t = { a = 1, b = 2, c = 3 }\n"
                                     "local function f(t, n)\n"
                                     "  local x = { n, n + 1, n + 2, tostring(n) }\n"
                                     "  local s = x[1] + x[2] + x[3] + #x[4]\n"
                                     "  for k, v in pairs(t) do\n"
                                     "    local g = function() return v end\n"
                                     "    s = s + g()\n"
                                     "  end\n"
                                     "  return s\n"
                                     "end\n"
                                     "local acc, i = 0, 0\n"
                                     "local wall, cpu = deadline(0.4)\n"
                                     "while now() < wall or os.clock() < cpu do\n"
                                     "  i = i + 1\n"
                                     "  acc = acc + f(t, i)\n"
                                     "end\n", true);
  INFO(runSummary(report, &samples, 10));
  const AbortSite* closure = nullptr;
  for (const AbortSite& site : report.sites)
    if (site.reasonId.str() == "NYIBC:FNEW" && site.startLocation() == "snippet.lua:5" && site.hasExtent()) closure = &site;
  REQUIRE(closure);
  CHECK(closure->extentFirstLine == 5);
  CHECK(closure->extentLastLine <= 8);
}

TEST_CASE("a trace stitched after a call is blacklisted by its abort and costs from the call to its loop's end",
          "[runtime][sampler][cost]") {
  // The loop's root trace ends at the stitched match; the trace stitched
  // after it aborts at the closure once, and the VM never records after the
  // call again (lj_trace.c trace_abort links the stitching trace to itself):
  // the rest of the body runs interpreted from then on.
  auto [report, samples] = runCosted("local acc, i = 0, 0\n"
                                     "local wall, cpu = deadline(0.4)\n"
                                     "while now() < wall or os.clock() < cpu do\n"
                                     "  i = i + 1\n"
                                     "  local w = ('hello world'):match('^%a+')\n"
                                     "  local g = function() return w end\n"
                                     "  acc = acc + #g()\n"
                                     "end\n"
                                     "local tail = 0\n"
                                     "for k = 1, 1000 do tail = tail + k end\n",
                                     false);
  INFO(runSummary(report, &samples, 10));
  const AbortSite* closure = findSite(report, "NYIBC:FNEW", "snippet.lua:6", "snippet.lua:5");
  REQUIRE(closure);
  CHECK(closure->count == 1);
  CHECK(closure->severity == Severity::Blacklist);
  CHECK(closure->extentFirstLine == 5);
  // The while loop's back edge carries its last statement's line: the
  // extent ends there, not at the function's end (the loop at line 10).
  CHECK(closure->extentLastLine >= 7);
  CHECK(closure->extentLastLine <= 8);
  CHECK(closure->interpretedSamples > 0);
  CHECK(report.blacklisted >= 1);
}

TEST_CASE("a side exit left to the interpreter gives its side traces' abort an extent and a cost",
          "[runtime][sampler][cost]") {
  // The loop's root trace records the pass that skips the branch and
  // compiles; the branch's exit gets hot, and each side trace from it
  // aborts at the closure. After hotexit + tryside exits (10 + 4) the VM
  // links the exit to the interpreter (lj_record.c, -jv's "fallback to
  // interpreter"): the passes that take the branch run interpreted from the
  // exit to the loop's back edge from then on. No start is blacklisted.
  auto [report, samples] = runCosted("local acc, keep, i = 0, nil, 0\n"
                                     "local wall, cpu = deadline(0.4)\n"
                                     "while now() < wall or os.clock() < cpu do\n"
                                     "  i = i + 1\n"
                                     "  if i % 2 == 0 then\n"
                                     "    keep = function() return acc end\n"
                                     "    for k = 1, #tostring(i) do acc = acc + k end\n"
                                     "  end\n"
                                     "  acc = acc + 1\n"
                                     "end\n",
                                     false);
  INFO(runSummary(report, &samples, 10));
  const AbortSite* closure = findSite(report, "NYIBC:FNEW", "snippet.lua:6", "snippet.lua:6");
  REQUIRE(closure);
  CHECK(closure->fallback);
  CHECK(closure->severity == Severity::Warn);  // a fallback blacklists no start
  CHECK(closure->count >= 4);                  // tryside attempts per exit
  CHECK(closure->extentFirstLine == 6);
  CHECK(closure->extentLastLine >= 8);
  CHECK(closure->extentLastLine <= 9);
  CHECK(closure->interpretedSamples > 0);
  CHECK(report.fallbackExits >= 1);
  CHECK(runSummary(report, &samples, 10).find("(side traces from snippet.lua:6, left to the interpreter)") !=
        std::string::npos);
}

TEST_CASE("an exit left to the interpreter without aborts of its own gives no abort site its extent",
          "[runtime][cost]") {
  // Each chunk loadstring makes is new code the loop's traces exit into:
  // side traces pile up on the root, each aborting once at the closure
  // (then compiled on the other path), until the root has maxside (100)
  // side traces and the next exit is linked to the interpreter at once
  // (-jv: "(103/0) ... fallback to interpreter", no abort from that exit).
  // The aborts at the same pc are not "left to the interpreter" (audit 51).
  auto [report, samples] = runCosted("local function mk(x) return function() return x end end\n"
                                     "local n = 0\n"
                                     "for i = 1, 3000 do\n"
                                     "  local v = loadstring('return ' .. i)()\n"
                                     "  if v % 3 == 0 then n = n + mk(v)() else n = n + 1 end\n"
                                     "end\n",
                                     false);
  INFO(runSummary(report, &samples, 10));
  REQUIRE(report.fallbackExits >= 1);
  const AbortSite* closure = findSite(report, "NYIBC:FNEW", "snippet.lua:1", "snippet.lua:4");
  REQUIRE(closure);
  CHECK(closure->count > 10);  // one per side trace
  CHECK_FALSE(closure->fallback);
  CHECK(closure->extentFirstLine == 0);
  CHECK(runSummary(report, &samples, 10).find("side traces from snippet.lua:4, left to the interpreter") ==
        std::string::npos);
}

TEST_CASE("a trace that runs into blacklisted code names the site that blacklisted it", "[runtime][blacklist]") {
  // inner's entry is blacklisted by its closure (its own traces and the
  // first loop's abort there); the second loop's traces record outer, run
  // into inner's blacklisted entry and abort with BLACKL at line 2 (`-jv`:
  // "blacklisted at snippet.lua:2"), which blacklists that loop and outer's
  // entry too.
  auto [report, samples] = runCosted("local n = 0\n"
                                     "local function inner(x)\n"
                                     "  local f = function() return x end\n"
                                     "  return f()\n"
                                     "end\n"
                                     "local function outer(x) return inner(x) + 1 end\n"
                                     "for i = 1, 100000 do n = n + inner(i) end\n"
                                     "for i = 1, 100000 do n = n + outer(i) end\n"
                                     "local function top(x) return outer(x) * 2 end\n"
                                     "for i = 1, 300000 do n = n + top(i) end\n",
                                     false);
  const std::string summary = runSummary(report, &samples, 10);
  INFO(summary);
  const AbortSite* ranInto = findSite(report, "BLACKL", "snippet.lua:2");
  REQUIRE(ranInto);
  CHECK(ranInto->blacklistedByLocation == "snippet.lua:3");
  CHECK(ranInto->blacklistedByReasonId == "NYIBC:FNEW");
  CHECK(summary.find("ran into code blacklisted by NYIBC:FNEW at snippet.lua:3") != std::string::npos);
  const AbortSite* closure = findSite(report, "NYIBC:FNEW", "snippet.lua:3");
  REQUIRE(closure);
  CHECK(closure->blacklistedByLocation.empty());  // the cause itself names none
  // A cascade: outer's entry was blacklisted by running into inner's, and
  // top's traces run into outer's (`-jv`: "blacklisted at snippet.lua:6"):
  // the chain is followed to the site to fix.
  const AbortSite* second = findSite(report, "BLACKL", "snippet.lua:6");
  REQUIRE(second);
  CHECK(second->blacklistedByLocation == "snippet.lua:3");
  CHECK(second->blacklistedByReasonId == "NYIBC:FNEW");
}

TEST_CASE("a function entry's cost takes the interpreted samples of the callees its trace would have inlined",
          "[runtime][sampler][cost]") {
  // f's entry trace aborts at its closure every time (its start is
  // blacklisted); g, a vararg function, starts no trace of its own and runs
  // interpreted whenever f does (`-jv`: no trace at g). With the closure
  // hoisted, f's trace records g inline: g's time is part of f's cost.
  auto [report, samples] = runCosted(std::string(kVarargHelper) +
                                     "local function f(x)\n"
                                     "  local s = g(x, 2)\n"
                                     "  local h = function() return s end\n"
                                     "  return h()\n"
                                     "end\n"
                                     "local wall, cpu = deadline(0.4)\n"
                                     "while now() < wall or os.clock() < cpu do\n"
                                     "  for i = 1, 1000 do n = n + f(i) end\n"
                                     "end\n",
                                     false);
  INFO(runSummary(report, &samples, 10));
  const AbortSite* closure = findSite(report, "NYIBC:FNEW", "snippet.lua:9", "snippet.lua:7");
  REQUIRE(closure);
  const std::uint64_t own = interpretedOn(samples, 7), callee = interpretedOn(samples, 2);  // f's lines, g's
  INFO("f's own " << own << ", g's " << callee);
  REQUIRE(callee > 0);
  CHECK(closure->interpretedSamples == own + callee);
}

TEST_CASE("a loop's cost takes the interpreted samples of the callees its trace would have inlined",
          "[runtime][sampler][cost]") {
  // The inner loop's trace aborts at its closure every time (blacklisted);
  // g, a vararg function, starts no trace of its own and runs interpreted
  // whenever the loop does. With the closure hoisted, the loop's trace
  // records g inline: g's time is part of the loop's cost. The sampler
  // keeps the line each caller was on, so the call at line 11 is the inner
  // loop's, not the outer one's.
  auto [report, samples] = runCosted(std::string(kVarargHelper) +
                                     "local wall, cpu = deadline(0.4)\n"
                                     "while now() < wall or os.clock() < cpu do\n"
                                     "  for i = 1, 1000 do\n"
                                     "    local h = function() return i end\n"
                                     "    n = n + g(i, 2)\n"
                                     "  end\n"
                                     "end\n",
                                     false);
  INFO(runSummary(report, &samples, 10));
  const AbortSite* closure = findSite(report, "NYIBC:FNEW", "snippet.lua:10", "snippet.lua:9");
  REQUIRE(closure);
  REQUIRE(closure->extentFirstLine == 9);  // the inner loop, not the whole chunk
  const int last = closure->extentLastLine;
  const std::uint64_t own = interpretedOn(samples, 0, 9, last), callee = interpretedOn(samples, 2);  // the loop's, g's
  INFO("the loop's own " << own << ", g's " << callee);
  REQUIRE(callee > 0);
  CHECK(closure->interpretedSamples == own + callee);
  // The outer loop's start (if its trace aborted too) takes none of g's.
  for (const AbortSite& site : report.sites)
    if (site.startLocation() == "snippet.lua:8") CHECK(site.interpretedSamples < callee);
}

TEST_CASE("a side exit left to the interpreter inside an inlined function charges its caller's lines after the return",
          "[runtime][sampler][cost]") {
  // The loop's trace inlines step(); the exit at step's branch (line 5) is
  // left to the interpreter after its side traces abort in slow(). Passes
  // that take it run step's rest interpreted, return into the loop body
  // and run its lines 16-18 interpreted up to the back edge, where the
  // loop's trace is entered again: both frames' lines are the site's cost
  // (audit 47's fb5, `-jv`: "(1/n) snippet.lua:6 -- fallback to interpreter").
  auto [report, samples] = runCosted("local function slow(x)\n"
                                     "  return (setmetatable({}, {__index = function() return x end})).k\n"
                                     "end\n"
                                     "local function step(i, t)\n"
                                     "  if i % 4 == 0 then\n"
                                     "    t = t + slow(i)\n"
                                     "  else\n"
                                     "    t = t + i\n"
                                     "  end\n"
                                     "  return t\n"
                                     "end\n"
                                     "local t, i = 0, 0\n"
                                     "local wall, cpu = deadline(0.4)\n"
                                     "while now() < wall or os.clock() < cpu do\n"
                                     "  i = i + 1\n"
                                     "  t = step(i, t)\n"
                                     "  local a, b, c = i % 3, i % 5, i % 7\n"
                                     "  t = t - 1 + a * b - b * a + c - c\n"
                                     "end\n",
                                     false);
  INFO(runSummary(report, &samples, 10));
  const AbortSite* closure = nullptr;
  for (const AbortSite& site : report.sites)
    if (site.reasonId.str() == "NYIBC:FNEW" && site.location() == "snippet.lua:2" && site.fallback) closure = &site;
  REQUIRE(closure);
  // The caller's lines from the call to the back edge, and the while
  // loop's condition the back edge jumps to, run before the LOOP enters
  // the trace again (audit 50).
  REQUIRE(closure->callerExtents.size() == 2);
  const AbortSite::CallerExtent& caller = closure->callerExtents[0];
  CHECK(caller.path == "snippet.lua");
  CHECK(caller.functionLine == 0);  // the main chunk
  CHECK(caller.firstLine == 16);
  CHECK(caller.lastLine == 18);
  const AbortSite::CallerExtent& condition = closure->callerExtents[1];
  CHECK(condition.functionLine == 0);
  CHECK(condition.firstLine == 14);
  CHECK(condition.lastLine == 14);
  const std::uint64_t inStep = interpretedOn(samples, 4, closure->extentFirstLine, closure->extentLastLine);
  const std::uint64_t inCaller = interpretedOn(samples, 0, 14, 14) + interpretedOn(samples, 0, 16, 18);
  INFO("step's lines " << inStep << ", the caller's " << inCaller);
  REQUIRE(inCaller > 0);
  CHECK(closure->interpretedSamples >= inStep + inCaller);
}

TEST_CASE("a trace stitched inside a helper charges the caller's lines it returns into", "[runtime][sampler][cost]") {
  // escape() stitches around gsub; the stitched trace returns into the
  // loop body and aborts at its closure (audit 48: a plugin's format loop,
  // cost 0.0 ms while hoisting the comparator saved 13%). The stitch is
  // blacklisted, so every pass runs the body from the call of escape to
  // the back edge interpreted: those lines are the site's cost too.
  auto [report, samples] = runCosted("local function escape(s)\n"
                                     "  return (s:gsub('`', \"'\"))\n"
                                     "end\n"
                                     "local t = { 'b', 'a', 'c' }\n"
                                     "local n = 0\n"
                                     "local wall, cpu = deadline(0.4)\n"
                                     "while now() < wall or os.clock() < cpu do\n"
                                     "  for i = 1, 200 do\n"
                                     "    local msg = escape('bad `x` here')\n"
                                     "    n = n + #string.format('%s %d', msg, i)\n"
                                     "    table.sort(t, function(a, b) return a < b end)\n"
                                     "  end\n"
                                     "end\n",
                                     false);
  INFO(runSummary(report, &samples, 10));
  const AbortSite* closure = findSite(report, "NYIBC:FNEW", "snippet.lua:11", "snippet.lua:2");
  REQUIRE(closure);
  REQUIRE(closure->callerExtents.size() == 1);
  const AbortSite::CallerExtent& caller = closure->callerExtents[0];
  CHECK(caller.functionLine == 0);
  CHECK(caller.firstLine == 9);
  CHECK(caller.lastLine == 11);
  const std::uint64_t inCaller = interpretedOn(samples, 0, 9, 11);
  INFO("the caller's lines " << inCaller);
  REQUIRE(inCaller > 0);
  CHECK(closure->interpretedSamples >= inCaller);
}

TEST_CASE("a side exit's extent starts at the exit, whatever early return LuaJIT placed after it",
          "[runtime][sampler][cost]") {
  // Audit 66: score's `return 0` closes the closure's upvalue, and LuaJIT
  // puts that UCLO and RET last in the function, with line 4. The inner
  // loop's exit at line 8 gets side traces that abort at the UCLO before
  // `return s` and is left to the interpreter: the code it runs is line 8,
  // not lines 4-8, whose samples belong to the function's own entry.
  auto [report, samples] = runCosted("local items = {}\n"
                                     "for i = 1, 4000 do items[i] = (i % 97 ~= 0) and { w = i % 50 } or false end\n"
                                     "local function score(item, k)\n"
                                     "  if not item then return 0 end\n"
                                     "  local weigh = function(x) return x * k end\n"
                                     "  local s = weigh(item.w)\n"
                                     "  for j = 1, 12 do s = s + (item.w * j) % 7 end\n"
                                     "  return s\n"
                                     "end\n"
                                     "local total = 0\n"
                                     "local wall, cpu = deadline(0.4)\n"
                                     "while now() < wall or os.clock() < cpu do\n"
                                     "  for i = 1, #items do total = total + score(items[i], 2) end\n"
                                     "end\n",
                                     false);
  INFO(runSummary(report, &samples, 10));
  const AbortSite* exit = findSite(report, "NYIBC:UCLO", "snippet.lua:8", "snippet.lua:8");
  REQUIRE(exit);
  CHECK(exit->fallback);
  CHECK(exit->extentFirstLine == 8);
  CHECK(exit->extentLastLine == 8);
}

TEST_CASE("a trace that returns to the interpreter at a call charges what then runs interpreted, not an outer start",
          "[runtime][sampler][cost]") {
  // Audit 86 (d06): each's loop has a trace of its own, which inlines
  // handle and ends at os.date with link type "return" (its result feeds
  // tonumber's variable arguments: no stitch). The rest of handle then runs
  // interpreted on every pass, and so does each's loop body up to its back
  // edge, where the trace is entered again. Those samples are the RETURN's
  // cost. They were charged to the outer loop's closure, whose fix saved
  // nothing (the split's saved 796 of 882 ms).
  auto [report, samples] = runCosted("\n"
                                     "local function handle(v)\n"
                                     "  local h = tonumber(os.date('!%H', v))\n"
                                     "  local a = h * 3 + v % 7\n"
                                     "  local b = (a * a) % 11 + (v * 13) % 17\n"
                                     "  local c = (a + b) * (a - b) % 23\n"
                                     "  return a + b + c\n"
                                     "end\n"
                                     "local function each(t, f)\n"
                                     "  local s = 0\n"
                                     "  for i = 1, #t do s = s + f(t[i]) end\n"
                                     "  return s\n"
                                     "end\n"
                                     "local t = {}\n"
                                     "for i = 1, 300 do t[i] = i * 3600 end\n"
                                     "local total = 0\n"
                                     "local wall, cpu = deadline(0.4)\n"
                                     "while now() < wall or os.clock() < cpu do\n"
                                     "  local g = function() return total end\n"
                                     "  total = total + each(t, handle) + g() * 0\n"
                                     "end\n",
                                     false);
  INFO(runSummary(report, &samples, 10));
  const AbortSite* split = findSite(report, "RETURN:os.date", "snippet.lua:3");
  REQUIRE(split);
  CHECK(split->startLocation() == "snippet.lua:3");
  CHECK(split->startFunctionLine == 2);
  CHECK(split->extentFirstLine == 3);
  CHECK(split->extentLastLine == 7);
  REQUIRE(split->callerExtents.size() == 1);
  CHECK(split->callerExtents[0].functionLine == 9);
  CHECK(split->callerExtents[0].firstLine == 11);
  CHECK(split->callerExtents[0].lastLine == 11);
  const std::uint64_t inHandle = interpretedOn(samples, 2, 4, 7);
  INFO("handle's lines after the call " << inHandle);
  REQUIRE(inHandle > 0);
  CHECK(split->interpretedSamples >= inHandle);
  const AbortSite* closure = findSite(report, "NYIBC:FNEW", "snippet.lua:19");
  REQUIRE(closure);
  std::uint64_t interpreted = 0;
  for (const LineSamples& line : samples.lines) interpreted += line.states[VmState::Interpreted];
  CHECK(closure->interpretedSamples + inHandle <= interpreted);
  CHECK_THAT(runSummary(report, &samples, 10),
             Catch::Contains("RETURN:os.date  snippet.lua:3  x1  (its trace returns to the interpreter here)"));
}

TEST_CASE("a function's own trace that tail-calls an unrecorded builtin charges nothing to its caller",
          "[runtime][sampler][cost]") {
  // The loop never compiles (a closure per pass), so hour's entry gets hot
  // and starts a trace of its own, which ends at the tail call with link
  // type "return" and leaves no frame: the split is placed at the calling
  // line. The caller runs interpreted anyway (a trace through the call
  // would have inlined hour), and the function's trace would have returned
  // to the interpreter there all the same: no extent, no cost.
  auto [report, samples] = runCosted("\n"
                                     "local function hour(v)\n"
                                     "  return os.date('!%H', v)\n"
                                     "end\n"
                                     "local acc = 0\n"
                                     "for i = 1, 3000 do\n"
                                     "  local f = function() return i end\n"
                                     "  acc = acc + #hour(i * 3600) + f()\n"
                                     "end\n",
                                     false);
  INFO(runSummary(report, &samples, 10));
  const AbortSite* split = findSite(report, "RETURN:os.date", "snippet.lua:8");
  REQUIRE(split);
  CHECK(!split->hasExtent());
  CHECK(split->startPath.empty());
  CHECK(split->callerExtents.empty());
}

TEST_CASE("a trace LuaJIT restarts at a return costs that return's line, not its whole function",
          "[runtime][sampler][cost]") {
  // The side trace from sum's base case goes down the recursion, and
  // LuaJIT restarts recording at the return of line 4 as a root trace of
  // its own (-jv: "down-recursion, restarting at"), which aborts returning
  // into pcall's frame (both builds, every run). What it records is that
  // return, never the body above it (audit 86 d04: a decoder's whole
  // function, its loop included, was charged to such a start).
  auto [report, samples] = runCosted("\n"
                                     "local function sum(k)\n"
                                     "  if k == 0 then return 0 end\n"
                                     "  return k + sum(k - 1)\n"
                                     "end\n"
                                     "local n = 0\n"
                                     "for i = 1, 3000 do\n"
                                     "  local ok, v = pcall(sum, 5)\n"
                                     "  n = n + v\n"
                                     "end\n",
                                     false);
  INFO(runSummary(report, &samples, 10));
  const AbortSite* restarted = findSite(report, "NYIRETL", "snippet.lua:4", "snippet.lua:4");
  REQUIRE(restarted);
  CHECK(restarted->startFunctionLine == 2);
  CHECK(restarted->extentFirstLine == 4);
  CHECK(restarted->extentLastLine == 4);
}

TEST_CASE("a RETURN whose results feed a tail call costs its own line, not the code after that return",
          "[runtime][sampler][cost]") {
  // Audit 90 (p07): `return handlers[t](w, unpack(...))`; the spawn path
  // after it runs only on the other branch, and was charged to the split.
  auto [report, samples] = runCosted("\n"
                                     "local handlers = { add = function(w, a, b) return a + b + w end }\n"
                                     "local function spawn(w) local t = function() return w end return t() end\n"
                                     "local function dispatch(w, msg)\n"
                                     "  if msg.n then return handlers[msg.type](w, unpack(msg.args, 1, msg.n)) end\n"
                                     "  local x = spawn(w)\n"
                                     "  return x + 1\n"
                                     "end\n"
                                     "local m = { n = 2, type = 'add', args = { 1, 2 } }\n"
                                     "local s = 0\n"
                                     "for i = 1, 20000 do s = s + dispatch(i, m) end\n",
                                     false);
  INFO(runSummary(report, &samples, 10));
  const AbortSite* split = findSite(report, "RETURN:unpack", "snippet.lua:5");
  REQUIRE(split);
  CHECK(split->extentFirstLine == 5);
  CHECK(split->extentLastLine == 5);
  REQUIRE(split->callerExtents.size() == 1);
  CHECK(split->callerExtents[0].functionLine == 0);
  CHECK(split->callerExtents[0].firstLine == 11);
}

TEST_CASE("a RETURN at error resumes after the pcall it unwinds to", "[runtime][sampler][cost]") {
  // Audit 90 (p09): the rest of check and validate never runs after
  // error(); the loop after the pcall does, interpreted, on every pass.
  auto [report, samples] = runCosted("\n"
                                     "local function check(v)\n"
                                     "  if v % 3 == 0 then error('bad value') end\n"
                                     "  return v\n"
                                     "end\n"
                                     "local function validate(v)\n"
                                     "  local r = check(v)\n"
                                     "  return r * 2\n"
                                     "end\n"
                                     "local bad, sum = 0, 0\n"
                                     "for i = 1, 30000 do\n"
                                     "  local ok, r = pcall(validate, i)\n"
                                     "  if ok then sum = sum + r else bad = bad + 1 end\n"
                                     "  sum = sum + i % 7\n"
                                     "end\n",
                                     false);
  INFO(runSummary(report, &samples, 10));
  const AbortSite* split = findSite(report, "RETURN:error", "snippet.lua:3");
  REQUIRE(split);
  CHECK(split->startLocation() == "snippet.lua:12");
  CHECK(split->extentFirstLine == 12);
  CHECK(split->extentLastLine == 14);
}

TEST_CASE("a RETURN in a side trace that went on below its root's frame costs the caller's rest",
          "[runtime][sampler][cost]") {
  // Audit 90 (p05): the root trace is shard_of's loop; the side trace from
  // its exit returns into enrich (`-jv` on both builds: `(1/3) ... return`)
  // and ends at os.date, whose result feeds tonumber: the rest of enrich
  // and the main loop's body run interpreted on every pass.
  auto [report, samples] = runCosted("\n"
                                     "local function shard_of(key)\n"
                                     "  local h = 7\n"
                                     "  for k = 1, #key do h = (h * 31 + key:byte(k)) % 65536 end\n"
                                     "  return h % 64\n"
                                     "end\n"
                                     "local counts = {}\n"
                                     "local function enrich(ev)\n"
                                     "  local sh = shard_of(ev.user)\n"
                                     "  local wday = tonumber(os.date('!%w', ev.ts)) + 1\n"
                                     "  counts[sh] = (counts[sh] or 0) + wday\n"
                                     "  local x = wday * 3 + sh\n"
                                     "  return x % 7\n"
                                     "end\n"
                                     "local ev, s = { user = 'user-12345', ts = 1700000000 }, 0\n"
                                     "for i = 1, 20000 do ev.ts = ev.ts + 97; s = s + enrich(ev) end\n",
                                     false);
  INFO(runSummary(report, &samples, 10));
  const AbortSite* split = findSite(report, "RETURN:os.date", "snippet.lua:10");
  REQUIRE(split);
  CHECK(split->startFunctionLine == 8);
  CHECK(split->extentFirstLine == 10);
  CHECK(split->extentLastLine == 13);
  REQUIRE(split->callerExtents.size() == 1);
  CHECK(split->callerExtents[0].functionLine == 0);
  CHECK(split->callerExtents[0].firstLine == 16);
}

// C code the interpreter calls on an aborted start's lines is part of what
// the abort costs: a trace would compile a cdata's index inline (audit 91:
// a blacklisted loop over cdata, 11% interpreted and 83% C code, whose fix
// saved 8 times what the interpreted samples said).
TEST_CASE("an aborted loop's cost takes the C code its lines call", "[runtime][sampler][cost]") {
  auto [report, samples] = runCosted("\nlocal ffi = require('ffi')\n"           // 2
                                     "local buf = ffi.new('double[64]')\n"     // 3
                                     "local acc = 0\n"                         // 4
                                     "local wall, cpu = deadline(0.5)\n"        // 5
                                     "while now() < wall or os.clock() < cpu do\n"  // 6
                                     "  for i = 0, 999 do\n"                    // 7
                                     "    local f = function() return i end\n"  // 8
                                     "    buf[i % 64] = buf[(i + 1) % 64] + f()\n"  // 9
                                     "  end\n"                                  // 10
                                     "end\n", false);
  std::string sites;
  for (const AbortSite& s : report.sites) sites += s.reasonId.str() + " " + s.location() + " " + s.startLocation() + "\n";
  INFO(sites);
  const AbortSite* site = findSite(report, "NYIBC:FNEW", "snippet.lua:8", "snippet.lua:7");
  REQUIRE(site);
  std::uint64_t cOnLoop = 0;
  for (const LineSamples& line : samples.lines)
    if (line.functionLine == 0 && line.line >= site->extentFirstLine && line.line <= site->extentLastLine)
      cOnLoop += line.states[VmState::CCode];
  INFO("C samples on the loop's lines: " << cOnLoop << ", interpreted: " << site->interpretedSamples);
  CHECK(cOnLoop > 0);
  CHECK(site->cCodeSamples == cOnLoop);
  CHECK(site->costMs == Approx(samples.millisecondsOf(site->interpretedSamples + site->cCodeSamples)));
}

// A line where the run saw a split (STITCH, RETURN) keeps its C samples out
// of the cost: that builtin runs in C once the abort is fixed too.
TEST_CASE("C code on a split's line is not charged to the abort around it", "[runtime][cost]") {
  SampleReport samples = millisecondSamples();
  TraceReport report;
  report.sites.push_back(rootSite("a.lua", 5, 0, 2, 8));
  AbortSite split = rootSite("a.lua", 4, 0, 0, 0);
  split.reasonId = ReasonId::parse("STITCH:string.gsub");
  report.sites.push_back(split);
  LineSamples index = interpreted("a.lua", 6, 0, 3), gsub = interpreted("a.lua", 4, 0, 2),
              after = interpreted("a.lua", 5, 0, 1);
  index.states[VmState::CCode] = 30;   // a cdata's index: compiled inline once the loop compiles
  index.states[VmState::Collecting] = 5;  // garbage collection: not charged
  gsub.states[VmState::CCode] = 20;    // string.gsub: C either way
  // The profiler takes a C function's sample at the next instruction, on
  // the next line when the call ends its own (audit 92).
  after.states[VmState::CCode] = 40;
  samples.lines = {gsub, after, index};
  addSiteCosts(report, samples);
  CHECK(report.sites[0].interpretedSamples == 6);
  CHECK(report.sites[0].cCodeSamples == 30);
  CHECK(report.sites[0].costMs == Approx(36.0));
  auto json = nlohmann::json::parse(toJson(report, &samples));
  CHECK(json["sites"][0]["cCodeSamples"] == 30);
  // Two sites of one start share its cost: the summary says so.
  report.sites.push_back(rootSite("a.lua", 7, 0, 2, 8));
  addSiteCosts(report, samples);
  const std::string summary = runSummary(report, &samples);
  CHECK(summary.find("NYIBC:FNEW  a.lua:5  x1  (trace started at a.lua:2; cost shared with 1 other site of that start)") !=
        std::string::npos);
}
