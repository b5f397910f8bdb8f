// Scope statistics: the reservoir (Algorithm R) against the
// uniform distribution, the all-time figures against known streams, the
// inverse-delta identity over random readings, the clock, and the hook's
// events (also from Lua code in an embedded VM).
#include <catch2/catch.hpp>

#include <time.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "../support/embedded_vm.h"
#include "../../runtime/src/scope_clock.h"
#include "../../runtime/src/scope_reservoir.h"
#include "../../runtime/src/scope_tree.h"

using namespace ljcheck;

namespace {

// How often each position of a stream of `length` values ends up in the
// reservoir over `runs` seeded runs.
std::vector<double> keptCounts(int length, int runs) {
  std::vector<double> kept(static_cast<std::size_t>(length), 0.0);
  for (int run = 0; run < runs; ++run) {
    SeededRandom random(static_cast<std::uint64_t>(run) + 1);
    Reservoir reservoir;
    for (int i = 0; i < length; ++i) reservoir.offer(i, random);
    for (int k = 0; k < reservoir.size(); ++k) kept[static_cast<std::size_t>(reservoir.at(k))] += 1;
  }
  return kept;
}

double chiSquare(const std::vector<double>& observed, double expected) {
  double sum = 0;
  for (double o : observed) sum += (o - expected) * (o - expected) / expected;
  return sum;
}

// Opens and closes one scope of `label` lasting `ns` with heap delta `bytes`.
void closedScope(ScopeTree& tree, int label, std::int64_t& clock, std::int64_t& heap, std::int64_t ns,
                 std::int64_t bytes) {
  tree.mark(label, {clock, heap});
  clock += ns;
  heap += bytes;
  REQUIRE(tree.done({clock, heap}));
}

}  // namespace

TEST_CASE("the scope reservoir keeps every position of a stream equally often (chi-square)", "[scopes]") {
  constexpr int kLength = 1024, kRuns = 400;
  std::vector<double> kept = keptCounts(kLength, kRuns);
  double expected = static_cast<double>(kRuns) * Reservoir::kSize / kLength;  // 50 per position
  // 1023 degrees of freedom: the 0.999 quantile is about 1168 (Wilson-Hilferty).
  double statistic = chiSquare(kept, expected);
  INFO("chi-square over " << kLength << " positions: " << statistic);
  CHECK(statistic < 1168.0);
  // The same statistic rejects a reservoir that keeps the first 128 values.
  std::vector<double> firstOnly(kLength, 0.0);
  for (int i = 0; i < Reservoir::kSize; ++i) firstOnly[static_cast<std::size_t>(i)] = kRuns;
  CHECK(chiSquare(firstOnly, expected) > 1168.0);
  // And over 16 blocks of 64 positions (15 degrees of freedom: 0.999 quantile 37.70).
  std::vector<double> blocks(16, 0.0);
  for (int i = 0; i < kLength; ++i) blocks[static_cast<std::size_t>(i / 64)] += kept[static_cast<std::size_t>(i)];
  CHECK(chiSquare(blocks, expected * 64) < 37.70);
}

TEST_CASE("the scope reservoir is reproducible from its seed", "[scopes]") {
  auto fill = [](std::uint64_t seed) {
    SeededRandom random(seed);
    Reservoir reservoir;
    for (int i = 0; i < 5000; ++i) reservoir.offer(i, random);
    std::array<std::int64_t, Reservoir::kSize> values{};
    for (int k = 0; k < Reservoir::kSize; ++k) values[static_cast<std::size_t>(k)] = reservoir.at(k);
    return values;
  };
  CHECK(fill(42) == fill(42));
  CHECK(fill(42) != fill(43));
}

