// The heavy side of the asymmetric fence (see asymmetric_fence.h): membarrier(2).
#include "asymmetric_fence.h"

#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#if defined(__SANITIZE_THREAD__)
#define LJCHECK_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LJCHECK_UNDER_TSAN 1
#endif
#endif

namespace ljcheck {
namespace {

bool registerForHeavyFence() {
#if defined(LJCHECK_UNDER_TSAN)
  return false;  // TSan cannot see membarrier's barriers: use the seq_cst pairing it understands
#elif defined(__linux__) && defined(SYS_membarrier)
  const char* choice = std::getenv("LJCHECK_RECORDER_FENCE");
  if (choice && std::strcmp(choice, "seq_cst") == 0) return false;
  long commands = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  if (commands < 0 || !(commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) return false;
  return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
#else
  return false;
#endif
}

}  // namespace

bool heavyFenceAvailable() {
  static const bool available = registerForHeavyFence();
  return available;
}

bool heavyFence() {
#if defined(__linux__) && defined(SYS_membarrier) && !defined(LJCHECK_UNDER_TSAN)
  return syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
#else
  return false;
#endif
}

}  // namespace ljcheck
