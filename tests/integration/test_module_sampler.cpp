// Sampling and zones in foreign hosts: Debian's luajit and OpenResty's
// luajit2 load ljcheck.so through require; zones in a hot loop leave its
// trace whole; a session under `luajit -jv` keeps -jv's output going and
// gives it back at stop; `ljcheck run` writes stacks, speedscope JSON and a
// summary.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../support/process.h"
#include "../support/spin_clock.h"

using ljcheck::testing::ProcessResult;

namespace {

std::string scratchDir(const std::string& name) {
  return ljcheck::testing::freshDirectory(std::string(LJCHECK_BINARY_DIR) + "/module-sampler/" + name);
}

// Writes `lua` to dir/file and runs it in the host `luajit` (ljcheck.so on
// its path, `hostOptions` before the script) from `workingDir`, or dir; the
// run must exit 0.
ProcessResult runScriptInHost(const std::string& luajit, const std::string& dir, const std::string& file,
                              const std::string& lua, const std::vector<std::string>& hostOptions = {},
                              const std::string& workingDir = "") {
  std::string script = dir + "/" + file;
  ljcheck::testing::writeFile(script, lua);
  ProcessResult run =
      ljcheck::testing::runInLuajitHost(luajit, script, workingDir.empty() ? dir : workingDir, 120, hostOptions);
  INFO(run.out << run.err);
  REQUIRE(run.exitCode == 0);
  return run;
}

// Runs fixtures/clean_zone_push_pop_loop.lua under a trace session in `luajit`
// and returns the runtime JSON.
nlohmann::json zoneFixtureReport(const std::string& luajit, const std::string& dir) {
  std::string json = dir + "/zones.json";
  runScriptInHost(luajit, dir, "wrapper.lua",
                  "local ljcheck = require('ljcheck')\n"
                  "local session = ljcheck.trace({includeBenign = true})\n"
                  "assert(loadfile('fixtures/clean_zone_push_pop_loop.lua'))()\n"
                  "local report = session:stop()\n"
                  "local f = assert(io.open('" + json + "', 'w'))\n"
                  "f:write(report:json())\nf:close()\n",
                  {}, LJCHECK_SOURCE_DIR);
  return nlohmann::json::parse(ljcheck::testing::readFile(json));
}

}  // namespace

TEST_CASE("zone push and pop in a hot loop: no abort and no stitch in Debian's luajit", "[module][zones]") {
  nlohmann::json report = zoneFixtureReport("/usr/bin/luajit", scratchDir("zones-debian"));
  INFO(report["sites"].dump());
  CHECK(report["totalAborts"] == 0);
  CHECK(report["sites"].empty());
}

TEST_CASE("zone push and pop in a hot loop: no abort and no stitch in OpenResty's luajit2", "[module][zones][openresty]") {
  if (access(LJCHECK_LUAJIT2, X_OK) != 0) {
    WARN("skipped: " LJCHECK_LUAJIT2 " does not exist (scripts/setup.sh builds it)");
    return;
  }
  nlohmann::json report = zoneFixtureReport(LJCHECK_LUAJIT2, scratchDir("zones-openresty"));
  INFO(report["sites"].dump());
  CHECK(report["totalAborts"] == 0);
  CHECK(report["sites"].empty());
}

TEST_CASE("a trace session under luajit -jv chains to -jv and gives it back at stop", "[module][jv]") {
  ProcessResult run = runScriptInHost("/usr/bin/luajit", scratchDir("jv"), "jv.lua",
                                      "local ljcheck = require('ljcheck')\n"
                                      "local session = ljcheck.trace()\n"
                                      "local n = 0\n"
                                      "for i = 1, 300 do local f = function() return i end; n = n + f() end\n"
                                      "local report = session:stop()\n"
                                      "print('ljcheck sites', #report.sites, report.sites[1].reasonId)\n"
                                      "for i = 1, 300 do n = n + i end\n",
                                      {"-jv"});
  INFO(run.out << run.err);
  CHECK(run.out.find("ljcheck sites\t1\tNYIBC:FNEW") != std::string::npos);
  // -jv saw the abort while the session ran, and the loop after stop.
  CHECK(run.err.find("jv.lua:4 -- NYI: bytecode") != std::string::npos);
  CHECK(run.err.find("jv.lua:7 loop]") != std::string::npos);
}

