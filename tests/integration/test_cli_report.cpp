// `ljcheck report` end to end: lint and run a workload with zones, a closure
// in a loop and a stitch, then write the HTML and Markdown reports and check
// their structure; misuse (profile mismatch, missing source, bad stacks).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <functional>
#include <regex>

#include "../support/cli.h"
#include "../support/text_search.h"
#include "ljcheck/reason.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::readFile;
using ljcheck::testing::runLjcheck;
using ljcheck::testing::writeFile;
using nlohmann::json;

using ljcheck::testing::countOf;

namespace {

// The workload's lint JSON, runtime JSON, collapsed stacks and speedscope
// JSON, in a fresh scratch directory that is also the project root.
std::string prepare(const std::string& name) {
  std::string dir = ljcheck::testing::scratchDirectory(name);
  writeFile(dir + "/app.lua", readFile(std::string(LJCHECK_SOURCE_DIR) + "/tests/browser/workload.lua"));
  ProcessResult lint = runLjcheck({"lint", "--format", "json", "app.lua"}, dir);
  REQUIRE(lint.exitCode == 1);
  writeFile(dir + "/lint.json", lint.out);
  ProcessResult run = runLjcheck({"run", "--json", "run.json", "--sample", "stacks.txt", "--speedscope", "prof.json",
                                  "--interval", "1", "--quiet", "--", "app.lua"}, dir);
  INFO(run.err);
  REQUIRE(run.exitCode == 0);
  return dir;
}

}  // namespace

TEST_CASE("report writes one self-contained HTML page with sites, excerpts, advice, flame graph and zones",
          "[cli][report]") {
  std::string dir = prepare("report-html");
  ProcessResult r = runLjcheck({"report", "--static", "lint.json", "--runtime", "run.json", "--stacks", "prof.json",
                                "--out", "report.html"}, dir);
  INFO(r.err);
  REQUIRE(r.exitCode == 0);
  std::string html = readFile(dir + "/report.html");
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  // Nothing the page would fetch: no external scripts, styles, fonts or images.
  CHECK(html.find("Content-Security-Policy\" content=\"default-src 'none'") != std::string::npos);
  CHECK_FALSE(std::regex_search(html, std::regex(R"((src|href)\s*=\s*"(https?:|//))")));
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("<script src") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
  // The header: profile, catalog, samples and the compiled share.
  json run = json::parse(readFile(dir + "/run.json"));
  CHECK(html.find(run.at("traceProfile").at("name").get<std::string>()) != std::string::npos);
  CHECK(html.find("id=\"share\"") != std::string::npos);
  CHECK(html.find("<dd id=\"samples\">" + std::to_string(run.at("samples").at("samples").get<long>())) !=
        std::string::npos);
  // The site table: one row per joined site, the FNEW site confirmed, costed, in its zone.
  ProcessResult joined = runLjcheck({"verify", "--static", "lint.json", "--runtime", "run.json", "--format", "json"}, dir);
  json v = json::parse(joined.out);
  CHECK(countOf(html, "<tr class=\"site\"") == v.at("sites").size());
  std::smatch row;
  REQUIRE(std::regex_search(html, row, std::regex(R"(<tr class="site" data-status="confirmed">.{0,200}NYIBC:FNEW.*?</tr>)")));
  CHECK(row.str().find("app.lua:5") != std::string::npos);
  CHECK(row.str().find("frame/render") != std::string::npos);
  CHECK(std::regex_search(row.str(), std::regex(R"(data-value="[1-9][0-9]*\.[0-9]+")")));  // a cost above 0
  // Per site: the excerpt with the line marked, the catalog's explanation and advice, the masking site.
  CHECK(html.find("<span class=\"hit\">    5 |     local f = function() return i end</span>") != std::string::npos);
  const ljcheck::Reason* nyibc = ljcheck::ReasonCatalog::builtin().find("NYIBC");
  REQUIRE(nyibc);
  CHECK(html.find(nyibc->advice.substr(0, 40)) != std::string::npos);
  CHECK(std::regex_search(html, std::regex(R"(Masked by <code>NYIBC:FNEW</code> at <code>app\.lua:5</code>)")));
  // The flame graph, coloured by VM state, and the zones.
  CHECK(html.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\"") != std::string::npos);
  CHECK(std::regex_search(html, std::regex(R"re(<rect class="s-(interpreted|compiled|cCode|collecting)")re")));
  CHECK(html.find("<table id=\"zones\">") != std::string::npos);
  CHECK(html.find("<td>frame/render</td>") != std::string::npos);
  CHECK(html.find("<td>frame/text</td>") != std::string::npos);

  // Collapsed stacks draw the same graph without states.
  ProcessResult collapsed = runLjcheck({"report", "--static", "lint.json", "--runtime", "run.json", "--stacks",
                                        "stacks.txt"}, dir);
  REQUIRE(collapsed.exitCode == 0);
  CHECK(collapsed.out.find("<rect class=\"s-unknown\"") != std::string::npos);

  // A frame the collector escaped (a chunk name with ';' or a line break) is
  // drawn with its own name: one frame, not two.
  writeFile(dir + "/escaped.txt", "main@app.lua;odd%3Bname@x.lua:3 40\n");
  ProcessResult escaped = runLjcheck({"report", "--static", "lint.json", "--runtime", "run.json", "--stacks",
                                      "escaped.txt"}, dir);
  REQUIRE(escaped.exitCode == 0);
  CHECK(escaped.out.find("odd;name@x.lua:3") != std::string::npos);
  CHECK(escaped.out.find("odd%3Bname") == std::string::npos);
}

TEST_CASE("verify --sort cost puts the most costly site first", "[cli][report][verify]") {
  std::string dir = prepare("report-sort-cost");
  ProcessResult r = runLjcheck({"verify", "--static", "lint.json", "--runtime", "run.json", "--sort", "cost"}, dir);
  REQUIRE(r.exitCode == 0);
  // "-": nothing measured (a split keeps no code out of traces), sorted as 0.
  std::regex rowPattern(R"(^\w[\w-]* +\S+ +\S+ +\S+ +\d+ +(\d+\.\d|-)( +(blacklisted|left to the interpreter)[^\n]*)?$)",
                        std::regex::multiline);
  std::vector<double> costs;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), rowPattern); it != std::sregex_iterator(); ++it)
    costs.push_back((*it)[1] == "-" ? 0.0 : std::stod((*it)[1]));
  INFO(r.out);
  REQUIRE(costs.size() >= 2);
  CHECK(costs.front() > 0);
  CHECK(std::is_sorted(costs.rbegin(), costs.rend()));
  json v = json::parse(runLjcheck({"verify", "--static", "lint.json", "--runtime", "run.json", "--format", "json",
                                   "--sort", "cost"}, dir).out);
  CHECK(v.at("sites").at(0).at("reasonId") == "NYIBC:FNEW");
  CHECK(v.at("sites").at(0).at("costMs").get<double>() > 0);
  for (const auto& site : v.at("sites"))  // a split's cost is not measured: null, not 0
    if (site.at("reasonId").get<std::string>().rfind("STITCH:", 0) == 0) CHECK(site.at("costMs").is_null());
}

