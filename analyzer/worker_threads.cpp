// Work shared out over a few threads (see worker_threads.h).
#include "worker_threads.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "ljcheck/huge_page_heaps.h"

namespace ljcheck {

void onThreads(unsigned jobs, std::size_t count, const std::function<void()>& worker) {
  jobs = std::max(1u, static_cast<unsigned>(std::min<std::size_t>(jobs, count)));
  if (jobs == 1 && !hugePageHeapsInUse()) {
    worker();
    return;
  }
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < jobs; ++j)
    threads.emplace_back([&worker] {
      adviseThreadHeap();
      worker();
    });
  for (auto& t : threads) t.join();
}

void forEachOnThreads(unsigned jobs, std::size_t count, const std::function<void(std::size_t)>& work) {
  std::atomic<std::size_t> next{0};
  onThreads(jobs, count, [&] {
    for (std::size_t k = next++; k < count; k = next++) work(k);
  });
}

}  // namespace ljcheck