TEST_CASE("scope averages, counts and max cover every observation, percentiles come from the reservoir", "[scopes]") {
  ScopeTree tree(7);
  int frame = tree.intern("frame");
  std::int64_t clock = 1000, heap = 50000;
  // Durations 1..10000 ns; heap deltas alternate +300 and -100 bytes.
  for (int i = 1; i <= 10000; ++i) closedScope(tree, frame, clock, heap, i, i % 2 ? 300 : -100);
  ScopeNode* node = tree.root().child(frame);
  REQUIRE(node);
  ScopeStats s = tree.stats(*node);
  CHECK(s.count == 10000);
  CHECK(s.timeAvgNs == 5000.5);  // all 10,000, not the 128 kept
  CHECK(s.timeMaxNs == 10000);
  CHECK(node->times.seen() == 10000);
  CHECK(node->times.size() == Reservoir::kSize);
  CHECK(s.timeP50Ns > 4000);
  CHECK(s.timeP50Ns < 6000);
  CHECK(s.timeP90Ns > 8000);
  CHECK(s.timeP90Ns <= 10000);
  CHECK(s.memDeltaAvg == 100.0);
  CHECK(s.memDeltaSum == 1000000);
}

TEST_CASE("scope percentiles of a short stream are exact nearest ranks", "[scopes]") {
  ScopeTree tree;
  int label = tree.intern("step");
  std::int64_t clock = 0, heap = 0;
  for (int d : {50, 10, 40, 20, 30, 60, 70, 80, 90, 100}) closedScope(tree, label, clock, heap, d, 0);
  ScopeStats s = tree.stats(*tree.root().child(label));
  CHECK(s.timeP50Ns == 50);
  CHECK(s.timeP90Ns == 90);
  CHECK(s.timeMaxNs == 100);
}

TEST_CASE("scope mem.net telescopes to the last end minus the first start over random readings", "[scopes]") {
  ScopeTree tree;
  int frame = tree.intern("frame"), update = tree.intern("update");
  SeededRandom random(99);
  std::int64_t clock = 0, heap = 1 << 20;
  auto step = [&] { heap += static_cast<std::int64_t>(random.below(4000)) - 1900; clock += 10; };
  std::int64_t firstFrame = heap, firstUpdate = 0, lastUpdate = 0;
  for (int i = 0; i < 10000; ++i) {
    tree.mark(frame, {clock, heap});
    step();
    if (i == 0) firstUpdate = heap;
    tree.mark(update, {clock, heap});
    step();
    REQUIRE(tree.done({clock, heap}));
    lastUpdate = heap;
    step();
    REQUIRE(tree.done({clock, heap}));
    if (i + 1 < 10000) step();  // between frames: the parent-level inverse delta
  }
  ScopeNode& f = *tree.root().child(frame);
  CHECK(f.memNet() == heap - firstFrame);
  CHECK(f.deltaSum + f.inverseSum == f.memNet());
  CHECK(f.inverseSum != 0);
  CHECK(f.child(update)->memNet() == lastUpdate - firstUpdate);
  CHECK(tree.root().memNet() == heap - firstFrame);
  CHECK(tree.stats(tree.root()).count == 0);
}

TEST_CASE("scope done without a mark reports it and leaves the tree as it was", "[scopes]") {
  ScopeTree tree;
  CHECK_FALSE(tree.done({0, 0}));
  tree.mark(tree.intern("a"), {0, 0});
  CHECK(tree.openPath() == "a");
  tree.mark(tree.intern("b"), {1, 0});
  CHECK(tree.openPath() == "a/b");
  CHECK(tree.done({2, 0}));
  CHECK(tree.done({3, 0}));
  CHECK_FALSE(tree.done({4, 0}));
  CHECK(tree.depth() == 0);
}

TEST_CASE("the scope hook sees each mark and done with label, time and memory delta", "[scopes]") {
  static std::vector<ScopeEvent> events;
  static std::vector<std::string> labels;
  events.clear();
  labels.clear();
  setScopeHook(
      [](const ScopeEvent& e, void* user) {
        events.push_back(e);
        labels.emplace_back(e.label);
        CHECK(user == &events);
      },
      &events);
  ScopeTree tree;
  int frame = tree.intern("frame");
  tree.mark(frame, {100, 1000});
  tree.done({150, 1300});
  tree.mark(frame, {170, 1250});
  tree.done({200, 1250});
  setScopeHook(nullptr, nullptr);
  tree.mark(frame, {300, 1250});
  REQUIRE(events.size() == 4);
  CHECK(labels == std::vector<std::string>{"frame", "frame", "frame", "frame"});
  CHECK(events[0].kind == ScopeEventKind::mark);
  CHECK(events[0].memDelta == 0);
  CHECK(events[0].depth == 1);
  CHECK(events[1].kind == ScopeEventKind::done);
  CHECK(events[1].timeNs == 150);
  CHECK(events[1].memDelta == 300);   // D
  CHECK(events[2].memDelta == -50);   // I: 1250 - 1300
  CHECK(events[3].heapBytes == 1250);
  CHECK(events[3].vm == &tree);
}

