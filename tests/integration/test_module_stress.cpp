// The trace collector under conditions a real program creates: coroutines
// that yield while traces abort, errors raised in traced code, jit.flush()
// and jit.off() mid-session, os.exit inside a loop, the module required
// twice, heavy garbage collection, thousands of distinct abort sites and deep
// recursion. Each runs in Debian's luajit (and under ASan/UBSan in the
// sanitizer stage). No count may be lost or duplicated: a plain Lua handler
// attached before the session sees every trace event too (the session
// chains to it), and its abort count must equal the report's totalAborts.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "../support/process.h"

using ljcheck::testing::ProcessResult;

namespace {

// The shared prologue: a Lua counter of abort events, then a session that
// includes benign aborts. The scenario's body follows; the epilogue prints
// `aborts=<counter> total=<totalAborts> sites=<rows> fnew=<NYIBC:FNEW count>`.
const std::string kPrologue =
    "local ljcheck = require('ljcheck')\n"
    "local counted = 0\n"
    "jit.attach(function(what) if what == 'abort' then counted = counted + 1 end end, 'trace')\n"
    "local session = ljcheck.trace({ includeBenign = true })\n";
const std::string kEpilogue =
    "local report = session:stop()\n"
    "local fnew = 0\n"
    "for _, site in ipairs(report.sites) do if site.reasonId == 'NYIBC:FNEW' then fnew = fnew + site.count end end\n"
    "print(('aborts=%d total=%d sites=%d fnew=%d'):format(counted, report.totalAborts, #report.sites, fnew))\n";

ProcessResult runScenario(const std::string& name, const std::string& body, bool epilogue = true) {
  std::string path = std::string(LJCHECK_BINARY_DIR) + "/test_module_stress_" + name + ".lua";
  std::ofstream(path) << kPrologue << body << (epilogue ? kEpilogue : "");
  return ljcheck::testing::runInLuajitHost("/usr/bin/luajit", path);
}

struct Counts {
  long aborts = -1, total = -1, sites = -1, fnew = -1;
};

Counts countsOf(const std::string& out) {
  Counts c;
  auto at = out.rfind("aborts=");
  if (at == std::string::npos) return c;
  std::sscanf(out.c_str() + at, "aborts=%ld total=%ld sites=%ld fnew=%ld", &c.aborts, &c.total, &c.sites, &c.fnew);
  return c;
}

// The scenario ran to its end, and the session saw exactly the aborts the VM raised.
Counts requireExact(const ProcessResult& r) {
  INFO(r.out << r.err);
  REQUIRE(r.exitCode == 0);
  Counts c = countsOf(r.out);
  REQUIRE(c.aborts >= 0);
  CHECK(c.total == c.aborts);
  return c;
}

}  // namespace

TEST_CASE("collector: traces aborting while coroutines yield", "[module][stress]") {
  Counts c = requireExact(runScenario("coroutines",
                                      "local gen = coroutine.wrap(function()\n"
                                      "  for i = 1, 5000 do\n"
                                      "    local f = function() return i end\n"
                                      "    coroutine.yield(f())\n"
                                      "  end\n"
                                      "end)\n"
                                      "local s = 0\n"
                                      "for _ = 1, 5000 do s = s + gen() end\n"
                                      "assert(s == 5000 * 5001 / 2)\n"));
  CHECK(c.fnew > 0);
}

TEST_CASE("collector: errors raised inside traced code", "[module][stress]") {
  Counts c = requireExact(runScenario("errors",
                                      "local caught = 0\n"
                                      "for i = 1, 4000 do\n"
                                      "  local ok = pcall(function() if i % 7 == 0 then error('x') end return i end)\n"
                                      "  if not ok then caught = caught + 1 end\n"
                                      "end\n"
                                      "assert(caught == 571)\n"));
  CHECK(c.fnew > 0);
}

