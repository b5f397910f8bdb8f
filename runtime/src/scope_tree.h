// The scope tree of one VM (ljcheck.scope): nodes by label under their
// parent, the stack of open scopes, and each node's statistics with zero-sum
// memory accounting. Pure C++ over readings it is given (time, heap), so the
// arithmetic is testable with known streams; scope_binding.cpp reads the
// clock and the heap and calls it from Lua.
//
// Inverse delta: each node keeps the heap at its start and at its end. On
// each done, D = end - start; on each mark of a node that closed before,
// I = start - (end of its previous occurrence). mem.net = sum D + sum I then
// telescopes to (end of the last occurrence) - (start of the first): every
// intermediate reading cancels, so the figure is exact to the byte however
// the collector ran in between.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "ljcheck/scope_hook.h"
#include "scope_clock.h"
#include "scope_reservoir.h"

namespace ljcheck {

struct ScopeReading {
  std::int64_t ticks = 0;      // the scope clock (nanoseconds, or TSC ticks: see scope_clock.h)
  std::int64_t heapBytes = 0;  // the Lua heap
};

struct ScopeNode {
  int label = 0;  // id from ScopeTree::intern; 0 for the root
  std::size_t index = 0;  // in ScopeTree::node(); 0 for the root
  ScopeNode* parent = nullptr;
  std::vector<ScopeNode*> children;  // in order of first mark
  bool open = false;
  bool closedBefore = false;  // an occurrence ended: the next mark records I
  ScopeReading start;         // of the open (or last) occurrence
  std::int64_t lastEndBytes = 0;
  // Statistics over every closed occurrence.
  std::uint64_t count = 0;
  std::int64_t timeSum = 0;  // in ticks
  std::int64_t timeMax = 0;
  std::int64_t deltaSum = 0;    // sum D
  std::int64_t inverseSum = 0;  // sum I
  Reservoir times;              // durations in ticks, for the percentiles

  std::int64_t memNet() const { return deltaSum + inverseSum; }
  ScopeNode* child(int labelId) {
    for (ScopeNode* c : children)
      if (c->label == labelId) return c;
    return nullptr;
  }
};

// What convert() shows for a node.
struct ScopeStats {
  std::uint64_t count = 0;
  double timeAvgNs = 0;
  std::int64_t timeP50Ns = 0, timeP90Ns = 0, timeMaxNs = 0;
  double memDeltaAvg = 0;
  std::int64_t memDeltaSum = 0, memNet = 0, memInverse = 0;
};

class ScopeTree {
 public:
  static constexpr std::uint64_t kDefaultSeed = 0x6c6a636865636b31ULL;  // "ljcheck1"

  explicit ScopeTree(std::uint64_t seed = kDefaultSeed);

  // The 1-based id of a label, registered on first sight; ids survive reset.
  int intern(std::string_view label);
  bool knownLabel(int id) const { return id >= 1 && id <= labelCount_; }
  std::string_view labelName(int id) const;

  // Opens a scope `labelId` (a known label) under the current one.
  // Inline, with done(): they are the whole of a mark/done pair but the
  // readings, and the FFI entry points call them.
  void mark(int labelId, ScopeReading now);
  // Closes the current scope; false when none is open.
  bool done(ScopeReading now);
  // Drops every node but the root (emptied) and reseeds; ids stay.
  // Precondition: no scope open.
  void reset(std::uint64_t seed);

  ScopeNode& root() { return nodes_.front(); }
  int depth() const { return depth_; }
  // Incremented by reset: a node handle from before it no longer resolves.
  std::uint64_t generation() const { return generation_; }
  // Node by index (0 = root); nullptr when out of range.
  ScopeNode* node(std::size_t index);
  // "frame/update"; "" for the root.
  std::string path(const ScopeNode& node) const;
  // The innermost open scope's path; "" when none is open.
  std::string openPath() const { return path(*current_); }
  // Times in nanoseconds, given the clock's rate.
  ScopeStats stats(const ScopeNode& node, double nsPerTick = 1.0) const;
  // What the hook's events name as their VM.
  const void* vmId = this;
  std::uint32_t recorderVmId = 0;  // the VM's id in recorder events, set by the binding
  // Turns readings into the hook's nanoseconds; none: readings are nanoseconds.
  ScopeClock* clock = nullptr;

  // The hook (scope_hook.h), read on each mark and done.
  static std::atomic<ScopeHookFunction> hookFunction;
  static std::atomic<void*> hookUser;

 private:
  ScopeNode* newChild(ScopeNode& parent, int labelId);
  void notify(ScopeHookFunction hook, ScopeEventKind kind, const ScopeNode& node, ScopeReading now,
              std::int64_t delta) const;

  std::deque<ScopeNode> nodes_;        // stable addresses; [0] is the root
  std::deque<std::string> labels_;     // by id - 1; stable for string_views
  int labelCount_ = 0;                 // labels_.size(), cheap to read on every mark
  ScopeNode* current_;
  int depth_ = 0;
  std::uint64_t generation_ = 0;
  SeededRandom random_;
};

inline void ScopeTree::mark(int labelId, ScopeReading now) {
  ScopeNode& parent = *current_;
  ScopeNode* node = parent.child(labelId);
  if (!node) node = newChild(parent, labelId);
  std::int64_t inverse = 0;
  if (node->closedBefore) {
    inverse = now.heapBytes - node->lastEndBytes;
    node->inverseSum += inverse;
  }
  // The root accounts the same way over top-level scopes: its inverse delta
  // is the gap between one top-level scope's end and the next one's start.
  if (depth_ == 0) {
    ScopeNode& root = nodes_.front();
    if (root.closedBefore) root.inverseSum += now.heapBytes - root.lastEndBytes;
    root.open = true;
  }
  node->open = true;
  node->start = now;
  current_ = node;
  ++depth_;
  if (ScopeHookFunction hook = hookFunction.load(std::memory_order_acquire))
    notify(hook, ScopeEventKind::mark, *node, now, inverse);
}

inline bool ScopeTree::done(ScopeReading now) {
  if (depth_ == 0) return false;
  ScopeNode& node = *current_;
  std::int64_t elapsed = now.ticks - node.start.ticks;
  std::int64_t delta = now.heapBytes - node.start.heapBytes;
  ++node.count;
  node.timeSum += elapsed;
  node.timeMax = std::max(node.timeMax, elapsed);
  node.times.offer(elapsed, random_);
  node.deltaSum += delta;
  node.lastEndBytes = now.heapBytes;
  node.closedBefore = true;
  node.open = false;
  current_ = node.parent;
  --depth_;
  if (depth_ == 0) {
    ScopeNode& root = nodes_.front();
    root.deltaSum += delta;
    root.lastEndBytes = now.heapBytes;
    root.closedBefore = true;
    root.open = false;
  }
  if (ScopeHookFunction hook = hookFunction.load(std::memory_order_acquire))
    notify(hook, ScopeEventKind::done, node, now, delta);
  return true;
}

}  // namespace ljcheck
