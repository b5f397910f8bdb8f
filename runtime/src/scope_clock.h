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
  // against CLOCK_MONOTONIC at construction and refined on each call over the
  // whole time since (the longer the baseline, the smaller the error).
  double nsPerTick();
  // A reading as CLOCK_MONOTONIC nanoseconds, with the rate last calibrated.
  std::int64_t toMonotonicNs(std::int64_t ticks) const;
  bool usesTsc() const { return tsc_; }

  static std::int64_t monotonicNs();

 private:
  struct Pair {
    std::int64_t ticks = 0, ns = 0;
  };
  Pair pairNow() const;

  bool tsc_ = false;
  Pair base_;
  double nsPerTick_ = 1.0;
};

}  // namespace ljcheck
