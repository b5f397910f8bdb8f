// The runtime collector's outside: the Lua module as a script uses it and the
// report writers (CSV per RFC 4180, the runtime JSON verify reads).
#include <catch2/catch.hpp>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include <nlohmann/json.hpp>
#include <string>

#include "../support/embedded_vm.h"
#include "ljcheck/lua_module.h"
#include "ljcheck/trace_session.h"

using namespace ljcheck;

namespace {

using Vm = testing::EmbeddedVm;

}  // namespace

TEST_CASE("the Lua module: trace, pause, resume, stop and the report table", "[runtime][module]") {
  Vm vm;
  std::string error = vm.run(
      "local ljcheck = require('ljcheck')\n"
      "local s = ljcheck.trace({root = '/'})\n"
      "local ok, e = pcall(ljcheck.trace)\n"
      "assert(not ok and e:find('already active'), e)\n"
      "s:pause(); s:resume()\n"
      "for i = 1, 300 do local f = function() end end\n"
      "local r = s:stop()\n"
      "ok, e = pcall(s.stop, s)\n"
      "assert(not ok and e:find('trace session already stopped'), e)\n"
      "assert(r.totalAborts > 0 and r.blacklisted == 0 and r.durationSec >= 0)\n"
      "local site = r.sites[1]\n"
      "assert(site.reasonId == 'NYIBC:FNEW' and site.location == 'proj/snippet.lua:6', site.location)\n"
      "assert(site.severity == 'warn' and site.reasonClass == 'blocker' and site.zonePath == '')\n"
      "assert(r.traceProfile.supported and r.reasonCatalogId == 'ljcheck-reasons')\n"
      "local csv = tostring(r)\n"
      "assert(csv:find('^severity,count,reasonId,reasonClass,location,zonePath,reason,rawReason,start,fallback\\r\\n'))\n"
      "assert(csv:find('warn,%d+,NYIBC:FNEW,blocker,proj/snippet.lua:6,,'), csv)\n"
      "assert(r:json():find('\"kind\": \"runtime\"', 1, true))\n"
      // A dot instead of a colon is told, not taken for a report without samples.
      "ok, e = pcall(r.json, {})\n"
      "assert(not ok and e:find('report.json was called without its report', 1, true), e)\n"
      "ok, e = pcall(r.json)\n"
      "assert(not ok and e:find('call it with a colon, report:json(...)', 1, true), e)\n"
      "ok, e = pcall(ljcheck.trace, {includeBenign = 1})\n"
      "assert(not ok and e:find('includeBenign'), e)\n"
      // A root that is no directory is refused, as `ljcheck run --root` refuses it.
      "ok, e = pcall(ljcheck.trace, {root = '/nonexistent/proj'})\n"
      "assert(not ok and e:find(\"option 'root': '/nonexistent/proj' is not a directory\", 1, true), e)\n"
      "ok, e = pcall(ljcheck.trace, {root = 5})\n"
      "assert(not ok and e:find(\"option 'root' must be a string, got a number\", 1, true), e)\n"
      "assert(tostring(s) == 'ljcheck.TraceSession (stopped)', tostring(s))\n"
      // profile() reads the VM it runs in: an argument would be ignored, so it is refused.
      "ok, e = pcall(ljcheck.profile, 5)\n"
      "assert(not ok and e:find('ljcheck.profile() takes no arguments, got a number', 1, true), e)\n"
      "assert(ljcheck.profile().id == r.traceProfile.id)\n");
  INFO(error);
  CHECK(error.empty());
}

TEST_CASE("stop(filename) writes the CSV and names a file it cannot write", "[runtime][module]") {
  Vm vm;
  const std::string file = std::string(LJCHECK_BINARY_DIR) + "/test_runtime_report.csv";
  std::string error = vm.run(
      "local ljcheck = require('ljcheck')\n"
      "local r = ljcheck.trace():stop('" + file + "')\n"
      "local f = assert(io.open('" + file + "', 'rb'))\n"
      "assert(f:read('*a') == tostring(r)); f:close(); os.remove('" + file + "')\n"
      "local ok, e = pcall(function() return ljcheck.trace():stop('/nonexistent/dir/x.csv') end)\n"
      "assert(not ok and e:find('/nonexistent/dir/x.csv', 1, true), e)\n");
  INFO(error);
  CHECK(error.empty());
}

TEST_CASE("CSV follows RFC 4180 and puts actionable rows first", "[runtime][report]") {
  TraceReport report;
  auto site = [](Severity severity, std::uint64_t count, std::string path, std::string raw) {
    AbortSite s;
    s.severity = severity;
    s.count = count;
    s.reasonId = ReasonId::refusedBytecode("FNEW");
    s.reasonClass = ReasonClass::Blocker;
    s.reason = "Bytecode the recorder does not compile";
    s.rawReason = std::move(raw);
    s.path = std::move(path);
    s.line = 3;
    return s;
  };
  report.sites = {site(Severity::Info, 9, "b.lua", "plain"),
                  site(Severity::Warn, 1, "dir,with \"quote\".lua", "two\nlines"),
                  site(Severity::Blacklist, 2, "a.lua", "x")};
  sortSites(report.sites);
  CHECK(toCsv(report) ==
        "severity,count,reasonId,reasonClass,location,zonePath,reason,rawReason,start,fallback\r\n"
        "blacklist,2,NYIBC:FNEW,blocker,a.lua:3,,Bytecode the recorder does not compile,x,,false\r\n"
        "warn,1,NYIBC:FNEW,blocker,\"dir,with \"\"quote\"\".lua:3\",,"
        "Bytecode the recorder does not compile,\"two\nlines\",,false\r\n"
        "info,9,NYIBC:FNEW,blocker,b.lua:3,,Bytecode the recorder does not compile,plain,,false\r\n");
}

TEST_CASE("the runtime JSON carries the schema verify reads", "[runtime][report]") {
  Vm vm;
  auto session = TraceSession::start(vm.L, {false, "/proj", ""});
  REQUIRE(vm.run("for i = 1, 300 do local f = function() end end\n").empty());
  TraceReport report = session->stop(vm.L);
  auto json = nlohmann::json::parse(toJson(report));
  CHECK(json["tool"] == "ljcheck");
  CHECK(json["kind"] == "runtime");
  CHECK(json["formatVersion"] == 1);
  CHECK(json["reasonCatalogId"] == "ljcheck-reasons");
  CHECK(json["traceProfile"]["name"] == "debian-2.1-20220320");
  CHECK(json["traceProfile"]["supported"] == true);
  CHECK(json["root"] == "/proj");
  REQUIRE(json["sites"].size() == 1);
  const auto& site = json["sites"][0];
  CHECK(site["reasonId"] == "NYIBC:FNEW");
  CHECK(site["location"] == "snippet.lua:1");
  CHECK(site["path"] == "snippet.lua");
  CHECK(site["line"] == 1);
  CHECK(site["count"].get<int>() == static_cast<int>(report.totalAborts));
}
