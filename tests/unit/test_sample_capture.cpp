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
