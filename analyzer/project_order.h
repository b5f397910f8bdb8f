// The order of a project's first pass: every file after the files that
// require it (required_modules.h), so that a module is analyzed once,
// knowing how hot its callers call it, instead of once cold and again in
// the rounds (settleProject). Files that require each other (a cycle) are
// taken largest first, and the rounds settle what one of them could not
// know.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <queue>
#include <vector>

namespace ljcheck {

struct CallersFirst {
  std::vector<std::size_t> order;  // indices into the files
  // By file: the files that require it and come before it in `order`,
  // whose analyses it waits for.
  std::vector<std::vector<std::size_t>> waitFor;
};

// `callers[j]`: the files that require file j. Among the files ready at
// once, the largest goes first (as largestFirst orders a batch), so that
// no worker is left with a big file at the end.
CallersFirst callersFirst(const std::vector<std::vector<std::size_t>>& callers,
                          const std::vector<std::uintmax_t>& sizes);

// By file: whether it requires itself through other files (a cycle of the
// require graph, `callers[j]` the files that require file j). Counts of
// calls flow on from other files through a file in no cycle only: in a
// cycle they would grow with every round of the project (CallGraph).
std::vector<char> inRequireCycles(const std::vector<std::vector<std::size_t>>& callers);

// Hands the files of a callers-first pass out to worker threads: a file
// once every file it waits for is analyzed, first the ready file with the
// most work behind it (its size and the longest chain of files waiting
// for it). A worker does not wait while another file is ready.
class CallersFirstQueue {
 public:
  CallersFirstQueue(const CallersFirst& order, const std::vector<std::uintmax_t>& sizes);
  // The next file; nothing once every file has been handed out.
  std::optional<std::size_t> take();
  // `file`'s analysis is done: the files waiting for it may be ready.
  void finished(std::size_t file);

 private:
  std::vector<std::uintmax_t> rank_;  // per file: its size plus the most work waiting for it
  std::function<bool(std::size_t, std::size_t)> later_;
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::function<bool(std::size_t, std::size_t)>> ready_;
  std::vector<std::size_t> waiting_;                // per file: files it waits for, not analyzed yet
  std::vector<std::vector<std::size_t>> waiters_;  // per file: the files that wait for it
  std::size_t handedOut_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
};

}  // namespace ljcheck
