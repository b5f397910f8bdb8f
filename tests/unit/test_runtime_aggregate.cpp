// Site aggregation over synthetic trace events: the cases a live VM will not
// produce on demand (a string error object, an unknown trace error, a benign
// reason that blacklists its start) and the grouping rules.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include <algorithm>

#include "../../runtime/src/site_aggregator.h"

using namespace ljcheck;

namespace {

struct Fixture {
  StringPool strings;
  std::vector<TraceEvent> events;
  LiveProfile profile;
  LocationResolver locations{"/proj"};

  Fixture() {
    const RecorderProfile& debian = defaultProfile();
    profile.facts = debian.facts();
    matchRegistry(profile);
  }

  int code(const char* name) { return *defaultProfile().traceErrorCode(name); }

  TraceEvent& add(TraceEventKind kind, int code, const char* chunk, int line) {
    TraceEvent ev;
    ev.kind = kind;
    ev.code = code;
    ev.source = strings.intern(chunk);
    ev.line = line;
    events.push_back(ev);
    return events.back();
  }

  TraceReport aggregate(bool includeBenign = false, std::size_t maxSites = 1000) {
    EventTally tally(maxSites);
    for (const TraceEvent& ev : events) tally.add(ev);
    TraceReport report;
    AggregationContext context{profile, ReasonCatalog::builtin(), locations, includeBenign};
    aggregateSites(tally, strings, context, report);
    return report;
  }
};

}  // namespace

TEST_CASE("a non-number error object is RECERR with its text", "[runtime][aggregate]") {
  Fixture f;
  f.add(TraceEventKind::Abort, -1, "@/proj/a.lua", 3).errorText = f.strings.intern("boom");
  TraceReport report = f.aggregate();
  REQUIRE(report.sites.size() == 1);
  CHECK(report.sites[0].reasonId.str() == "RECERR");
  CHECK(report.sites[0].rawReason == "boom");
  CHECK(report.totalAborts == 1);
}

TEST_CASE("subjects come from the live names", "[runtime][aggregate]") {
  Fixture f;
  auto names = f.profile.facts.fastFunctionNames;
  int typeofId = static_cast<int>(std::find(names.begin(), names.end(), "ffi.typeof") - names.begin());
  f.add(TraceEventKind::Abort, f.code("NYIFFU"), "@/proj/a.lua", 1).subject = typeofId;
  f.add(TraceEventKind::Stitch, -1, "@/proj/a.lua", 2).subject = kPlainCFunction;
  f.add(TraceEventKind::Return, -1, "@/proj/a.lua", 3).subject = typeofId;
  TraceReport report = f.aggregate();
  REQUIRE(report.sites.size() == 3);
  CHECK(report.sites[0].reasonId.str() == "NYIFFU:ffi.typeof");
  CHECK(report.sites[0].rawReason == "NYI: unsupported variant of FastFunc ffi.typeof");
  CHECK(report.sites[1].reasonId.str() == "RETURN:ffi.typeof");
  CHECK(report.sites[2].reasonId.str() == "STITCH:C");
  CHECK(report.totalAborts == 1);
}

TEST_CASE("a trace error the catalog does not know is still reported", "[runtime][aggregate]") {
  Fixture f;
  f.add(TraceEventKind::Abort, 999, "@/proj/a.lua", 1);
  TraceReport report = f.aggregate();
  REQUIRE(report.sites.size() == 1);
  CHECK(report.sites[0].reasonId.str() == "TRACEERR999");
  CHECK(report.sites[0].severity == Severity::Warn);
}