TEST_CASE("the scope clock is monotonic and reads nanoseconds, by the TSC or by clock_gettime", "[scopes]") {
  for (bool forceMonotonic : {false, true}) {
    if (forceMonotonic) setenv("LJCHECK_SCOPE_CLOCK", "monotonic", 1);
    ScopeClock clock;
    unsetenv("LJCHECK_SCOPE_CLOCK");
    INFO("forced CLOCK_MONOTONIC: " << forceMonotonic << ", TSC: " << clock.usesTsc());
    if (forceMonotonic) CHECK_FALSE(clock.usesTsc());
    std::int64_t previous = clock.ticks();
    for (int i = 0; i < 10000; ++i) {
      std::int64_t now = clock.ticks();
      REQUIRE(now >= previous);
      previous = now;
    }
    std::int64_t start = clock.ticks(), startNs = ScopeClock::monotonicNs();
    timespec pause{0, 20000000};
    nanosleep(&pause, nullptr);
    std::int64_t endNs = ScopeClock::monotonicNs();
    double measured = static_cast<double>(clock.ticks() - start) * clock.nsPerTick();
    double reference = static_cast<double>(endNs - startNs);
    // The two clocks agree on a 20 ms interval to within 1 % (plus the reads' own spacing).
    CHECK(measured >= 20000000 * 0.99);
    CHECK(std::abs(measured - reference) <= reference * 0.01 + 200000);
    CHECK(std::abs(static_cast<double>(clock.toMonotonicNs(clock.ticks()) - ScopeClock::monotonicNs())) < 1e6);
  }
}

TEST_CASE("the scope hook sees the marks and dones of Lua code in a VM, with its deltas", "[scopes]") {
  struct Seen {
    std::vector<ScopeEvent> events;
    std::vector<std::string> labels;
  } seen;
  setScopeHook(
      [](const ScopeEvent& e, void* user) {
        auto& s = *static_cast<Seen*>(user);
        s.events.push_back(e);
        s.labels.emplace_back(e.label);
      },
      &seen);
  testing::EmbeddedVm vm;
  std::string error = vm.run(
      "local scope = require('ljcheck').scope\n"
      "local keep = {}\n"
      "for i = 1, 3 do scope.mark('frame') keep[i] = string.rep('z', 100) .. i scope.done() end\n"
      "local stats = scope.convert(scope.root).children.frame.stats\n"
      "deltaSum, inverse = stats.mem_delta.sum, stats.mem.inverse\n");
  setScopeHook(nullptr, nullptr);
  REQUIRE(error.empty());
  REQUIRE(seen.events.size() == 6);
  CHECK(seen.labels == std::vector<std::string>(6, "frame"));
  std::int64_t dones = 0, marks = 0;
  for (std::size_t i = 0; i < seen.events.size(); ++i) {
    const ScopeEvent& e = seen.events[i];
    CHECK(e.kind == (i % 2 ? ScopeEventKind::done : ScopeEventKind::mark));
    CHECK(e.depth == 1);
    if (i > 0) CHECK(e.timeNs >= seen.events[i - 1].timeNs);
    (e.kind == ScopeEventKind::done ? dones : marks) += e.memDelta;
  }
  lua_getglobal(vm.L, "deltaSum");
  CHECK(static_cast<std::int64_t>(lua_tonumber(vm.L, -1)) == dones);
  lua_getglobal(vm.L, "inverse");
  CHECK(static_cast<std::int64_t>(lua_tonumber(vm.L, -1)) == marks);
  CHECK(dones > 0);
  CHECK(std::abs(static_cast<double>(seen.events.back().timeNs - ScopeClock::monotonicNs())) < 1e9);
}