// The VM keeps one handler per event: jit.v attached after the session
// started would take the "trace" event from the collector. It runs behind
// the collector instead, gets the event back at stop, and jit.attach is
// the VM's own again.
TEST_CASE("jit.v started during a trace session runs behind the collector and keeps the event after stop",
          "[module][jv]") {
  std::string dir = scratchDir("jv-later");
  ProcessResult run = runScriptInHost("/usr/bin/luajit", dir, "later.lua",
                                      "local attach = jit.attach\n"
                                      "local ljcheck = require('ljcheck')\n"
                                      "local session = ljcheck.trace()\n"
                                      "require('jit.v').start('" + dir + "/jv.txt')\n"
                                      "local n = 0\n"
                                      "for i = 1, 300 do local f = function() return i end; n = n + f() end\n"
                                      "local report = session:stop()\n"
                                      "local first = report.sites[1]\n"
                                      "print('ljcheck sites', #report.sites, first and first.reasonId)\n"
                                      "print('attach restored', jit.attach == attach)\n"
                                      "for i = 1, 300 do n = n + i end\n"
                                      "require('jit.v').off()\n"
                                      "for j = 1, 300 do n = n + j end\n");
  INFO(run.out << run.err);
  CHECK(run.out.find("ljcheck sites\t1\tNYIBC:FNEW") != std::string::npos);
  CHECK(run.out.find("attach restored\ttrue") != std::string::npos);
  std::string jv = ljcheck::testing::readFile(dir + "/jv.txt");
  INFO(jv);
  // jit.v saw the aborts while the session ran, and the loop after stop,
  // but not the loop after jit.v.off().
  CHECK(jv.find("later.lua:6 -- NYI: bytecode") != std::string::npos);
  CHECK(jv.find("later.lua:11 loop]") != std::string::npos);
  CHECK(jv.find("later.lua:13") == std::string::npos);
}

TEST_CASE("ljcheck run: a script that starts jit.v keeps the collector", "[cli][run][jv]") {
  std::string dir = scratchDir("run-jv");
  ljcheck::testing::writeFile(dir + "/jv.lua",
                              "require('jit.v').start('jv.txt')\n"
                              "local n = 0\n"
                              "for i = 1, 300 do local f = function() return i end; n = n + f() end\n"
                              "require('jit.v').off()\n");
  ProcessResult run =
      ljcheck::testing::runProcess({LJCHECK_EXE, "run", "--json", "run.json", "--", "jv.lua"}, dir);
  INFO(run.out << run.err);
  REQUIRE(run.exitCode == 0);
  auto report = nlohmann::json::parse(ljcheck::testing::readFile(dir + "/run.json"));
  REQUIRE(report["sites"].size() == 1);
  CHECK(report["sites"][0]["reasonId"] == "NYIBC:FNEW");
  CHECK(ljcheck::testing::readFile(dir + "/jv.txt").find("jv.lua:3 -- NYI: bytecode") != std::string::npos);
}

// LuaJIT has one profiler: a program's jit.profile.start would take it from
// the sampler, which then sampled nothing and said nothing.
TEST_CASE("ljcheck run: a script that starts jit.profile keeps the sampler and is told why its start is ignored",
          "[cli][run][sampler]") {
  std::string dir = scratchDir("run-profile");
  ljcheck::testing::writeFile(dir + "/own.lua",
                              std::string(ljcheck::testing::kSpinClock) +
                              "local prof = require('jit.profile')\n"
                              "local hits = 0\n"
                              "prof.start('i1', function(th, samples) hits = hits + samples end)\n"
                              "local n = 0\n"
                              "local wall, cpu = deadline(0.15)\n"
                              "while now() < wall or os.clock() < cpu do\n"
                              "  for i = 1, 1000 do local f = function() return i end; n = n + f() end\n"
                              "end\n"
                              "prof.stop()\n"
                              "print('own hits', hits)\n");
  ProcessResult run = ljcheck::testing::runProcess(
      {LJCHECK_EXE, "run", "--interval", "2", "--json", "run.json", "--", "own.lua"}, dir);
  INFO(run.out << run.err);
  REQUIRE(run.exitCode == 0);
  // kSpinClock is one line without a newline: prof.start is on line 3.
  CHECK(run.err.find("ljcheck: own.lua:3: jit.profile.start is ignored while ljcheck samples this run") !=
        std::string::npos);
  CHECK(run.out.find("own hits\t0") != std::string::npos);
  auto report = nlohmann::json::parse(ljcheck::testing::readFile(dir + "/run.json"));
  CHECK(report["samples"]["interpreted"].get<int>() > 0);

  // Through LuaJIT's jit.p, the line named is the program's, not jit/p.lua's.
  ljcheck::testing::writeFile(dir + "/viap.lua", "local n = 0\nrequire('jit.p').start('f')\nfor i = 1, 100 do n = n + i end\n"
                                                 "require('jit.p').stop()\n");
  ProcessResult viaP = ljcheck::testing::runProcess({LJCHECK_EXE, "run", "--quiet", "--", "viap.lua"}, dir);
  INFO(viaP.out << viaP.err);
  CHECK(viaP.err.find("ljcheck: viap.lua:2: jit.profile.start is ignored") != std::string::npos);

  ProcessResult free = ljcheck::testing::runProcess({LJCHECK_EXE, "run", "--no-sampling", "--", "own.lua"}, dir);
  INFO(free.out << free.err);
  REQUIRE(free.exitCode == 0);
  CHECK(free.err.find("jit.profile.start is ignored") == std::string::npos);
  CHECK(free.out.find("own hits\t0") == std::string::npos);

  // Files of samples from a run that takes none are refused before it runs, not written empty.
  ProcessResult empty = ljcheck::testing::runProcess(
      {LJCHECK_EXE, "run", "--no-sampling", "--speedscope", "ss.json", "--", "own.lua"}, dir);
  CHECK(empty.exitCode == 2);
  CHECK(empty.err.find("--speedscope writes samples, and --no-sampling takes none") != std::string::npos);
  CHECK(empty.out.empty());
  CHECK_FALSE(std::filesystem::exists(dir + "/ss.json"));
}

