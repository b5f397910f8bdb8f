// Sample sessions in an embedded LuaJIT: LuaJIT's own profiler drives them,
// so every figure below comes from real samples of real code.
#include <catch2/catch.hpp>

#include <string>

#include "../support/embedded_vm.h"
#include "../support/spin_clock.h"

namespace {

using Vm = ljcheck::testing::EmbeddedVm;

// busy(ms): spends ms of CPU time in a compiled loop (the profiler's timer
// counts CPU time); cold(ms) the same with the JIT off for that function.
// The deadline is spin_clock.h's, which keeps the clock's system call out
// of the samples.
const std::string kBusy = std::string(ljcheck::testing::kSpinClock) +
    "local function busy(ms)\n"
    "  local wall, cpu = deadline(ms / 1000); local x = 0\n"
    "  while now() < wall or os.clock() < cpu do for i = 1, 10000 do x = x + i % 7 end end\n"
    "  return x\n"
    "end\n"
    "local function cold(ms) return busy(ms) end\n"
    "local ljcheck = require('ljcheck')\n";

std::string run(Vm& vm, const std::string& code) { return vm.run(kBusy + code); }

}  // namespace

TEST_CASE("sample: a report with collapsed stacks and VM states that add up", "[runtime][sampler]") {
  Vm vm;
  std::string error = run(vm,
      "local s = ljcheck.sample({intervalMs = 1, stackDepth = 8})\n"
      "assert(s.intervalMs == 1 and s.zoneFilter == '' and s.root == '')\n"
      "assert(s.paused == false and s.stopped == false)\n"
      "busy(200)\n"
      "local r = s:stop()\n"
      "assert(s.stopped == true)\n"
      "assert(r.intervalMs == 1 and r.samples > 15, r.samples)\n"
      "assert(r.compiled + r.interpreted + r.cCode + r.collecting + r.compiling == r.samples)\n"
      "assert(r.compiled > r.interpreted, string.format('compiled %d, interpreted %d, C %d, GC %d, compiling %d', "
      "r.compiled, r.interpreted, r.cCode, r.collecting, r.compiling))\n"
      "local sum, last = 0, math.huge\n"
      "for _, row in ipairs(r.rows) do\n"
      "  assert(row.compiled + row.interpreted + row.cCode + row.collecting + row.compiling == row.count)\n"
      "  assert(row.count <= last); last = row.count\n"
      "  sum = sum + row.count\n"
      "end\n"
      "assert(sum == r.samples)\n"
      "assert(tostring(r) == r.text)\n"
      "local lines, prev = 0, math.huge\n"
      "for stack, count in r.text:gmatch('([^\\n]+) (%d+)\\n') do\n"
      "  lines = lines + 1; count = tonumber(count)\n"
      "  assert(count <= prev, r.text); prev = count\n"
      "end\n"
      "assert(lines == r.stacks and lines >= 1)\n"
      "assert(r.text:find('^main@/proj/snippet.lua;busy@/proj/snippet.lua:1 %d+\\n'), r.text)\n"
      "local ok, e = pcall(s.stop, s)\n"
      "assert(not ok and e:find('sample session already stopped'), e)\n");
  INFO(error);
  CHECK(error.empty());
}

TEST_CASE("sample: interpreted code shows as interpreted", "[runtime][sampler]") {
  Vm vm;
  std::string error = run(vm,
      "jit.off()\n"
      "local s = ljcheck.sample({intervalMs = 1})\n"
      "busy(120)\n"
      "local r = s:stop()\n"
      "jit.on()\n"
      "assert(r.interpreted > r.compiled and r.interpreted > r.samples / 2, r.interpreted .. ' of ' .. r.samples)\n");
  INFO(error);
  CHECK(error.empty());
}

TEST_CASE("sample: pause and resume are idempotent and drop samples while paused", "[runtime][sampler]") {
  Vm vm;
  std::string error = run(vm,
      "local s = ljcheck.sample({intervalMs = 1})\n"
      "s:pause(); s:pause()\n"
      "assert(s.paused)\n"
      "busy(80)\n"
      "s:resume(); s:resume()\n"
      "assert(not s.paused)\n"
      "local r = s:stop()\n"
      "assert(r.samples < 10, r.samples)\n");
  INFO(error);
  CHECK(error.empty());
}