TEST_CASE("collector: jit.flush() and jit.off() in the middle of a session", "[module][stress]") {
  Counts c = requireExact(runScenario("flush",
                                      "local n = 0\n"
                                      "for round = 1, 6 do\n"
                                      "  for i = 1, 2000 do local f = function() return i end; n = n + f() end\n"
                                      "  if round == 2 then jit.flush() end\n"
                                      "  if round == 3 then jit.off() end\n"
                                      "  if round == 4 then jit.on() end\n"
                                      "end\n"
                                      "assert(n == 6 * 2000 * 2001 / 2)\n"));
  CHECK(c.fnew > 0);
}

TEST_CASE("collector: heavy garbage collection while traces abort", "[module][stress]") {
  Counts c = requireExact(runScenario("gc",
                                      "local keep = {}\n"
                                      "for i = 1, 3000 do\n"
                                      "  keep[i % 50] = { function() return i end }\n"
                                      "  if i % 10 == 0 then collectgarbage() end\n"
                                      "end\n"));
  CHECK(c.fnew > 0);
}

TEST_CASE("collector: thousands of distinct abort sites", "[module][stress]") {
  // 2,000 functions on 2,000 lines, each a hot loop with a closure: one site each.
  Counts c = requireExact(runScenario("many_sites",
                                      "local lines = {}\n"
                                      "for k = 1, 2000 do\n"
                                      "  lines[k] = 'F[' .. k .. '] = function() local n = 0 for i = 1, 200 do "
                                      "local f = function() return i end n = n + f() end return n end'\n"
                                      "end\n"
                                      "F = {}\n"
                                      "assert(loadstring(table.concat(lines, '\\n'), '=many'))()\n"
                                      "for k = 1, 2000 do assert(F[k]() == 20100) end\n"));
  CHECK(c.sites >= 2000);
}

// The bound on distinct sites: 1,000 sites under maxSites = 100. The totals
// stay exact, what no site holds is the overflow, and the collector's memory
// stays well below an unbounded session's over the same program (the chunk
// is loaded again for it: a blacklisted loop never aborts a second time).
TEST_CASE("collector: more distinct abort sites than maxSites", "[module][stress]") {
  ProcessResult r = runScenario(
      "site_limit",
      "session:stop()\n"
      "local function program(name)\n"
      "  local lines = {}\n"
      "  for k = 1, 1000 do\n"
      "    lines[k] = 'F[' .. k .. '] = function() local n = 0 for i = 1, 200 do '\n"
      "            .. 'local f = function() return i end n = n + f() end return n end'\n"
      "  end\n"
      "  F = {}\n"
      "  assert(loadstring(table.concat(lines, '\\n'), name))()\n"
      "  for k = 1, 1000 do assert(F[k]() == 20100) end\n"
      "end\n"
      "local function kept(report)\n"
      "  local n = 0\n"
      "  for _, site in ipairs(report.sites) do\n"
      "    if not site.reasonId:match('^STITCH') and not site.reasonId:match('^RETURN') then n = n + site.count end\n"
      "  end\n"
      "  return n\n"
      "end\n"
      "counted = 0\n"
      "local bounded = ljcheck.trace({ includeBenign = true, maxSites = 100 })\n"
      "program('=bounded')\n"
      "local b = bounded:stop()\n"
      "local c = b.collector\n"
      "print(('aborts=%d total=%d sites=%d kept=%d overflow=%d limit=%d reached=%s bytes=%d')\n"
      "  :format(counted, b.totalAborts, #b.sites, kept(b), c.overflowAborts, c.maxSites, tostring(c.limitReached),\n"
      "          c.memoryBytes))\n"
      "local free = ljcheck.trace({ includeBenign = true })\n"
      "program('=unbounded')\n"
      "local u = free:stop()\n"
      "print(('unbounded sites=%d reached=%s bytes=%d'):format(#u.sites, tostring(u.collector.limitReached),\n"
      "      u.collector.memoryBytes))\n",
      false);
  INFO(r.out << r.err);
  REQUIRE(r.exitCode == 0);
  long aborts = -1, total = -1, sites = -1, kept = -1, overflow = -1, limit = -1, bytes = -1;
  char reached[8] = {};
  auto at = r.out.find("aborts=");
  REQUIRE(at != std::string::npos);
  REQUIRE(std::sscanf(r.out.c_str() + at,
                      "aborts=%ld total=%ld sites=%ld kept=%ld overflow=%ld limit=%ld reached=%7s bytes=%ld",
                      &aborts, &total, &sites, &kept, &overflow, &limit, reached, &bytes) == 8);
  CHECK(total == aborts);            // exact, past the bound too
  CHECK(kept + overflow == total);   // every abort is in a site or in the overflow
  CHECK(overflow > 0);
  CHECK(std::string(reached) == "true");
  CHECK(limit == 100);
  CHECK(sites <= 100);
  long unboundedSites = -1, unboundedBytes = -1;
  char unboundedReached[8] = {};
  at = r.out.find("unbounded sites=");
  REQUIRE(at != std::string::npos);
  REQUIRE(std::sscanf(r.out.c_str() + at, "unbounded sites=%ld reached=%7s bytes=%ld", &unboundedSites,
                      unboundedReached, &unboundedBytes) == 3);
  CHECK(unboundedSites >= 1000);
  CHECK(std::string(unboundedReached) == "false");
  CHECK(bytes > 0);
  CHECK(bytes * 3 < unboundedBytes);
}