TEST_CASE("a sample session gives jit.profile.start and stop back at stop", "[module][sampler]") {
  ProcessResult run = runScriptInHost("/usr/bin/luajit", scratchDir("profile-back"), "back.lua",
                                      "local prof = require('jit.profile')\n"
                                      "local start, stop = prof.start, prof.stop\n"
                                      "local session = require('ljcheck').sample()\n"
                                      "print('guarded', prof.start ~= start and prof.stop ~= stop)\n"
                                      "session:stop()\n"
                                      "print('given back', prof.start == start and prof.stop == stop)\n");
  INFO(run.out << run.err);
  CHECK(run.out.find("guarded\ttrue") != std::string::npos);
  CHECK(run.out.find("given back\ttrue") != std::string::npos);
}

TEST_CASE("ljcheck run: collapsed stacks, speedscope JSON, sample lines and a summary", "[cli][run][sampler]") {
  std::string dir = scratchDir("run");
  ljcheck::testing::writeFile(dir + "/busy.lua",
                              std::string(ljcheck::testing::kSpinClock) +
                              "local n = 0\n"
                              "local wall, cpu = deadline(0.15)\n"
                              "while now() < wall or os.clock() < cpu do\n"
                              "  for i = 1, 1000 do\n"
                              "    local f = function() return i end\n"
                              "    n = n + f()\n"
                              "  end\n"
                              "end\n");
  ProcessResult run = ljcheck::testing::runProcess({LJCHECK_EXE, "run", "--sample", "stacks.txt", "--speedscope",
                                                    "profile.json", "--interval", "2", "--json", "run.json",
                                                    "--", "busy.lua"},
                                                   dir);
  INFO(run.out << run.err);
  REQUIRE(run.exitCode == 0);
  // What a sample stands for is measured (CPU time per sample taken), next
  // to the interval asked for: the kernel's timer ticks coarser than 2 ms.
  CHECK(std::regex_search(run.err, std::regex(R"(samples, one per \d+\.\d ms of CPU time \(asked for every 2 ms\):)")));
  CHECK(run.err.find("NYIBC:FNEW  busy.lua:5") != std::string::npos);
  CHECK(run.err.find("(trace started at busy.lua:4)") != std::string::npos);
  std::string stacks = ljcheck::testing::readFile(dir + "/stacks.txt");
  CHECK(stacks.rfind("main@busy.lua", 0) == 0);
  auto speedscope = nlohmann::json::parse(ljcheck::testing::readFile(dir + "/profile.json"));
  CHECK(speedscope["shared"]["frames"][0]["name"] == "main@busy.lua");
  CHECK(speedscope["profiles"].size() >= 2);
  // It opens on the interpreted profile (busy.lua's closure keeps its loop interpreted).
  const auto active = speedscope["activeProfileIndex"].get<std::size_t>();
  REQUIRE(active < speedscope["profiles"].size());
  CHECK(speedscope["profiles"][active]["name"].get<std::string>().find("(interpreted)") != std::string::npos);
  auto report = nlohmann::json::parse(ljcheck::testing::readFile(dir + "/run.json"));
  CHECK(report["samples"]["intervalMs"] == 2);
  CHECK(report["samples"]["interpreted"].get<int>() > 0);
  // One sample stands for the CPU time the session ran over the samples taken.
  const auto& sampled = report["samples"];
  REQUIRE(sampled["samplesTaken"].get<double>() > 0);
  CHECK(sampled["cpuMs"].get<double>() > 0);
  CHECK(sampled["msPerSample"].get<double>() ==
        Approx(sampled["cpuMs"].get<double>() / sampled["samplesTaken"].get<double>()));
  bool costed = false;
  for (const auto& site : report["sites"])
    if (site["location"] == "busy.lua:5") {  // a record per trace start: the inner loop's costs its samples
      costed = costed || site["costMs"].get<double>() > 0;
      CHECK(site["costMs"].get<double>() ==
            Approx((site["interpretedSamples"].get<double>() + site["cCodeSamples"].get<double>()) *
                   sampled["msPerSample"].get<double>()));
    }
  CHECK(costed);

  ProcessResult quiet = ljcheck::testing::runProcess({LJCHECK_EXE, "run", "--quiet", "--", "busy.lua"}, dir);
  CHECK(quiet.exitCode == 0);
  CHECK(quiet.err.empty());
}

