// The sample capture's bound: a program with more distinct stacks than
// kMaxSampledStacks keeps exact totals in bounded memory. The capture is fed
// directly (as the profiler callback does) from real Lua frames of an
// embedded LuaJIT, so the test does not wait on the profiler's timer.
#include <catch2/catch.hpp>

#include <cstdint>

#include "../support/embedded_vm.h"
#include "runtime/src/sample_capture.h"

namespace {

// record(): one interpreted sample of the calling stack.
int recordSample(lua_State* L) {
  auto* capture = static_cast<ljcheck::SampleCapture*>(lua_touserdata(L, lua_upvalueindex(1)));
  capture->record(L, 1, ljcheck::VmState::Interpreted);
  return 0;
}

// Makes record() a global of vm that samples into capture.
void exposeRecord(ljcheck::testing::EmbeddedVm& vm, ljcheck::SampleCapture& capture) {
  lua_pushlightuserdata(vm.L, &capture);
  lua_pushcclosure(vm.L, recordSample, 1);
  lua_setglobal(vm.L, "record");
}

}  // namespace

TEST_CASE("sample capture: stacks past the limit are counted in one overflow stack", "[runtime][sampler]") {
  ljcheck::testing::EmbeddedVm vm;
  ljcheck::SampleCapture capture(4);
  exposeRecord(vm, capture);
  const std::size_t extra = 5;
  // Every chunk has its own name, so every sample is a new stack and a new line.
  std::string error = vm.run("for i = 1, " + std::to_string(ljcheck::kMaxSampledStacks + extra) +
                             " do assert(loadstring('record()', '=chunk' .. i))() end\n"
                             "record()\n");
  INFO(error);
  REQUIRE(error.empty());

  CHECK(capture.stacks.size() == ljcheck::kMaxSampledStacks + 1);
  CHECK(capture.lines.size() == ljcheck::kMaxSampledStacks);
  std::uint64_t total = 0, past = 0;
  for (const auto& [key, counts] : capture.stacks) {
    total += counts.total();
    if (key.second.size() == 1 && capture.frames[key.second.front()].overflow) past += counts.total();
  }
  CHECK(total == ljcheck::kMaxSampledStacks + extra + 1);
  CHECK(past == extra + 1);  // the last record() is a new stack too
}

TEST_CASE("sample capture: a stack seen again is counted in its own record", "[runtime][sampler]") {
  ljcheck::testing::EmbeddedVm vm;
  ljcheck::SampleCapture capture(4);
  exposeRecord(vm, capture);
  std::string error = vm.run("local function f() record() end\nfor i = 1, 3 do f() end\n");
  INFO(error);
  REQUIRE(error.empty());
  REQUIRE(capture.stacks.size() == 1);
  CHECK(capture.stacks.begin()->second[ljcheck::VmState::Interpreted] == 3);
  CHECK(capture.stacks.begin()->first.second.size() == 3);  // record, f, main chunk
}

TEST_CASE("sample capture: a function called under two names gives two frames", "[runtime][sampler]") {
  ljcheck::testing::EmbeddedVm vm;
  ljcheck::SampleCapture capture(4);
  exposeRecord(vm, capture);
  // A frame's name belongs to its call site, not to its function: no per-function cache may merge them.
  std::string error = vm.run("local function f() record() end\nlocal g = f\nf()\ng()\nf()\n");
  INFO(error);
  REQUIRE(error.empty());
  REQUIRE(capture.stacks.size() == 2);
  for (const auto& [key, counts] : capture.stacks) {
    const ljcheck::SampledFrame& caller = capture.frames.at(key.second.at(1));
    CHECK(caller.lineDefined == 1);
    CHECK(capture.strings.text(caller.name) == (counts.total() == 2 ? "f" : "g"));
  }
}

TEST_CASE("sample capture: a fresh closure per call is one frame", "[runtime][sampler]") {
  ljcheck::testing::EmbeddedVm vm;
  ljcheck::SampleCapture capture(4);
  exposeRecord(vm, capture);
  // Each closure is a new function object at a new call-site key, named as before.
  std::string error = vm.run("for i = 1, 3 do local g = function() record() end\ng()\nend\n");
  INFO(error);
  REQUIRE(error.empty());
  REQUIRE(capture.stacks.size() == 1);
  CHECK(capture.stacks.begin()->second[ljcheck::VmState::Interpreted] == 3);
  const ljcheck::SampledFrame& g = capture.frames.at(capture.stacks.begin()->first.second.at(1));
  CHECK(capture.strings.text(g.name) == "g");
  CHECK(g.lineDefined == 1);
}

TEST_CASE("sample capture: call sites past the cache bound are still named", "[runtime][sampler]") {
  ljcheck::testing::EmbeddedVm vm;
  ljcheck::SampleCapture capture(4);
  exposeRecord(vm, capture);
  const std::size_t calls = ljcheck::kMaxCachedCallSites + 10;
  std::string error = vm.run("for i = 1, " + std::to_string(calls) +
                             " do local g = function() record() end\ng()\nend\n"
                             "local function h() record() end\nh()\n");
  INFO(error);
  REQUIRE(error.empty());
  REQUIRE(capture.stacks.size() == 2);
  for (const auto& [key, counts] : capture.stacks) {
    const ljcheck::SampledFrame& caller = capture.frames.at(key.second.at(1));
    CHECK(capture.strings.text(caller.name) == (counts.total() == 1 ? "h" : "g"));
    if (counts.total() != 1) CHECK(counts.total() == calls);
  }
}

TEST_CASE("sample capture: the functions it keeps alive are let go at release", "[runtime][sampler]") {
  ljcheck::testing::EmbeddedVm vm;
  ljcheck::SampleCapture capture(4);
  exposeRecord(vm, capture);
  // No JIT: a trace could hold the closure as a constant of its own.
  std::string error = vm.run("jit.off()\n"
                             "watch = setmetatable({}, {__mode = 'k'})\n"
                             "local function once() local g = function() record() end\n"
                             "  watch[g] = true\n  g()\nend\n"
                             "once()\ncollectgarbage()\ncollectgarbage()\n"
                             "assert(next(watch), 'the sampled closure was collected while cached')\n");
  INFO(error);
  REQUIRE(error.empty());
  capture.releaseFunctions(vm.L);
  error = vm.run("collectgarbage()\ncollectgarbage()\n"
                 "assert(next(watch) == nil, 'the sampled closure outlived the release')\n");
  CHECK(error.empty());
}