TEST_CASE("collector: deep recursion creating closures", "[module][stress]") {
  Counts c = requireExact(runScenario("recursion",
                                      "local function down(d)\n"
                                      "  if d == 0 then return 0 end\n"
                                      "  local f = function() return 1 end\n"
                                      "  return f() + down(d - 1)\n"
                                      "end\n"
                                      "for _ = 1, 20 do assert(down(5000) == 5000) end\n"));
  CHECK(c.total > 0);
}

TEST_CASE("collector: the module required twice shares one session", "[module][stress]") {
  ProcessResult r = runScenario("twice",
                                "package.loaded.ljcheck = nil\n"
                                "local again = require('ljcheck')\n"
                                "print('second', pcall(again.trace))\n"
                                "for i = 1, 2000 do local f = function() return i end; f() end\n");
  Counts c = requireExact(r);
  CHECK(r.out.find("second\tfalse\ta trace session is already active") != std::string::npos);
  CHECK(c.fnew > 0);
}

// os.exit(code, true) closes the Lua state, as LuaJIT's own exit path does at
// the end of a script: the open session is collected with it, and the exit
// handler finds nothing left to release.
TEST_CASE("collector: os.exit inside a traced loop ends the program cleanly", "[module][stress]") {
  ProcessResult r = runScenario("exit",
                                "for i = 1, 100000 do\n"
                                "  local f = function() return i end\n"
                                "  if f() == 3000 then io.write('leaving\\n'); os.exit(0, true) end\n"
                                "end\n",
                                false);
  INFO(r.out << r.err);
  CHECK(r.exitCode == 0);
  CHECK(r.out == "leaving\n");
}

// A plain os.exit(n) skips lua_close: the module's exit handler frees what
// Lua would have (open trace and sample sessions, a stopped report still
// referenced, the zone names), so LeakSanitizer finds nothing in the ASan
// stage (a leak there exits 86, not 7). The module is required twice: both
// tables share one exit handler. The open sessions' reports are discarded.
TEST_CASE("collector: a plain os.exit with sessions open leaks nothing", "[module][stress]") {
  ProcessResult r = runScenario("plain_exit",
                                "for i = 1, 3000 do local f = function() return i end; f() end\n"
                                "local report = session:stop()\n"
                                "package.loaded.ljcheck = nil\n"
                                "local again = require('ljcheck')\n"
                                "local open = again.trace({ coverage = true })\n"
                                "local sampling = again.sample({ intervalMs = 1 })\n"
                                "again.zone('outer') again.zone('inner')\n"
                                "for round = 1, 50 do\n"
                                "  for i = 1, 2000 do\n"
                                "    local f = function() return i end\n"
                                "    if round == 50 and f() == 1500 then\n"
                                "      io.write('leaving ', report.totalAborts > 0 and 'with' or 'without', ' aborts\\n')\n"
                                "      os.exit(7)\n"
                                "    end\n"
                                "  end\n"
                                "end\n",
                                false);
  INFO(r.out << r.err);
  CHECK(r.exitCode == 7);
  CHECK(r.out == "leaving with aborts\n");
}
