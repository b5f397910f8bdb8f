// A fixed pool of threads pulling tasks by index; libclang allows parsing on
// several threads as long as each translation unit has its own index.
#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

namespace ljcheck::extractor {

void runParallel(const std::vector<std::function<void()>>& tasks) {
  // Tasks start in list order; after a failure no new one starts. Every task
  // before the failed one has started and runs to its end, so the error
  // reported is always the first failing task's.
  std::vector<std::exception_ptr> failures(tasks.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  auto worker = [&]() {
    for (std::size_t i; !failed && (i = next++) < tasks.size();) {
      try {
        tasks[i]();
      } catch (...) {
        failures[i] = std::current_exception();
        failed = true;
      }
    }
  };
  const std::size_t count = std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), tasks.size());
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < count; ++t) threads.emplace_back(worker);
  worker();
  for (auto& thread : threads) thread.join();
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

}  // namespace ljcheck::extractor