TEST_CASE("report --format md: the summary first, cut at the size limit", "[cli][report]") {
  std::string dir = prepare("report-markdown");
  ProcessResult md = runLjcheck({"report", "--static", "lint.json", "--runtime", "run.json", "--format", "md"}, dir);
  REQUIRE(md.exitCode == 0);
  CHECK(md.out.rfind("## ljcheck verification report\n\n**", 0) == 0);
  CHECK(md.out.find("| confirmed | `NYIBC:FNEW` | blocker |") != std::string::npos);
  CHECK(md.out.find("### Zones\n\n| zone | samples | compiled | interpreted | sites | observed | cost ms |") !=
        std::string::npos);
  CHECK(md.out.find("*observed*: the aborts and stitches seen in the zone") != std::string::npos);
  CHECK(md.out.find(">   5 |     local f = function() return i end") != std::string::npos);
  CHECK(md.out.find("Cut to stay under") == std::string::npos);

  ProcessResult cut = runLjcheck({"report", "--static", "lint.json", "--runtime", "run.json", "--format", "md",
                                  "--max-bytes", "1000"}, dir);
  REQUIRE(cut.exitCode == 0);
  CHECK(cut.out.size() <= 1000);
  CHECK(cut.out.rfind("## ljcheck verification report", 0) == 0);
  CHECK(cut.out.find("_Cut to stay under 1000 bytes:") != std::string::npos);
}

