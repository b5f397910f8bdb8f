// One measurement of the event recorder per process (bench/recorder.sh runs
// each in fresh processes, in a seeded random order):
//   emit N P        ns per event with P producer threads emitting N events each
//   mutex N P       the same through a baseline recorder that takes a mutex per event
//   capture         microseconds for beginCapture + endCapture of a 64-chunk slab
// Prints "<figure> <value>" on stdout.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ljcheck/event_recorder.h"

using namespace ljcheck;
using Clock = std::chrono::steady_clock;

namespace {

// The baseline: what a recorder with one lock per event costs.
class MutexRecorder {
 public:
  // Touched up front, like the recorder's slab, so neither pays page faults.
  explicit MutexRecorder(std::size_t capacity) : events_(capacity) {}
  bool emit(const Event& ev) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (used_ == events_.size()) return false;
    events_[used_++] = ev;
    return true;
  }

 private:
  std::mutex mutex_;
  std::vector<Event> events_;
  std::size_t used_ = 0;
};

double threadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// CPU time per event of each producer thread, averaged over the producers:
// the machine is shared, so wall time would measure the other processes. Two
// producers pay for contention (cache lines bouncing, the lists' lock) in it.
template <class Emit>
double nsPerEvent(std::size_t perProducer, int producers, Emit emit) {
  std::vector<std::thread> threads;
  std::vector<std::uint64_t> refused(static_cast<std::size_t>(producers), 0);
  std::vector<double> cpu(static_cast<std::size_t>(producers), 0);
  for (int p = 0; p < producers; ++p)
    threads.emplace_back([&, p] {
      Event ev;
      ev.kind = EventKind::ZoneEnter;
      ev.a = p;
      emit(ev);  // registers the thread outside the measurement
      double start = threadCpuNs();
      // Two fields change per event, as a timestamp and a payload do in real
      // callers: emit is inline, so constant fields would fold into its stores.
      for (std::size_t i = 0; i < perProducer; ++i) {
        ev.timeNs = i;
        ev.b = static_cast<std::int64_t>(i);
        if (!emit(ev)) ++refused[static_cast<std::size_t>(p)];
      }
      cpu[static_cast<std::size_t>(p)] = threadCpuNs() - start;
    });
  for (auto& t : threads) t.join();
  double total = 0;
  for (double c : cpu) total += c;
  for (auto r : refused)
    if (r) std::fprintf(stderr, "emit_bench: %llu events refused\n", static_cast<unsigned long long>(r));
  return total / producers / static_cast<double>(perProducer);
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  std::size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2000000;
  int producers = argc > 3 ? std::atoi(argv[3]) : 1;
  std::size_t chunks = (n * static_cast<std::size_t>(producers) + producers) / kEventsPerChunk + 2 * static_cast<std::size_t>(producers);
  if (mode == "emit") {
    if (!beginCapture(chunks)) return 3;
    double ns = nsPerEvent(n, producers, [](const Event& ev) { return emitEvent(ev); });
    endCapture();
    std::printf("ns_per_event %.3f\n", ns);
  } else if (mode == "mutex") {
    MutexRecorder baseline(n * static_cast<std::size_t>(producers) + static_cast<std::size_t>(producers));
    double ns = nsPerEvent(n, producers, [&](const Event& ev) { return baseline.emit(ev); });
    std::printf("ns_per_event %.3f\n", ns);
  } else if (mode == "capture") {
    if (!beginCapture(64)) return 3;  // the slab is reserved once; begin+end is measured after
    emitEvent(Event{});
    endCapture();
    auto start = Clock::now();
    constexpr int kRounds = 100;
    for (int i = 0; i < kRounds; ++i) {
      beginCapture(64);
      emitEvent(Event{});
      endCapture();
    }
    std::printf("us_per_capture %.3f\n",
                std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kRounds);
  } else {
    std::fprintf(stderr, "usage: emit_bench emit|mutex N P | capture\n");
    return 2;
  }
  return 0;
}
