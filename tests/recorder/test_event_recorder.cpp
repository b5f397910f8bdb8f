// The event recorder under real threads: exactly-once drain with producers
// sharing fewer chunks than there are threads, restart cycles with varying
// slab sizes, threads exiting mid-capture, and concurrent name registration.
// These run under ThreadSanitizer in CI (scripts/test.sh).
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "ljcheck/event_recorder.h"

using namespace ljcheck;

namespace {

Event producerEvent(int producer, std::int64_t sequence) {
  Event ev;
  ev.kind = EventKind::Sample;
  ev.a = producer;
  ev.b = sequence;
  return ev;
}

// Drains what is left after an endCapture; returns the number of events.
std::size_t drainAll() {
  return drainCapture([](const Event*, std::size_t) {});
}

}  // namespace

TEST_CASE("recorder: 8 producers share 3 chunks and every accepted event is drained exactly once",
          "[recorder]") {
  constexpr int kProducers = 8;
  constexpr int kPerProducer = 40000;
  REQUIRE(beginCapture(3));
  std::vector<std::vector<char>> accepted(kProducers, std::vector<char>(kPerProducer, 0));
  std::vector<std::vector<int>> seen(kProducers, std::vector<int>(kPerProducer, 0));
  std::atomic<int> running{kProducers};
  std::size_t badEvents = 0;
  std::thread collector([&] {
    auto sink = [&](const Event* events, std::size_t n) {
      for (std::size_t i = 0; i < n; ++i) {
        const Event& e = events[i];
        if (e.a < 0 || e.a >= kProducers || e.b < 0 || e.b >= kPerProducer || e.threadId == 0) {
          ++badEvents;
          continue;
        }
        ++seen[static_cast<std::size_t>(e.a)][static_cast<std::size_t>(e.b)];
      }
    };
    while (running.load() > 0) drainCapture(sink);
    drainCapture(sink);
  });
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p)
    producers.emplace_back([&, p] {
      for (int i = 0; i < kPerProducer; ++i)
        accepted[static_cast<std::size_t>(p)][static_cast<std::size_t>(i)] = emitEvent(producerEvent(p, i));
      running.fetch_sub(1);
    });
  for (auto& t : producers) t.join();
  collector.join();
  CaptureCounts counts = endCapture();
  // The partial chunks endCapture published.
  drainCapture([&](const Event* events, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      ++seen[static_cast<std::size_t>(events[i].a)][static_cast<std::size_t>(events[i].b)];
  });

  std::uint64_t acceptedCount = 0, wrong = 0;
  for (int p = 0; p < kProducers; ++p)
    for (int i = 0; i < kPerProducer; ++i) {
      int expected = accepted[static_cast<std::size_t>(p)][static_cast<std::size_t>(i)] ? 1 : 0;
      acceptedCount += static_cast<std::uint64_t>(expected);
      if (seen[static_cast<std::size_t>(p)][static_cast<std::size_t>(i)] != expected) ++wrong;
    }
  CHECK(badEvents == 0);
  CHECK(wrong == 0);
  CHECK(counts.accepted == acceptedCount);
  CHECK(counts.accepted + counts.dropped == std::uint64_t{kProducers} * kPerProducer);
  CHECK(acceptedCount >= 3 * kEventsPerChunk);  // the collector recycled chunks
}

TEST_CASE("recorder: 40 stop and restart cycles with varying slab sizes while producers emit",
          "[recorder]") {
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> acceptedNow{0};
  std::vector<std::thread> producers;
  for (int p = 0; p < 4; ++p)
    producers.emplace_back([&, p] {
      for (std::int64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
        if (emitEvent(producerEvent(p, i))) acceptedNow.fetch_add(1, std::memory_order_relaxed);
        else std::this_thread::yield();  // disarmed or no chunk free: let the collector run
      }
    });
  for (int cycle = 0; cycle < 40; ++cycle) {
    std::size_t chunks = 1 + static_cast<std::size_t>(cycle * 7 % 5);
    std::string error;
    REQUIRE(beginCapture(chunks, &error));
    CHECK(recorderChunkCount() == chunks);
    std::uint64_t before = acceptedNow.load();
    // Let the producers record something in this capture (bounded wait).
    for (int spin = 0; spin < 2000 && acceptedNow.load() < before + 100; ++spin) std::this_thread::yield();
    std::size_t drained = 0;
    if (cycle % 2) drained += drainAll();  // half the cycles also drain mid-capture
    CaptureCounts counts = endCapture();
    drained += drainAll();
    INFO("cycle " << cycle << " with " << chunks << " chunks");
    CHECK(drained == counts.accepted);
    CHECK(counts.discarded == 0);
  }
  stop = true;
  for (auto& t : producers) t.join();
}

TEST_CASE("recorder: threads that exit during a capture hand their partial chunks over", "[recorder]") {
  REQUIRE(beginCapture(64));
  std::atomic<std::uint64_t> accepted{0};
  std::uint64_t drained = 0;
  // More threads over the run than there are slots: exited threads give theirs
  // back. Each exited thread's partial chunk waits in the full list, so the
  // collector drains between waves.
  for (int wave = 0; wave < 40; ++wave) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 30; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 10 + t; ++i)
          if (emitEvent(producerEvent(t, i))) accepted.fetch_add(1);
      });
    for (auto& t : threads) t.join();
    drained += drainAll();
  }
  CaptureCounts counts = endCapture();
  drained += drainAll();
  CHECK(counts.dropped == 0);
  CHECK(counts.accepted == accepted.load());
  CHECK(accepted.load() == 40u * (30u * 10u + 29u * 30u / 2u));
  CHECK(drained == accepted.load());
}

