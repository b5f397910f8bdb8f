// The list of objects released at process exit (see exit_release.h).
#include "exit_release.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace ljcheck {
namespace {

// Constant-initialized and trivially destructible: usable from the exit
// handler whatever the order of static destructors.
std::mutex gListMutex;
ReleasedAtExit* gFirst = nullptr;
std::atomic<bool> gExiting{false};

}  // namespace

ReleasedAtExit::ReleasedAtExit() {
  static const bool registered = std::atexit(&ReleasedAtExit::releaseAll) == 0;
  (void)registered;  // without the handler, a plain os.exit leaks as before
  std::lock_guard<std::mutex> lock(gListMutex);
  next_ = gFirst;
  if (gFirst) gFirst->previous_ = this;
  gFirst = this;
}

ReleasedAtExit::~ReleasedAtExit() {
  std::lock_guard<std::mutex> lock(gListMutex);
  if (previous_) previous_->next_ = next_;
  else gFirst = next_;
  if (next_) next_->previous_ = previous_;
}

void ReleasedAtExit::releaseAll() noexcept {
  std::lock_guard<std::mutex> lock(gListMutex);
  gExiting = true;
  for (ReleasedAtExit* object = gFirst; object; object = object->next_) object->releaseAtExit();
}

bool processExiting() noexcept { return gExiting.load(std::memory_order_relaxed); }

}  // namespace ljcheck