TEST_CASE("sample: options of the wrong kind are named", "[runtime][sampler]") {
  Vm vm;
  std::string error = run(vm,
      "local function fails(opts, needle)\n"
      "  local ok, e = pcall(ljcheck.sample, opts)\n"
      "  assert(not ok and e:find(needle, 1, true), tostring(e))\n"
      "end\n"
      "fails({intervalMs = 'fast'}, \"option 'intervalMs' must be a number, got a string\")\n"
      "fails({stackDepth = 0}, \"option 'stackDepth' must be a whole number\")\n"
      "fails({zone = 1}, \"option 'zone' must be a string\")\n"
      "fails({root = true}, \"option 'root' must be a string\")\n"
      "fails({interval = 5}, \"unknown option 'interval'\")\n"
      "fails(42, 'options must be a table')\n"
      "local s = ljcheck.sample()\n"
      "fails(nil, 'a sample session is already active')\n"
      "local t = ljcheck.trace()\n"  // a trace session may run beside it
      "t:stop(); s:stop()\n");
  INFO(error);
  CHECK(error.empty());
}

TEST_CASE("sample: a session started in a coroutine that has ended is stopped from another", "[runtime][sampler]") {
  // OpenResty runs each request in a coroutine of its own: the session may
  // outlive the coroutine that started it.
  Vm vm;
  std::string error = run(vm,
      "local s\n"
      "coroutine.wrap(function() s = ljcheck.sample() end)()\n"
      "local n = 0\n"
      "for i = 1, 1e5 do n = n + i end\n"
      "local r = s:stop()\n"
      "assert(s.stopped and r.samples >= 0)\n"
      "local again = ljcheck.sample()\n"  // the profiler is free again
      "coroutine.wrap(function() again:stop() end)()\n"
      "assert(again.stopped)\n");
  INFO(error);
  CHECK(error.empty());
}

TEST_CASE("sample: a chunk name with a semicolon or a line break keeps one stack per line", "[runtime][sampler]") {
  // The collapsed format separates frames with ';' and stacks with line
  // breaks: such names are escaped (%3B, %0A), and `ljcheck report --stacks`
  // reads them back.
  Vm vm;
  std::string error = run(vm,
      "local f = loadstring('local busy = ...; busy(150)', '=odd;name\\nsecond')\n"
      "local s = ljcheck.sample({intervalMs = 1})\n"
      "f(busy)\n"
      "local r = s:stop()\n"
      "assert(r.samples > 5, r.samples)\n"
      "local found = false\n"
      "for line in r.text:gmatch('[^\\n]+') do\n"
      "  assert(line:find(' %d+$'), 'a line without its count: ' .. line .. ' in ' .. r.text)\n"
      "  found = found or line:find('odd%3Bname%0Asecond', 1, true) ~= nil\n"
      "end\n"
      "assert(found, r.text)\n");
  INFO(error);
  CHECK(error.empty());
}

TEST_CASE("sample: misuse gets errors that say what happened", "[runtime][sampler]") {
  Vm vm;
  std::string error = run(vm,
      "local s = ljcheck.sample()\n"
      "local ok, e = pcall(s.pause)\n"
      "assert(not ok and e:find('session.pause was called without its session', 1, true), e)\n"
      "assert(e:find('call it with a colon, session:pause(...)', 1, true), e)\n"
      "ok, e = pcall(s.stop, 'x')\n"
      "assert(not ok and e:find('argument #1 is a string', 1, true), e)\n"
      "ljcheck.zone('frame')\n"
      "ok, e = pcall(s.stop, s)\n"
      "assert(not ok and e:find(\"stop() called inside zone 'frame'\", 1, true), e)\n"
      "ljcheck.zone()\n"
      "ok, e = pcall(s.stop, s, '/nonexistent/dir/stacks.txt')\n"
      "assert(not ok and e:find('/nonexistent/dir/stacks.txt', 1, true), e)\n"
      "assert(s.stopped == false)\n"  // still stoppable: nothing lost
      "local r = s:stop()\n"
      "assert(r.samples >= 0 and s.stopped)\n"
      "local t = ljcheck.trace()\n"
      "ok, e = pcall(t.stop)\n"
      "assert(not ok and e:find('call it with a colon, session:stop(...)', 1, true), e)\n"
      "for i = 1, 300 do local f = function() end end\n"
      "ok, e = pcall(t.stop, t, '/nonexistent/dir/trace.csv')\n"
      "assert(not ok and e:find('/nonexistent/dir/trace.csv', 1, true), e)\n"
      "local tr = t:stop()\n"  // the report survived the failed write
      "assert(tr.totalAborts > 0, tr.totalAborts)\n"
      "assert(tr.sites[1].start:find('snippet.lua:%d+$'), tr.sites[1].start)\n");
  INFO(error);
  CHECK(error.empty());
}

