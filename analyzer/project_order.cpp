// Callers before the modules they require (see project_order.h): Kahn's
// algorithm over the require graph, largest first among the ready files.
#include "project_order.h"

#include <algorithm>
#include <queue>
#include <utility>

namespace ljcheck {

CallersFirst callersFirst(const std::vector<std::vector<std::size_t>>& callers,
                          const std::vector<std::uintmax_t>& sizes) {
  const std::size_t n = callers.size();
  auto size = [&](std::size_t i) { return i < sizes.size() ? sizes[i] : 0; };
  std::vector<std::vector<std::size_t>> required(n);  // the files each file requires
  std::vector<std::size_t> waiting(n, 0);              // callers not placed yet
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i : callers[j]) {
      required[i].push_back(j);
      ++waiting[j];
    }
  // Largest first, then by index: the same order on every run.
  auto later = [&](std::size_t a, std::size_t b) { return size(a) != size(b) ? size(a) < size(b) : a > b; };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> ready(later);
  for (std::size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) ready.push(i);
  CallersFirst out;
  out.order.reserve(n);
  std::vector<char> placed(n, 0);
  std::vector<std::size_t> byLargest;  // for cycles: the unplaced files, largest first
  for (std::size_t next = 0; out.order.size() < n;) {
    std::size_t i;
    if (!ready.empty()) {
      i = ready.top();
      ready.pop();
      if (placed[i]) continue;
    } else {  // only cycles are left: the largest of them breaks one
      if (byLargest.empty()) {
        byLargest.resize(n);
        for (std::size_t k = 0; k < n; ++k) byLargest[k] = k;
        std::stable_sort(byLargest.begin(), byLargest.end(), [&](std::size_t a, std::size_t b) { return size(a) > size(b); });
      }
      while (placed[byLargest[next]]) ++next;
      i = byLargest[next];
    }
    placed[i] = 1;
    out.order.push_back(i);
    for (std::size_t j : required[i])
      if (--waiting[j] == 0 && !placed[j]) ready.push(j);
  }
  std::vector<std::size_t> position(n);
  for (std::size_t k = 0; k < n; ++k) position[out.order[k]] = k;
  out.waitFor.resize(n);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i : callers[j])
      if (position[i] < position[j]) out.waitFor[j].push_back(i);
  return out;
}

std::vector<char> inRequireCycles(const std::vector<std::vector<std::size_t>>& callers) {
  // Tarjan's algorithm, without recursion: a deep chain of modules must
  // not overflow the stack.
  const std::size_t n = callers.size();
  constexpr std::size_t kUnseen = static_cast<std::size_t>(-1);
  std::vector<std::size_t> index(n, kUnseen), low(n, 0), stack;
  std::vector<char> onStack(n, 0), inCycle(n, 0);
  std::size_t counter = 0;
  std::vector<std::pair<std::size_t, std::size_t>> work;  // (file, next edge)
  for (std::size_t root = 0; root < n; ++root) {
    if (index[root] != kUnseen) continue;
    work.push_back({root, 0});
    while (!work.empty()) {
      auto& [v, edge] = work.back();
      if (edge == 0 && index[v] == kUnseen) {
        index[v] = low[v] = counter++;
        stack.push_back(v);
        onStack[v] = 1;
      }
      if (edge < callers[v].size()) {
        const std::size_t w = callers[v][edge++];
        if (w >= n) continue;
        if (index[w] == kUnseen) work.push_back({w, 0});
        else if (onStack[w]) low[v] = std::min(low[v], index[w]);
        continue;
      }
      const std::size_t done = v;
      work.pop_back();
      if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
      if (low[done] != index[done]) continue;
      std::size_t members = 0, w;
      std::vector<std::size_t> component;
      do {
        w = stack.back();
        stack.pop_back();
        onStack[w] = 0;
        component.push_back(w);
        ++members;
      } while (w != done);
      if (members > 1)
        for (std::size_t m : component) inCycle[m] = 1;
    }
  }
  return inCycle;
}

CallersFirstQueue::CallersFirstQueue(const CallersFirst& order, const std::vector<std::uintmax_t>& sizes)
    : rank_(order.waitFor.size(), 0),
      later_([this](std::size_t a, std::size_t b) { return rank_[a] != rank_[b] ? rank_[a] < rank_[b] : a > b; }),
      ready_(later_),
      waiting_(order.waitFor.size(), 0),
      waiters_(order.waitFor.size()) {
  for (std::size_t j = 0; j < order.waitFor.size(); ++j) {
    waiting_[j] = order.waitFor[j].size();
    for (std::size_t i : order.waitFor[j]) waiters_[i].push_back(j);
  }
  // A file's rank: its size plus the largest rank among the files waiting
  // for it, the work that cannot start before it ends. The highest first
  // (list scheduling): a chain of modules that require one another starts
  // early instead of being left to one worker at the end.
  for (auto k = order.order.rbegin(); k != order.order.rend(); ++k) {
    std::uintmax_t after = 0;
    for (std::size_t j : waiters_[*k]) after = std::max(after, rank_[j]);
    rank_[*k] = (*k < sizes.size() ? sizes[*k] : 0) + after;
  }
  for (std::size_t j = 0; j < waiting_.size(); ++j)
    if (waiting_[j] == 0) ready_.push(j);
}

std::optional<std::size_t> CallersFirstQueue::take() {
  std::unique_lock<std::mutex> lock(mutex_);
  // waitFor points back in a total order: some file is always ready or in work.
  changed_.wait(lock, [&] { return !ready_.empty() || handedOut_ == waiting_.size(); });
  if (ready_.empty()) return std::nullopt;
  std::size_t file = ready_.top();
  ready_.pop();
  ++handedOut_;
  if (handedOut_ == waiting_.size()) changed_.notify_all();
  return file;
}

void CallersFirstQueue::finished(std::size_t file) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t j : waiters_[file])
      if (--waiting_[j] == 0) ready_.push(j);
  }
  changed_.notify_all();
}

}  // namespace ljcheck
