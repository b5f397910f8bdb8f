// The join behind `ljcheck verify`, on reports built in memory: each status,
// roots, counts and the calibration table by confidence. The end-to-end
// tests over real runs are in tests/integration/test_cli_verify.cpp.
#include <catch2/catch.hpp>
#include <limits>
#include <sstream>

#include "ljcheck/verification_report.h"
#include "ljcheck/verify.h"

using namespace ljcheck;
using Status = JoinedSite::Status;

namespace {

ReportSite site(const std::string& path, int line, const std::string& reasonId, const std::string& confidence = "",
                long count = 1) {
  ReportSite s;
  s.path = path;
  s.line = line;
  s.reasonId = reasonId;
  s.confidence = confidence;
  s.count = count;
  return s;
}

// A site a run observed: its count, severity and trace start.
ReportSite observed(const std::string& path, int line, const std::string& reasonId, long count,
                    const std::string& severity, const std::string& start) {
  ReportSite s = site(path, line, reasonId, "", count);
  s.severity = severity;
  s.start = start;
  return s;
}

SiteReport report(const std::string& file, const std::string& kind, const std::string& root,
                  std::vector<ReportSite> sites) {
  SiteReport r;
  r.file = file;
  r.envelope = ReportEnvelope::current(kind, {"profile-id", "debian-2.1-20220320", true}, root);
  r.sites = std::move(sites);
  return r;
}

const JoinedSite* find(const Verification& v, const std::string& location, const std::string& reasonId) {
  for (const auto& s : v.sites)
    if (s.location == location && s.reasonId == reasonId) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("verify tells refuted predictions from unexercised and masked ones", "[verify]") {
  SiteReport lint = report("lint.json", "lint", "/proj",
                           {site("a.lua", 3, "NYIBC:FNEW", "certain"), site("a.lua", 9, "NYIBC:FNEW", "certain"),
                            site("a.lua", 20, "STITCH:string.gsub", "likely"),
                            site("a.lua", 4, "NYIBC:UCLO", "certain")});
  lint.sites[3].masked = true;
  SiteReport run = report("run.json", "runtime", "/proj", {site("a.lua", 3, "NYIBC:FNEW", "", 12)});
  run.hasCoverage = true;
  run.visited = {"a.lua:3", "a.lua:9", "a.lua:4"};
  Verification v = verify(lint, {run}, {});
  REQUIRE(find(v, "a.lua:3", "NYIBC:FNEW"));
  CHECK(find(v, "a.lua:3", "NYIBC:FNEW")->status == Status::Confirmed);
  CHECK(find(v, "a.lua:3", "NYIBC:FNEW")->observedCount == 12);
  CHECK(find(v, "a.lua:9", "NYIBC:FNEW")->status == Status::Latent);        // visited, never observed
  CHECK(find(v, "a.lua:20", "STITCH:string.gsub")->status == Status::Unexercised);  // never visited
  CHECK(find(v, "a.lua:4", "NYIBC:UCLO")->status == Status::Masked);
  CHECK(v.total.confirmed == 1);
  CHECK(v.total.latent == 1);
  CHECK(v.total.unexercised == 1);
  CHECK(v.total.masked == 1);
  CHECK(v.total.precision().value_or(-1) == Approx(0.5));
  // The calibration table: certain predictions, 1 of 2 judged confirmed.
  CHECK(v.byConfidence.at("certain").confirmed == 1);
  CHECK(v.byConfidence.at("certain").latent == 1);
  CHECK(v.byConfidence.at("certain").masked == 1);
  CHECK(v.byConfidence.at("likely").unexercised == 1);
  CHECK(v.warnings.empty());

  // Without coverage, nothing can be called unexercised, and the reader is told.
  run.hasCoverage = false;
  run.visited.clear();
  Verification blind = verify(lint, {run}, {});
  CHECK(find(blind, "a.lua:20", "STITCH:string.gsub")->status == Status::Latent);
  REQUIRE(blind.warnings.size() == 1);
  CHECK(blind.warnings[0].find("no runtime report recorded coverage") != std::string::npos);
}

TEST_CASE("verify gives no precision or recall when the runs judged nothing", "[verify]") {
  // A run that never reached the predicted line (it stopped early, or the
  // line is cold): nothing is confirmed, refuted or missed, so there is no
  // ratio to give, rather than a perfect one.
  SiteReport lint = report("lint.json", "lint", "/proj", {site("a.lua", 20, "STITCH:string.gsub", "likely")});
  SiteReport run = report("run.json", "runtime", "/proj", {});
  run.hasCoverage = true;
  run.visited = {"a.lua:1"};
  Verification v = verify(lint, {run}, {});
  CHECK(v.total.unexercised == 1);
  CHECK_FALSE(v.total.precision().has_value());
  CHECK_FALSE(v.total.recall().has_value());
  CHECK(formatRatio(v.total.precision()) == "n/a");
  // One judged side does not make up the other: a refuted prediction gives
  // precision 0 and still no recall (nothing was observed).
  run.visited = {"a.lua:20"};
  Verification refuted = verify(lint, {run}, {});
  CHECK(refuted.total.precision().value_or(-1) == Approx(0.0));
  CHECK_FALSE(refuted.total.recall().has_value());
  CHECK(formatRatio(refuted.total.precision()) == "0.00");
}

TEST_CASE("verify joins stop-class observations and always shows a blacklisting one", "[verify]") {
  SiteReport lint = report("lint.json", "lint", "/proj", {site("a.lua", 5, "LINNER", "likely")});
  SiteReport run = report("run.json", "runtime", "/proj",
                          {site("a.lua", 5, "LINNER", "", 31), site("a.lua", 7, "LLEAVE", "", 2),
                           site("a.lua", 8, "LLEAVE", "", 1)});
  run.sites[2].severity = "blacklist";
  Verification v = verify(lint, {run}, {});
  CHECK(find(v, "a.lua:5", "LINNER")->status == Status::Confirmed);
  CHECK(v.byClass.at("stop").confirmed == 1);
  CHECK_FALSE(find(v, "a.lua:7", "LLEAVE"));
  REQUIRE(find(v, "a.lua:8", "LLEAVE"));
  CHECK(find(v, "a.lua:8", "LLEAVE")->status == Status::Missed);
  Verification all = verify(lint, {run}, {false, true});
  CHECK(find(all, "a.lua:7", "LLEAVE")->status == Status::Missed);
}

TEST_CASE("a stop-class prediction is not judged by runs that kept no stop-class aborts as sites", "[verify]") {
  // `ljcheck run` without --include-benign keeps a LINNER that blacklisted
  // nothing in its totals only: such a run cannot show the prediction, so
  // it is neither latent nor confirmed (audit 49), and a warning says why.
  SiteReport lint = report("lint.json", "lint", "/proj",
                           {site("a.lua", 5, "LINNER", "likely"), site("a.lua", 9, "NYIBC:FNEW", "certain")});
  SiteReport run = report("run.json", "runtime", "/proj", {});
  run.hasCoverage = true;
  run.visited = {"a.lua:5", "a.lua:9"};
  run.includesBenign = false;
  Verification v = verify(lint, {run}, {});
  CHECK_FALSE(find(v, "a.lua:5", "LINNER"));
  CHECK(find(v, "a.lua:9", "NYIBC:FNEW")->status == Status::Latent);
  bool warned = false;
  for (const auto& w : v.warnings) warned = warned || w.find("1 stop-class predictions (LINNER) are not judged") == 0;
  CHECK(warned);
  run.includesBenign = true;  // kept: then unobserved is refuted
  CHECK(find(verify(lint, {run}, {}), "a.lua:5", "LINNER")->status == Status::Latent);
  run.includesBenign.reset();  // an older report: told by a stop-class site that blacklisted nothing
  run.sites = {site("a.lua", 30, "LLEAVE", "", 2)};
  CHECK(find(verify(lint, {run}, {}), "a.lua:5", "LINNER")->status == Status::Latent);
}

TEST_CASE("a site observed in several zones counts in each, and shows the zone where it aborted most", "[verify]") {
  // A library function aborts in every zone that calls it (audit 48: one
  // BLACKL row in five zones was shown, and counted, under the one of 11 of
  // its 100 aborts).
  SiteReport lint = report("lint.json", "lint", "/proj", {site("lib.lua", 7, "NYIBC:FNEW", "likely")});
  SiteReport run = report("run.json", "runtime", "/proj",
                          {site("lib.lua", 7, "NYIBC:FNEW", "", 11), site("lib.lua", 7, "NYIBC:FNEW", "", 44),
                           site("lib.lua", 7, "NYIBC:FNEW", "", 22)});
  run.sites[0].zonePath = "extend";
  run.sites[1].zonePath = "strings";
  run.sites[2].zonePath = "tables";
  Verification v = verify(lint, {run}, {});
  const JoinedSite* s = find(v, "lib.lua:7", "NYIBC:FNEW");
  REQUIRE(s);
  CHECK(s->observedCount == 77);
  CHECK(s->zonePath == "strings");
  CHECK(s->observedByZone == std::map<std::string, long>{{"extend", 11}, {"strings", 44}, {"tables", 22}});
  VerificationReport r = buildVerificationReport(v, {run}, SampledStacks{});
  std::map<std::string, long> observed;
  for (const auto& z : r.zones) observed[z.zonePath] = z.observations;
  CHECK(observed == std::map<std::string, long>{{"extend", 11}, {"strings", 44}, {"tables", 22}});
}

TEST_CASE("verify counts sites in loaded chunks apart and sorts rows by path and numeric line", "[verify]") {
  SiteReport lint = report("lint.json", "lint", "/proj", {});
  SiteReport run = report("run.json", "runtime", "/proj",
                          {site("b.lua", 10, "NYIBC:FNEW"), site("b.lua", 9, "NYIBC:FNEW"),
                           site("a.lua", 100, "NYIBC:FNEW"), site("[string \"return 1\"]", 1, "NYIBC:FNEW"),
                           site("=products.html", 4, "STITCH:string.gsub")});
  Verification v = verify(lint, {run}, {});
  std::vector<std::string> order;
  for (const auto& s : v.sites) order.push_back(std::string(toString(s.status)) + " " + s.location);
  CHECK(order == std::vector<std::string>{"missed a.lua:100", "missed b.lua:9", "missed b.lua:10",
                                          "loaded-chunk =products.html:4", "loaded-chunk [string \"return 1\"]:1"});
  CHECK(v.total.missed == 3);
  CHECK(v.total.loadedChunk == 2);
}

TEST_CASE("verify merges several runs, rebases other roots and saturates absurd counts", "[verify]") {
  SiteReport lint = report("lint.json", "lint", "/proj", {site("src/a.lua", 3, "NYIBC:FNEW", "certain")});
  SiteReport first = report("one.json", "runtime", "/proj", {site("src/a.lua", 3, "NYIBC:FNEW", "", 5)});
  SiteReport second = report("two.json", "runtime", "/proj/src",
                             {site("a.lua", 3, "NYIBC:FNEW", "", std::numeric_limits<long>::max())});
  Verification v = verify(lint, {first, second}, {});
  REQUIRE(v.sites.size() == 1);
  CHECK(v.sites[0].status == Status::Confirmed);
  CHECK(v.sites[0].observedCount == std::numeric_limits<long>::max());
  REQUIRE(v.warnings.size() == 2);  // rebased; and no coverage
  CHECK(v.warnings[0] == "two.json was written with root /proj/src, lint.json with root /proj; the runtime "
                         "locations are rebased onto /proj");
  // A file outside the root stays absolute after rebasing.
  SiteReport outside = report("three.json", "runtime", "/proj/src", {site("/lib/x.lua", 2, "NYIBC:FNEW")});
  Verification rebased = verify(lint, {outside}, {});
  REQUIRE(find(rebased, "/lib/x.lua:2", "NYIBC:FNEW"));
  CHECK(find(rebased, "/lib/x.lua:2", "NYIBC:FNEW")->status == Status::Missed);
}

TEST_CASE("verify judges a prediction by its instruction when the runs recorded them", "[verify]") {
  // Line 7 holds a closure's FNEW and the closure's own return: the recorder
  // visited the return (the closure runs hot), not the FNEW (run once).
  SiteReport lint = report("lint.json", "lint", "/proj",
                           {site("m.lua", 7, "NYIBC:FNEW", "likely"), site("m.lua", 9, "STITCH:string.gsub", "likely"),
                            site("m.lua", 12, "NYIBC:FNEW", "likely")});
  SiteReport run = report("run.json", "runtime", "/proj", {});
  run.hasCoverage = true;
  run.visited = {"m.lua:7", "m.lua:9", "m.lua:12"};
  run.visitedInstructions = {{"m.lua:7", {"ADDVN", "RET1"}}, {"m.lua:9", {"CALL", "MOV"}}, {"m.lua:12", {"FNEW"}}};
  Verification v = verify(lint, {run}, {});
  CHECK(find(v, "m.lua:7", "NYIBC:FNEW")->status == Status::Unexercised);
  CHECK(find(v, "m.lua:9", "STITCH:string.gsub")->status == Status::Latent);
  CHECK(find(v, "m.lua:12", "NYIBC:FNEW")->status == Status::Latent);
  // A collector that recorded lines only: the line is all there is to judge by.
  run.visitedInstructions.clear();
  CHECK(find(verify(lint, {run}, {}), "m.lua:7", "NYIBC:FNEW")->status == Status::Latent);
}

TEST_CASE("verify judges a call's prediction by the instruction lint names", "[verify]") {
  // `for w in s:gmatch("%S+") do`: the CALL of string.gmatch and the ITERC of
  // the loop share line 3; the run recorded only the loop (the function that
  // calls gmatch never got hot). Line 5 is `p * p` on an lpeg pattern: the
  // metamethod's split is at MULVV, on a line with no call. Line 8 is a
  // pairs loop whose ITERN the VM turned into ITERC.
  auto named = [](ReportSite s, const std::string& instruction) {
    s.instruction = instruction;
    return s;
  };
  SiteReport lint = report("lint.json", "lint", "/proj",
                           {named(site("m.lua", 3, "STITCH:string.gmatch", "likely"), "CALL"),
                            named(site("m.lua", 3, "STITCH:string.gmatch_aux", "likely"), "ITERC"),
                            named(site("m.lua", 5, "RETURN:C", "likely"), "MULVV"),
                            named(site("m.lua", 8, "STITCH:C", "likely"), "ITERN")});
  SiteReport run = report("run.json", "runtime", "/proj", {});
  run.hasCoverage = true;
  run.visited = {"m.lua:3", "m.lua:5", "m.lua:8"};
  run.visitedInstructions = {{"m.lua:3", {"ITERC", "ITERL"}}, {"m.lua:5", {"MULVV"}}, {"m.lua:8", {"ITERC"}}};
  Verification v = verify(lint, {run}, {});
  CHECK(find(v, "m.lua:3", "STITCH:string.gmatch")->status == Status::Unexercised);
  CHECK(find(v, "m.lua:3", "STITCH:string.gmatch_aux")->status == Status::Latent);
  CHECK(find(v, "m.lua:5", "RETURN:C")->status == Status::Latent);
  CHECK(find(v, "m.lua:8", "STITCH:C")->status == Status::Latent);
  // A lint report that names no instruction: any call on the line counts.
  for (auto& s : lint.sites) s.instruction.clear();
  Verification older = verify(lint, {run}, {});
  CHECK(find(older, "m.lua:3", "STITCH:string.gmatch")->status == Status::Latent);
  CHECK(find(older, "m.lua:5", "RETURN:C")->status == Status::Unexercised);
}

// A start is blacklisted by its eleventh abort, which need not be the
// predicted one: an outer loop whose last abort was a BLACKL at an inner
// loop (bench/severity/shapes/after_unrolled_loop.lua) blacklists the
// closure's start too. Lint's severity is set against that, per severity.
TEST_CASE("verify marks a site blacklisted when a run blacklisted its trace start, by whichever abort",
          "[verify]") {
  SiteReport lint = report("lint.json", "lint", "/proj",
                           {site("a.lua", 5, "NYIBC:FNEW", "certain"), site("a.lua", 12, "NYIBC:FNEW", "likely"),
                            site("a.lua", 20, "NYIBC:UCLO", "certain")});
  lint.sites[0].severity = "blacklist";
  lint.sites[1].severity = "warn";
  lint.sites[2].severity = "blacklist";
  ReportSite fnew = observed("a.lua", 5, "NYIBC:FNEW", 9, "warn", "a.lua:3");
  ReportSite blackl = observed("a.lua", 4, "BLACKL", 2, "blacklist", "a.lua:3");
  ReportSite other = observed("a.lua", 12, "NYIBC:FNEW", 4, "warn", "a.lua:12");
  SiteReport run = report("run.json", "runtime", "/proj", {fnew, blackl, other});
  Verification v = verify(lint, {run}, {});
  REQUIRE(find(v, "a.lua:5", "NYIBC:FNEW"));
  CHECK(find(v, "a.lua:5", "NYIBC:FNEW")->blacklisted);
  CHECK_FALSE(find(v, "a.lua:12", "NYIBC:FNEW")->blacklisted);
  REQUIRE(find(v, "a.lua:4", "BLACKL"));  // a blacklisting is shown whatever its class
  CHECK(find(v, "a.lua:4", "BLACKL")->blacklisted);
  CHECK(v.bySeverity.at("blacklist").predicted == 2);
  CHECK(v.bySeverity.at("blacklist").observed == 1);
  CHECK(v.bySeverity.at("blacklist").blacklisted == 1);
  CHECK(v.bySeverity.at("warn").predicted == 1);
  CHECK(v.bySeverity.at("warn").observed == 1);
  CHECK(v.bySeverity.at("warn").blacklisted == 0);
  CHECK(v.bySeverity.at("").blacklisted == 1);
}

TEST_CASE("sites of one trace start share its cost: marked, and counted once in the zone's cost", "[verify][cost]") {
  // Two aborts of the loop started at a.lua:2 cost the same interpreted
  // samples (the loop's); the abort of another start costs its own.
  SiteReport lint = report("lint.json", "lint", "/proj",
                           {site("a.lua", 3, "NYIBC:FNEW", "likely"), site("a.lua", 4, "NYIBC:UCLO", "likely")});
  ReportSite fnew = site("a.lua", 3, "NYIBC:FNEW", "", 20), uclo = site("a.lua", 4, "NYIBC:UCLO", "", 20),
             other = site("a.lua", 9, "STITCH:string.gsub", "", 5);
  fnew.start = uclo.start = "a.lua:2";
  other.start = "a.lua:8";
  fnew.costMs = uclo.costMs = 760;
  other.costMs = 40;
  fnew.costMeasured = uclo.costMeasured = other.costMeasured = true;
  fnew.zonePath = uclo.zonePath = other.zonePath = "hot";
  // The same start in another zone: the collector gives it that zone's samples only.
  ReportSite cold = site("a.lua", 5, "NYIBC:FNEW", "", 2);
  cold.start = "a.lua:2";
  cold.costMs = 30;
  cold.costMeasured = true;
  cold.zonePath = "cold";
  SiteReport run = report("run.json", "runtime", "/proj", {fnew, uclo, other, cold});
  run.sampled = true;
  VerifyOptions options;
  options.includeBenign = true;
  Verification v = verify(lint, {run}, options);
  REQUIRE(find(v, "a.lua:3", "NYIBC:FNEW"));
  CHECK(find(v, "a.lua:3", "NYIBC:FNEW")->costMs == Approx(760));
  CHECK(find(v, "a.lua:3", "NYIBC:FNEW")->costShared);
  CHECK(find(v, "a.lua:4", "NYIBC:UCLO")->costShared);
  REQUIRE(find(v, "a.lua:9", "STITCH:string.gsub"));
  CHECK_FALSE(find(v, "a.lua:9", "STITCH:string.gsub")->costShared);
  // 760 once for the shared start, 40 for the other: not 1,560.
  CHECK(v.costByZone.at("hot") == Approx(800));
  REQUIRE(find(v, "a.lua:5", "NYIBC:FNEW"));
  CHECK_FALSE(find(v, "a.lua:5", "NYIBC:FNEW")->costShared);
  CHECK(v.costByZone.at("cold") == Approx(30));
}

TEST_CASE("a site aborted from two trace starts costs what each start's own samples cost", "[verify][cost]") {
  // The collector keeps a record per trace start: the loop at a.lua:6 and
  // the function entry at a.lua:5, whose extent holds the loop's. It
  // charges each sample to one start (the loop's lines to the loop), so
  // the two records' costs add up.
  SiteReport lint = report("lint.json", "lint", "/proj", {site("a.lua", 7, "NYIBC:FNEW", "likely")});
  ReportSite fromLoop = site("a.lua", 7, "NYIBC:FNEW", "", 12), fromEntry = site("a.lua", 7, "NYIBC:FNEW", "", 3);
  fromLoop.start = "a.lua:6";
  fromEntry.start = "a.lua:5";
  fromLoop.costMs = 300;
  fromEntry.costMs = 40;
  fromLoop.costMeasured = fromEntry.costMeasured = true;
  SiteReport run = report("run.json", "runtime", "/proj", {fromLoop, fromEntry});
  run.sampled = true;
  Verification v = verify(lint, {run}, {});
  const JoinedSite* fnew = find(v, "a.lua:7", "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->observedCount == 15);  // every abort counts
  CHECK(fnew->costMs == Approx(340));
  CHECK(fnew->costMeasured);
  // Two runs add up: each is its own time.
  Verification twice = verify(lint, {run, run}, {});
  CHECK(find(twice, "a.lua:7", "NYIBC:FNEW")->costMs == Approx(680));
}

TEST_CASE("machine-code memory running out is no missed site: counted apart, with a warning", "[verify]") {
  // MCODEAL lands on whatever line was recording when the JIT ran out of
  // machine-code memory (luacheck's run: 21 lines): the catalog marks it
  // process-wide, and no site is judged by it.
  SiteReport lint = report("lint.json", "lint", "/proj", {});
  SiteReport run = report("run.json", "runtime", "/proj",
                          {site("a.lua", 175, "MCODEAL", "", 3), site("b.lua", 203, "MCODEAL", "", 2),
                           site("a.lua", 9, "NYIBC:FNEW", "", 4)});
  Verification v = verify(lint, {run}, {});
  CHECK_FALSE(find(v, "a.lua:175", "MCODEAL"));
  CHECK_FALSE(find(v, "b.lua:203", "MCODEAL"));
  REQUIRE(find(v, "a.lua:9", "NYIBC:FNEW"));
  CHECK(find(v, "a.lua:9", "NYIBC:FNEW")->status == Status::Missed);
  CHECK(v.total.missed == 1);
  bool told = false;
  for (const auto& w : v.warnings) told = told || w.find("5 aborts of the whole JIT (MCODEAL") != std::string::npos;
  CHECK(told);
}

TEST_CASE("reasonIds the catalog does not know are joined as written, with a warning", "[verify]") {
  // A newer LuaJIT's trace error the collector named from the VM's message.
  SiteReport lint = report("lint.json", "lint", "/proj", {});
  SiteReport run = report("run.json", "runtime", "/proj", {site("a.lua", 4, "NEWERR", "", 2)});
  Verification v = verify(lint, {run}, {});
  REQUIRE(find(v, "a.lua:4", "NEWERR"));
  bool told = false;
  for (const auto& w : v.warnings) told = told || w.find("reasonIds this reason catalog does not know: NEWERR") == 0;
  CHECK(told);
}

TEST_CASE("verify marks a site whose side exit a run left to the interpreter, and the cause of a BLACKL",
          "[verify][cost]") {
  SiteReport lint = report("lint.json", "lint", "/proj", {site("a.lua", 6, "NYIBC:FNEW", "certain")});
  lint.sites[0].severity = "warn";
  ReportSite gaveUp = observed("a.lua", 6, "NYIBC:FNEW", 4, "warn", "a.lua:6");
  gaveUp.fallback = true;
  gaveUp.costMs = 12.5;
  gaveUp.costMeasured = true;
  ReportSite side = site("a.lua", 9, "NYIBC:UCLO", "", 4);  // a side trace's abort, its exit still tried
  side.severity = "warn";
  side.start = "a.lua:9";
  ReportSite ranInto = site("a.lua", 2, "BLACKL", "", 11);  // a loop's traces ran into a.lua:2's blacklisted entry
  ranInto.severity = "blacklist";
  ranInto.start = "a.lua:20";
  ranInto.blacklistedBy = SiteRef{"a.lua:3", "NYIBC:FNEW"};
  SiteReport first = report("r1.json", "runtime", "/proj", {gaveUp, side, ranInto});
  first.sampled = true;
  ReportSite later = gaveUp;
  later.fallback = false;  // another run stopped before the exit fell back
  SiteReport second = report("r2.json", "runtime", "/proj", {later});
  second.sampled = true;
  Verification v = verify(lint, {first, second}, {});
  const JoinedSite* closure = find(v, "a.lua:6", "NYIBC:FNEW");
  REQUIRE(closure);
  CHECK(closure->status == Status::Confirmed);
  CHECK(closure->fallback);
  CHECK_FALSE(closure->blacklisted);
  CHECK(closure->costMeasured);
  REQUIRE(find(v, "a.lua:9", "NYIBC:UCLO"));
  CHECK_FALSE(find(v, "a.lua:9", "NYIBC:UCLO")->fallback);
  std::ostringstream text;
  writeVerificationText(text, v);
  CHECK(text.str().find("left to the interpreter") != std::string::npos);
  REQUIRE(find(v, "a.lua:2", "BLACKL"));
  REQUIRE(find(v, "a.lua:2", "BLACKL")->blacklistedBy);
  CHECK(find(v, "a.lua:2", "BLACKL")->blacklistedBy->location == "a.lua:3");
  CHECK(text.str().find("ran into code blacklisted by a.lua:3 NYIBC:FNEW") != std::string::npos);
  std::ostringstream json;
  writeVerificationJson(json, v);
  CHECK(json.str().find("\"fallback\": true") != std::string::npos);
  // A site aborted from two starts, one blacklisted and one a side exit left
  // to the interpreter (audit 47): both outcomes show.
  JoinedSite both;
  both.blacklisted = true;
  both.fallback = true;
  CHECK(runOutcome(both) == "blacklisted; left to the interpreter");
}

TEST_CASE("a BLACKL that ran into code blacklisted for a predicted site follows it and is no miss", "[verify]") {
  // Audit 66: a loop's traces ran into util.lua:15's blacklisted closure,
  // which lint predicted; the BLACKL row counted as missed and lowered
  // recall, though fixing the closure removes it. One that ran into code
  // blacklisted for a site lint did not predict stays missed.
  SiteReport lint = report("lint.json", "lint", "/proj", {site("u.lua", 15, "NYIBC:FNEW", "certain")});
  lint.sites[0].severity = "blacklist";
  ReportSite closure = observed("u.lua", 15, "NYIBC:FNEW", 11, "blacklist", "u.lua:14");
  ReportSite follows = observed("u.lua", 14, "BLACKL", 11, "blacklist", "m.lua:3");
  follows.blacklistedBy = SiteRef{"u.lua:15", "NYIBC:FNEW"};
  ReportSite unpredicted = observed("u.lua", 30, "BLACKL", 11, "blacklist", "m.lua:9");
  unpredicted.blacklistedBy = SiteRef{"u.lua:31", "NYIBC:UCLO"};
  Verification v = verify(lint, {report("run.json", "runtime", "/proj", {closure, follows, unpredicted})}, {});
  REQUIRE(find(v, "u.lua:14", "BLACKL"));
  CHECK(find(v, "u.lua:14", "BLACKL")->status == Status::Follows);
  REQUIRE(find(v, "u.lua:30", "BLACKL"));
  CHECK(find(v, "u.lua:30", "BLACKL")->status == Status::Missed);
  CHECK(v.total.confirmed == 1);
  CHECK(v.total.missed == 1);
  CHECK(v.total.follows == 1);
  std::ostringstream text;
  writeVerificationText(text, v);
  CHECK(text.str().find("follows") != std::string::npos);
  CHECK(text.str().find("1 following a predicted site") != std::string::npos);
  std::ostringstream json;
  writeVerificationJson(json, v);
  CHECK(json.str().find("\"status\": \"follows\"") != std::string::npos);
}

TEST_CASE("a blacklisting stop-class abort of a predicted site's trace start follows that site", "[verify]") {
  // Audit 71: the loop at parse.lua:10 aborted at the predicted closure
  // (parse.lua:5) and left its loop (LLEAVE, parse.lua:17); whichever came
  // eleventh blacklisted it, so the LLEAVE row was missed in some runs and
  // not in others. Fixing the closure removes both. An LLEAVE that
  // blacklisted a start no predicted site aborted stays missed.
  SiteReport lint = report("lint.json", "lint", "/proj", {site("parse.lua", 5, "NYIBC:FNEW", "certain")});
  lint.sites[0].severity = "warn";
  ReportSite closure = observed("parse.lua", 5, "NYIBC:FNEW", 6, "warn", "parse.lua:10");
  ReportSite leave = observed("parse.lua", 17, "LLEAVE", 5, "blacklist", "parse.lua:10");
  ReportSite alone = observed("parse.lua", 40, "LLEAVE", 11, "blacklist", "parse.lua:38");
  Verification v = verify(lint, {report("run.json", "runtime", "/proj", {closure, leave, alone})}, {});
  const JoinedSite* follows = find(v, "parse.lua:17", "LLEAVE");
  REQUIRE(follows);
  CHECK(follows->status == Status::Follows);
  REQUIRE(follows->sameStartAs);
  CHECK(follows->sameStartAs->location == "parse.lua:5");
  REQUIRE(find(v, "parse.lua:40", "LLEAVE"));
  CHECK(find(v, "parse.lua:40", "LLEAVE")->status == Status::Missed);
  CHECK(v.total.recall() == Approx(0.5));
  std::ostringstream text;
  writeVerificationText(text, v);
  CHECK(text.str().find("aborted the same trace start as parse.lua:5 NYIBC:FNEW") != std::string::npos);
}

TEST_CASE("a stop-class abort of a start a predicted site blacklisted follows it, whichever came eleventh", "[verify]") {
  // Audit 79: with --include-benign, an LLEAVE of the start the predicted
  // UCLO blacklisted (the UCLO came eleventh) was missed; and a BLACKL
  // that ran into code such a row blacklisted stayed missed.
  SiteReport lint = report("lint.json", "lint", "/proj", {site("r.lua", 31, "NYIBC:UCLO", "certain")});
  ReportSite uclo = observed("r.lua", 31, "NYIBC:UCLO", 7, "blacklist", "r.lua:28");
  ReportSite leave = observed("r.lua", 33, "LLEAVE", 4, "info", "r.lua:28");
  ReportSite ranInto = observed("r.lua", 40, "BLACKL", 11, "blacklist", "r.lua:45");
  ranInto.blacklistedBy = SiteRef{"r.lua:33", "LLEAVE"};
  VerifyOptions options;
  options.includeBenign = true;
  Verification v = verify(lint, {report("run.json", "runtime", "/proj", {uclo, leave, ranInto})}, options);
  const JoinedSite* follows = find(v, "r.lua:33", "LLEAVE");
  REQUIRE(follows);
  CHECK(follows->status == Status::Follows);
  REQUIRE(find(v, "r.lua:40", "BLACKL"));
  CHECK(find(v, "r.lua:40", "BLACKL")->status == Status::Follows);
  CHECK(v.total.recall() == Approx(1.0));
}

TEST_CASE("verify counts a call exercised only when its callee's load ran too", "[verify]") {
  // Audit 79: `if s:find("[%c]") then error(...) end`: the run recorded the
  // find (TGETS, CALL), never the error's GGET; the error is unexercised,
  // not latent. A report without the load (older lint) judges by CALL.
  auto call = [](ReportSite s, const std::string& load) {
    s.instruction = "CALL";
    s.calleeInstruction = load;
    return s;
  };
  SiteReport lint = report("lint.json", "lint", "/proj",
                           {call(site("m.lua", 3, "STITCH:string.find", "likely"), "TGETS"),
                            call(site("m.lua", 3, "RETURN:error", "likely"), "GGET")});
  SiteReport run = report("run.json", "runtime", "/proj", {});
  run.hasCoverage = true;
  run.visited = {"m.lua:3"};
  run.visitedInstructions = {{"m.lua:3", {"CALL", "ISF", "KSTR", "MOV", "TGETS"}}};
  Verification v = verify(lint, {run}, {});
  CHECK(find(v, "m.lua:3", "STITCH:string.find")->status == Status::Latent);
  CHECK(find(v, "m.lua:3", "RETURN:error")->status == Status::Unexercised);
  lint.sites[1].calleeInstruction.clear();
  CHECK(find(verify(lint, {run}, {}), "m.lua:3", "RETURN:error")->status == Status::Latent);
}