TEST_CASE("report misuse: profile mismatch refused, missing source said, bad stacks named", "[cli][report]") {
  std::string dir = prepare("report-misuse");
  json run = json::parse(readFile(dir + "/run.json"));
  run["traceProfile"]["id"] = "LuaJIT-2.1.0-other/x64/Linux";
  run["traceProfile"]["name"] = "other-build";
  writeFile(dir + "/other.json", run.dump());
  ProcessResult refused = runLjcheck({"report", "--static", "lint.json", "--runtime", "other.json"}, dir);
  CHECK(refused.exitCode == 2);
  CHECK(refused.err.find("refusing to join lint.json") != std::string::npos);
  CHECK(refused.out.empty());
  ProcessResult allowed = runLjcheck({"report", "--static", "lint.json", "--runtime", "other.json",
                                      "--allow-profile-mismatch", "--out", "mixed.html"}, dir);
  CHECK(allowed.exitCode == 0);

  std::remove((dir + "/app.lua").c_str());
  ProcessResult missing = runLjcheck({"report", "--static", "lint.json", "--runtime", "run.json", "--out", "r.html"}, dir);
  REQUIRE(missing.exitCode == 0);
  std::string html = readFile(dir + "/r.html");
  CHECK(html.find("Excerpt omitted: source file " + dir + "/app.lua cannot be read") != std::string::npos);
  CHECK(html.find("<pre class=\"excerpt\">") == std::string::npos);
  CHECK(missing.err.find("app.lua:5: excerpt omitted") != std::string::npos);

  writeFile(dir + "/bad.txt", "main@app.lua;f@app.lua:2 twelve\n");
  ProcessResult bad = runLjcheck({"report", "--static", "lint.json", "--runtime", "run.json", "--stacks", "bad.txt"}, dir);
  CHECK(bad.exitCode == 3);
  CHECK(bad.err.find("bad.txt:1: not a collapsed stack") != std::string::npos);
  // Counts no profile has (past 2^53, infinite) and negative weights are refused, not drawn.
  for (const char* count : {"99999999999999999999999", "inf", "nan"}) {
    writeFile(dir + "/huge.txt", std::string("main@app.lua;f@app.lua:2 ") + count + "\n");
    ProcessResult huge = runLjcheck({"report", "--static", "lint.json", "--runtime", "run.json", "--stacks", "huge.txt"}, dir);
    CHECK(huge.exitCode == 3);
    CHECK(huge.err.find("huge.txt:1: not a collapsed stack") != std::string::npos);
  }
  writeFile(dir + "/neg.json", R"({"profiles":[{"type":"sampled","name":"x","samples":[[0]],"weights":[-1e308]}],)"
                               R"("shared":{"frames":[{"name":"x"}]}})");
  ProcessResult negative = runLjcheck({"report", "--static", "lint.json", "--runtime", "run.json", "--stacks", "neg.json"}, dir);
  CHECK(negative.exitCode == 3);
  CHECK(negative.err.find("neg.json: profile 'x': weight -1e+308 of sample 0 is not a number from 0 to 2^53") !=
        std::string::npos);
  ProcessResult absent = runLjcheck({"report", "--static", "lint.json", "--runtime", "run.json", "--stacks", "none.txt"}, dir);
  CHECK(absent.exitCode == 3);
  CHECK(absent.err.find("none.txt: cannot open") != std::string::npos);
}

namespace {

// The total weight the flame graph says it draws: "flame graph of 46 ms".
double flameTotal(const std::string& html) {
  std::smatch m;
  if (!std::regex_search(html, m, std::regex(R"re(aria-label="flame graph of ([0-9.e+]+) ms")re"))) return -1;
  return std::stod(m[1]);
}

double sampledMs(const json& run) {
  return run.at("samples").at("samples").get<double>() * run.at("samples").at("msPerSample").get<double>();
}

}  // namespace