TEST_CASE("recorder: 8 threads register names concurrently and every name resolves", "[recorder]") {
  std::vector<std::uint32_t> ids(8);
  std::vector<LabelId> labels(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      ids[static_cast<std::size_t>(t)] = currentThreadId();
      nameThread("worker " + std::to_string(t));
      nameVm(static_cast<std::uint32_t>(5000 + t), "vm of worker " + std::to_string(t));
      labels[static_cast<std::size_t>(t)] = internLabel("label " + std::to_string(t));
      internLabel("shared label");
    });
  for (auto& t : threads) t.join();
  for (int t = 0; t < 8; ++t) {
    CHECK(threadName(ids[static_cast<std::size_t>(t)]) == "worker " + std::to_string(t));
    CHECK(vmName(static_cast<std::uint32_t>(5000 + t)) == "vm of worker " + std::to_string(t));
    CHECK(labelText(labels[static_cast<std::size_t>(t)]) == "label " + std::to_string(t));
  }
  CHECK(labelText(internLabel("shared label")) == "shared label");
  CHECK(threadName(999999) == "");
}

TEST_CASE("recorder: a failed reservation leaves capture disarmed and the program running", "[recorder]") {
  std::string error;
  CHECK_FALSE(beginCapture(std::numeric_limits<std::size_t>::max() / 2, &error));
  CHECK(error.find("overflows") != std::string::npos);
  CHECK_FALSE(captureArmed());
  CHECK_FALSE(emitEvent(producerEvent(0, 0)));
  CHECK_FALSE(beginCapture(std::size_t{1} << 40, &error));  // refused before allocating
  CHECK(error.find("larger than the limit") != std::string::npos);
  CHECK_FALSE(beginCapture(0, &error));
  CHECK_FALSE(captureArmed());
  // The recorder still works afterwards.
  REQUIRE(beginCapture(2));
  CHECK(emitEvent(producerEvent(0, 1)));
  CHECK(endCapture().accepted == 1);
  CHECK(drainAll() == 1);
}

TEST_CASE("recorder: a second capture records although the first was never exported", "[recorder]") {
  REQUIRE(beginCapture(2));
  for (int i = 0; i < 10; ++i) CHECK(emitEvent(producerEvent(0, i)));
  CHECK(endCapture().accepted == 10);
  // No drain: the next capture discards those ten explicitly and records anew.
  std::string error;
  REQUIRE(beginCapture(2, &error));
  CHECK_FALSE(beginCapture(2, &error));  // one capture at a time
  CHECK(error.find("already running") != std::string::npos);
  for (int i = 0; i < 5; ++i) CHECK(emitEvent(producerEvent(0, i)));
  CaptureCounts counts = endCapture();
  CHECK(counts.discarded == 10);
  CHECK(counts.accepted == 5);
  std::vector<std::int64_t> sequences;
  drainCapture([&](const Event* events, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) sequences.push_back(events[i].b);
  });
  CHECK(sequences == std::vector<std::int64_t>{0, 1, 2, 3, 4});
}

TEST_CASE("recorder: a full pool drops events without losing accepted ones", "[recorder]") {
  REQUIRE(beginCapture(1));
  std::size_t accepted = 0;
  for (std::size_t i = 0; i < kEventsPerChunk + 100; ++i)
    accepted += emitEvent(producerEvent(0, static_cast<std::int64_t>(i))) ? 1 : 0;
  CaptureCounts counts = endCapture();
  CHECK(accepted == kEventsPerChunk);
  CHECK(counts.accepted == kEventsPerChunk);
  CHECK(counts.dropped == 100);
  CHECK(drainAll() == kEventsPerChunk);
}

TEST_CASE("recorder: every drained event carries its fields and the id of the thread that emitted it",
          "[recorder]") {
  // Two waves of four threads, the second reusing the first's slots under new
  // thread ids; each thread fills more than two chunks, so the id crosses
  // chunk hand-offs (emit does not store it: a chunk's events get it at drain).
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2 * static_cast<int>(kEventsPerChunk) + 10;
  REQUIRE(beginCapture(2 * kThreads * 3));
  std::vector<std::uint32_t> ids(2 * kThreads, 0);
  for (int wave = 0; wave < 2; ++wave) {
    std::vector<std::thread> threads;
    for (int t = wave * kThreads; t < (wave + 1) * kThreads; ++t)
      threads.emplace_back([&, t] {
        ids[static_cast<std::size_t>(t)] = currentThreadId();
        for (int i = 0; i < kPerThread; ++i) {
          Event ev = producerEvent(t, i);
          ev.timeNs = static_cast<std::uint64_t>(i) * 3 + 1;
          ev.vmId = static_cast<std::uint32_t>(700 + t);
          ev.kind = EventKind::TraceAbort;
          ev.c = -static_cast<std::int64_t>(i);
          emitEvent(ev);
        }
      });
    for (auto& t : threads) t.join();
  }
  CHECK(endCapture().accepted == 2u * kThreads * kPerThread);
  std::size_t matching = 0;
  std::size_t seen = drainCapture([&](const Event* events, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      const Event& e = events[i];
      auto t = static_cast<std::size_t>(e.a);
      if (t < ids.size() && e.threadId == ids[t] && e.vmId == 700 + t && e.kind == EventKind::TraceAbort &&
          e.timeNs == static_cast<std::uint64_t>(e.b) * 3 + 1 && e.c == -e.b)
        ++matching;
    }
  });
  CHECK(seen == 2u * kThreads * kPerThread);
  CHECK(matching == seen);
  std::sort(ids.begin(), ids.end());
  CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end());  // eight distinct ids
}
