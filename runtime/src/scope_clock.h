// The clock of scopes: monotonic, in nanoseconds. Read twice per mark/done
// pair, so its cost is most of a pair's: where the kernel itself keeps time
// by the CPU's invariant time-stamp counter (clocksource "tsc", x86-64), a
// reading is one RDTSC (about half of a clock_gettime through the vDSO) and
// ticks become nanoseconds at read-out; elsewhere, or with
// LJCHECK_SCOPE_CLOCK=monotonic in the environment, it is
// clock_gettime(CLOCK_MONOTONIC) itself.
#pragma once

#include <cstdint>

namespace ljcheck {

class ScopeClock {
 public:
  ScopeClock();

  // A reading in ticks: comparable with other readings of this clock only.
  std::int64_t ticks() const {
#if defined(__x86_64__)
    if (tsc_) return static_cast<std::int64_t>(__builtin_ia32_rdtsc());
#endif
    return monotonicNs();
  }
  // Nanoseconds per tick: 1 for CLOCK_MONOTONIC; for the TSC, calibrated
  // against CLOCK_MONOTONIC over the whole time since construction (at least
  // 2 ms: the first call may wait that long), refined on each call from 100 ms
  // on (the longer the baseline, the smaller the error).
  double nsPerTick();
  // A reading as CLOCK_MONOTONIC nanoseconds, with the rate last calibrated
  // (calibrated on first use).
  std::int64_t toMonotonicNs(std::int64_t ticks);
  bool usesTsc() const { return tsc_; }

  static std::int64_t monotonicNs();

 private:
  struct Pair {
    std::int64_t ticks = 0, ns = 0;
  };
  Pair pairNow() const;
  void calibrate(std::int64_t minimumNs);

  bool tsc_ = false;
  Pair base_;            // taken at construction: no wait there
  double nsPerTick_ = 0;  // 0 until calibrated
};

}  // namespace ljcheck