TEST_CASE("zones: paths on samples, the zone filter and unbalanced pops", "[runtime][sampler][zones]") {
  Vm vm;
  std::string error = run(vm,
      "local zone = ljcheck.zone\n"
      "local s = ljcheck.sample({intervalMs = 1, zone = 'frame'})\n"
      "zone('frame'); zone('render'); busy(150); zone(); busy(60); zone()\n"
      "zone('other'); busy(40); zone()\n"
      "busy(30)\n"
      "local r = s:stop()\n"
      "local byZone = {}\n"
      "for _, row in ipairs(r.rows) do byZone[row.zonePath] = (byZone[row.zonePath] or 0) + row.count end\n"
      "assert((byZone['frame/render'] or 0) > 10 and (byZone['frame'] or 0) > 3, r.text)\n"
      "assert(byZone['other'] == nil and byZone[''] == nil)\n"
      "assert(r.samples == byZone['frame/render'] + byZone['frame'])\n"
      "local ok, e = pcall(zone)\n"
      "assert(not ok and e:find('no zone is open', 1, true), e)\n"
      "ok, e = pcall(zone, 12)\n"
      "assert(not ok and e:find('must be a string, got a number', 1, true), e)\n");
  INFO(error);
  CHECK(error.empty());
}

TEST_CASE("zones: LuaJIT's own jit.zone zones are honoured", "[runtime][sampler][zones]") {
  Vm vm;
  std::string error = run(vm,
      "local jzone = require('jit.zone')\n"
      "local s = ljcheck.sample({intervalMs = 1})\n"
      "jzone('AI'); ljcheck.zone('path'); busy(60); ljcheck.zone(); jzone()\n"
      "local r = s:stop()\n"
      "local found = false\n"
      "for _, row in ipairs(r.rows) do found = found or row.zonePath == 'AI/path' end\n"
      "assert(found, r.text)\n");
  INFO(error);
  CHECK(error.empty());
}

TEST_CASE("zones: jit.zone loaded after the session started is honoured", "[runtime][sampler][zones]") {
  Vm vm;
  std::string error = run(vm,
      "local s = ljcheck.sample({intervalMs = 1})\n"
      "local jzone = require('jit.zone')\n"
      "jzone('late'); busy(40); jzone()\n"
      "local r = s:stop()\n"
      "local found = false\n"
      "for _, row in ipairs(r.rows) do found = found or row.zonePath == 'late' end\n"
      "assert(found, r.text)\n");
  INFO(error);
  CHECK(error.empty());
}

TEST_CASE("sample: root drops the callers of a module's outermost frame", "[runtime][sampler]") {
  Vm vm;
  REQUIRE(vm.run("package.preload['app.render'] = function(...)\n"
                 "  return { draw = function(work) local x = work(40); return x end }\n"
                 "end\n",
                 "@/proj/app/render.lua")
              .empty());
  std::string error = run(vm,
      "local render = require('app.render')\n"
      "local function frame() return render.draw(busy) + 0 end\n"
      "local s = ljcheck.sample({intervalMs = 1, root = 'app.render'})\n"
      "frame(); frame(); busy(30)\n"
      "local r = s:stop()\n"
      "assert(r.text:find('\\n?draw@/proj/app/render.lua:2;work@/proj/snippet.lua:1 %d+'), r.text)\n"
      // callers dropped: no stack runs from frame into draw (a sample taken
      // in frame itself, outside the module, is a whole stack of its own)
      "assert(not r.text:find('frame@[^\\n]*;draw@'), r.text)\n"
      "assert(r.text:find('main@/proj/snippet.lua;busy@', 1, true), r.text)\n");  // no frame from it: whole
  INFO(error);
  CHECK(error.empty());
}
