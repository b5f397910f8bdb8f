// The scope clock (see scope_clock.h).
#include "scope_clock.h"

#include <time.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace ljcheck {
namespace {

bool kernelKeepsTimeByTsc() {
#if defined(__x86_64__)
  const char* choice = std::getenv("LJCHECK_SCOPE_CLOCK");
  if (choice && std::string(choice) == "monotonic") return false;
  std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string source;
  return in >> source && source == "tsc";
#else
  return false;
#endif
}

}  // namespace

std::int64_t ScopeClock::monotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// A TSC reading and a CLOCK_MONOTONIC reading taken together: of a few
// tries, the one bracketed most tightly (the thread may be preempted
// between two reads).
ScopeClock::Pair ScopeClock::pairNow() const {
  Pair best;
  std::int64_t bestGap = -1;
  for (int i = 0; i < 5; ++i) {
    std::int64_t before = ticks();
    std::int64_t ns = monotonicNs();
    std::int64_t after = ticks();
    if (bestGap < 0 || after - before < bestGap) {
      bestGap = after - before;
      best = {before + (after - before) / 2, ns};
    }
  }
  return best;
}

ScopeClock::ScopeClock() : tsc_(kernelKeepsTimeByTsc()) {
  if (tsc_) base_ = pairNow();
}

// The rate over the time since construction, once that is at least minimumNs.
void ScopeClock::calibrate(std::int64_t minimumNs) {
  Pair now;
  do now = pairNow();
  while (now.ns - base_.ns < minimumNs);
  if (now.ticks > base_.ticks)
    nsPerTick_ = static_cast<double>(now.ns - base_.ns) / static_cast<double>(now.ticks - base_.ticks);
  else
    tsc_ = false;  // a counter that does not advance is no clock: CLOCK_MONOTONIC from now on
}

double ScopeClock::nsPerTick() {
  if (!tsc_) return 1.0;
  if (nsPerTick_ == 0 || monotonicNs() - base_.ns >= 100000000) calibrate(2000000);
  return tsc_ ? nsPerTick_ : 1.0;
}

std::int64_t ScopeClock::toMonotonicNs(std::int64_t t) {
  if (!tsc_) return t;
  if (nsPerTick_ == 0) calibrate(2000000);
  if (!tsc_) return t;
  return base_.ns + static_cast<std::int64_t>(static_cast<double>(t - base_.ticks) * nsPerTick_);
}

}  // namespace ljcheck