TEST_CASE("report draws the flame graph coloured by VM state from the runtime JSON alone", "[cli][report][stacks]") {
  std::string dir = prepare("report-runtime-stacks");
  json run = json::parse(readFile(dir + "/run.json"));
  REQUIRE_FALSE(run.at("samples").at("stacks").empty());
  ProcessResult r = runLjcheck({"report", "--static", "lint.json", "--runtime", "run.json"}, dir);
  INFO(r.err);
  REQUIRE(r.exitCode == 0);
  CHECK(std::regex_search(r.out, std::regex(R"re(<rect class="s-(interpreted|compiled|cCode|collecting|compiling)")re")));
  CHECK(r.out.find("<rect class=\"s-unknown\"") == std::string::npos);
  CHECK(flameTotal(r.out) == Approx(sampledMs(run)));

  // A second run merges its stacks into the same graph.
  ProcessResult again = runLjcheck({"run", "--json", "run2.json", "--interval", "2", "--quiet", "--", "app.lua"}, dir);
  REQUIRE(again.exitCode == 0);
  json run2 = json::parse(readFile(dir + "/run2.json"));
  ProcessResult merged = runLjcheck({"report", "--static", "lint.json", "--runtime", "run.json", "--runtime",
                                     "run2.json"}, dir);
  INFO(merged.err);
  REQUIRE(merged.exitCode == 0);
  CHECK(flameTotal(merged.out) == Approx(sampledMs(run) + sampledMs(run2)));
  CHECK(merged.out.find("run.json, run2.json (ms)") != std::string::npos);

  // --stacks still takes precedence: collapsed text draws frames without a state.
  ProcessResult collapsed = runLjcheck({"report", "--static", "lint.json", "--runtime", "run.json", "--stacks",
                                        "stacks.txt"}, dir);
  REQUIRE(collapsed.exitCode == 0);
  CHECK(collapsed.out.find("<rect class=\"s-unknown\"") != std::string::npos);
}

TEST_CASE("report: stacks left out past the cap are said, malformed stacks are named", "[cli][report][stacks]") {
  std::string dir = prepare("report-runtime-stacks-bad");
  json run = json::parse(readFile(dir + "/run.json"));
  run["samples"]["droppedStacks"] = 4;
  run["samples"]["droppedSamples"] = 9;
  writeFile(dir + "/capped.json", run.dump());
  ProcessResult capped = runLjcheck({"report", "--static", "lint.json", "--runtime", "capped.json"}, dir);
  REQUIRE(capped.exitCode == 0);
  CHECK(capped.err.find("capped.json: 4 rarer stacks (9 samples) past the collector's cap") != std::string::npos);

  run["samples"]["stacks"][0]["frames"] = "main@app.lua";
  writeFile(dir + "/bad.json", run.dump());
  ProcessResult bad = runLjcheck({"report", "--static", "lint.json", "--runtime", "bad.json"}, dir);
  CHECK(bad.exitCode == 3);
  // The field is named, with what it held instead.
  CHECK(bad.err.find("bad.json: 'frames' must be a list, not \"main@app.lua\"") != std::string::npos);

  // A field of the wrong type is refused by name, with what it held instead,
  // and none of the JSON library's internals.
  auto refusedWith = [&](const std::string& name, const std::function<void(json&)>& spoil, const std::string& why) {
    json spoilt = json::parse(readFile(dir + "/run.json"));
    spoil(spoilt);
    writeFile(dir + "/" + name, spoilt.dump());
    ProcessResult r = runLjcheck({"verify", "--static", "lint.json", "--runtime", name}, dir);
    INFO(r.err);
    CHECK(r.exitCode == 3);
    CHECK(r.err.find(name + ": " + why) != std::string::npos);
    CHECK(r.err.find("json.exception") == std::string::npos);
  };
  refusedWith("bad-start.json", [](json& j) {
    REQUIRE_FALSE(j.at("sites").empty());
    j["sites"][0]["start"] = 7;  // a trace start is a "path:line" string
  }, "'start' must be a string, not 7");
  refusedWith("bad-duration.json", [](json& j) { j["durationSec"] = "fast"; },
              "'durationSec' must be a number, not \"fast\"");
  refusedWith("bad-sites.json", [](json& j) { j["sites"] = "x"; }, "'sites' must be a list, not \"x\"");
  refusedWith("bad-benign.json", [](json& j) { j["includeBenign"] = "yes"; },
              "'includeBenign' must be true or false, not \"yes\"");

  json old = json::parse(readFile(dir + "/run.json"));
  old["samples"].erase("stacks");
  writeFile(dir + "/old.json", old.dump());
  ProcessResult older = runLjcheck({"report", "--static", "lint.json", "--runtime", "old.json"}, dir);
  REQUIRE(older.exitCode == 0);
  CHECK(older.err.find("old.json was sampled but holds no stacks") != std::string::npos);
  CHECK(older.out.find("No sampled stacks") != std::string::npos);
}