namespace {

// A trace and a sample session side by side in a foreign host; the trace
// report's json(samples) is the runtime JSON with the stacks.
nlohmann::json sampledRuntimeJson(const std::string& luajit, const std::string& dir) {
  std::string json = dir + "/run.json";
  runScriptInHost(luajit, dir, "sampled.lua",
                  std::string(ljcheck::testing::kSpinClock) +
                  "local ljcheck = require('ljcheck')\n"
                  "local trace = ljcheck.trace()\n"
                  "local sampler = ljcheck.sample({ intervalMs = 1 })\n"
                  "local n = 0\n"
                  "ljcheck.zone('busy')\n"
                  "local wall, cpu = deadline(0.15)\n"
                  "while now() < wall or os.clock() < cpu do\n"
                  "  for i = 1, 1000 do local f = function() return i end; n = n + f() end\n"
                  "end\n"
                  "ljcheck.zone()\n"
                  "local samples = sampler:stop()\n"
                  "local report = trace:stop()\n"
                  "assert(not pcall(report.json, report, 'x'))\n"
                  "local f = assert(io.open('" + json + "', 'w'))\n"
                  "f:write(report:json(samples))\nf:close()\n");
  return nlohmann::json::parse(ljcheck::testing::readFile(json));
}

// Stacks with frames, zone paths and five VM-state counts that add up.
void checkStacks(const nlohmann::json& report) {
  const auto& samples = report.at("samples");
  REQUIRE(samples.at("stacks").is_array());
  REQUIRE_FALSE(samples.at("stacks").empty());
  CHECK(samples.at("droppedStacks") == 0);
  CHECK(samples.at("stackDepth") == 16);
  long total = 0;
  bool busy = false;
  for (const auto& stack : samples.at("stacks")) {
    long states = 0;
    for (const char* state : {"compiled", "interpreted", "cCode", "collecting", "compiling"})
      states += stack.at(state).get<long>();
    CHECK(states == stack.at("count").get<long>());
    total += states;
    busy = busy || (stack.at("zonePath") == "busy" && stack.at("frames").at(0) == "main@sampled.lua");
  }
  CHECK(busy);
  CHECK(total == samples.at("samples").get<long>());
  bool costed = false;
  for (const auto& site : report.at("sites"))
    if (site.at("location") == "sampled.lua:8") costed = costed || site.at("costMs").get<double>() > 0;
  CHECK(costed);
}

}  // namespace

TEST_CASE("report:json(samples) carries the stacks by VM state in Debian's luajit", "[module][sampler][stacks]") {
  checkStacks(sampledRuntimeJson("/usr/bin/luajit", scratchDir("stacks-debian")));
}

TEST_CASE("report:json(samples) carries the stacks by VM state in OpenResty's luajit2",
          "[module][sampler][stacks][openresty]") {
  if (access(LJCHECK_LUAJIT2, X_OK) != 0) {
    WARN("skipped: " LJCHECK_LUAJIT2 " does not exist (scripts/setup.sh builds it)");
    return;
  }
  checkStacks(sampledRuntimeJson(LJCHECK_LUAJIT2, scratchDir("stacks-openresty")));
}
