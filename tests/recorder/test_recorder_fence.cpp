// Which pairing the recorder's emit/endCapture handshake uses: the asymmetric
// fence (membarrier) where the kernel offers it, the sequentially consistent
// fallback under ThreadSanitizer or with LJCHECK_RECORDER_FENCE=seq_cst.
// tests/CMakeLists.txt runs every [recorder] test a second time with the
// fallback forced, so both paths carry the exactly-once and restart tests.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "ljcheck/event_recorder.h"

using namespace ljcheck;

namespace {

bool underThreadSanitizer() {
#if defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

bool kernelOffersExpeditedMembarrier() {
#if defined(__linux__) && defined(SYS_membarrier)
  long commands = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  return commands >= 0 && (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0;
#else
  return false;
#endif
}

bool fallbackForced() {
  const char* choice = std::getenv("LJCHECK_RECORDER_FENCE");
  return choice && std::strcmp(choice, "seq_cst") == 0;
}

}  // namespace

TEST_CASE("recorder: the handshake uses membarrier where the kernel offers it, else the seq_cst fallback",
          "[recorder]") {
  REQUIRE(beginCapture(1));
  bool expected = kernelOffersExpeditedMembarrier() && !fallbackForced() && !underThreadSanitizer();
  INFO("LJCHECK_RECORDER_FENCE=" << (std::getenv("LJCHECK_RECORDER_FENCE") ? std::getenv("LJCHECK_RECORDER_FENCE") : ""));
  CHECK(recorderUsesAsymmetricFence() == expected);
  CHECK(emitEvent(Event{}));
  CHECK(endCapture().accepted == 1);
  CHECK(drainCapture([](const Event*, std::size_t) {}) == 1);
}