TEST_CASE("sites group by reasonId, location and trace start, and blacklisting raises the group",
          "[runtime][aggregate]") {
  Fixture f;
  int nyibc = f.code("NYIBC");
  auto startAt = [&](TraceEvent& ev, int line) {
    ev.startSource = ev.source;
    ev.startLine = line;
    return &ev;
  };
  startAt(f.add(TraceEventKind::Abort, nyibc, "@/proj/a.lua", 4), 2);
  startAt(f.add(TraceEventKind::Abort, nyibc, "@/proj/sub/../a.lua", 4), 2);  // the same file, another name
  startAt(f.add(TraceEventKind::Abort, nyibc, "@/proj/a.lua", 4), 2)->blacklistedStart = true;
  // The same site aborted from another start (a function's entry): a record
  // of its own, with that start, not folded into the first start's.
  startAt(f.add(TraceEventKind::Abort, nyibc, "@/proj/a.lua", 4), 1);
  f.add(TraceEventKind::Abort, nyibc, "@/proj/a.lua", 5);
  TraceReport report = f.aggregate();
  REQUIRE(report.sites.size() == 3);
  std::map<std::string, const AbortSite*> byStart;
  for (const auto& s : report.sites)
    if (s.location() == "a.lua:4") byStart[s.startLocation()] = &s;
  REQUIRE(byStart.size() == 2);
  CHECK(byStart.at("a.lua:2")->count == 3);
  CHECK(byStart.at("a.lua:2")->severity == Severity::Blacklist);
  CHECK(byStart.at("a.lua:1")->count == 1);
  CHECK(byStart.at("a.lua:1")->severity == Severity::Warn);
  CHECK(report.blacklisted == 1);
}

TEST_CASE("a benign reason is hidden unless it blacklisted its start", "[runtime][aggregate]") {
  Fixture f;
  f.add(TraceEventKind::Abort, f.code("LLEAVE"), "@/proj/a.lua", 1);
  TraceEvent& blacklisting = f.add(TraceEventKind::Abort, f.code("LINNER"), "@/proj/a.lua", 2);
  blacklisting.blacklistedStart = true;
  TraceReport hidden = f.aggregate(false);
  REQUIRE(hidden.sites.size() == 1);
  CHECK(hidden.sites[0].reasonId.str() == "LINNER");
  CHECK(hidden.sites[0].severity == Severity::Blacklist);
  CHECK(hidden.totalAborts == 2);
  CHECK(f.aggregate(true).sites.size() == 2);
}

TEST_CASE("past the site limit aborts are counted in the totals and the overflow, not in sites",
          "[runtime][aggregate]") {
  Fixture f;
  int nyibc = f.code("NYIBC");
  for (int line = 1; line <= 5; ++line)
    for (int repeat = 0; repeat < line; ++repeat) f.add(TraceEventKind::Abort, nyibc, "@/proj/a.lua", line);
  f.add(TraceEventKind::Stitch, -1, "@/proj/a.lua", 9).subject = kPlainCFunction;
  TraceEvent& late = f.add(TraceEventKind::Abort, nyibc, "@/proj/a.lua", 7);
  late.blacklistedStart = true;
  TraceReport report = f.aggregate(false, 2);
  REQUIRE(report.sites.size() == 2);  // lines 1 and 2, seen first
  CHECK(report.sites[0].location() == "a.lua:2");
  CHECK(report.sites[0].count == 2);
  CHECK(report.sites[1].count == 1);
  CHECK(report.totalAborts == 1 + 2 + 3 + 4 + 5 + 1);
  CHECK(report.blacklisted == 1);
  CHECK(report.collector.maxSites == 2);
  CHECK(report.collector.limitReached);
  CHECK(report.collector.overflowAborts == 3 + 4 + 5 + 1);
  CHECK(report.collector.overflowSplits == 1);
  CHECK(f.aggregate(false, 5).collector.limitReached);  // the stitch and line 7 are new
  CHECK_FALSE(f.aggregate(false, 7).collector.limitReached);  // seven distinct events fit
}

TEST_CASE("a relative chunk name that is a file under the root only is the root's", "[runtime][aggregate]") {
  // Neovim compiles its vim/*.lua in under "@vim/shared.lua": relative to
  // its runtime folder, not to the working directory. Given that folder as
  // the root, the sites get the paths lint shows for those files.
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "ljcheck-root-chunks";
  fs::create_directories(root / "vim");
  { std::ofstream(root / "vim" / "shared.lua") << "return {}\n"; }
  LocationResolver locations{root.string()};
  CHECK(locations.displayPath("@vim/shared.lua") == "vim/shared.lua");
  CHECK(locations.displayPath("@" + (root / "vim" / "shared.lua").string()) == "vim/shared.lua");
  // A name that is no file under the root stays the working directory's.
  const std::string elsewhere = locations.displayPath("@vim/none.lua");
  CHECK(elsewhere == (fs::current_path() / "vim" / "none.lua").lexically_normal().string());
  fs::remove_all(root);
}
