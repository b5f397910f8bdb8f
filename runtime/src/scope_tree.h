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
  double timeSum = 0;  // in ticks
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
  bool knownLabel(int id) const { return id >= 1 && static_cast<std::size_t>(id) <= labels_.size(); }
  std::string_view labelName(int id) const;

  // Opens a scope `labelId` (a known label) under the current one.
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
  // Turns readings into the hook's nanoseconds; none: readings are nanoseconds.
  const ScopeClock* clock = nullptr;

 private:
  ScopeNode* newChild(ScopeNode& parent, int labelId);
  void notify(ScopeHookFunction hook, ScopeEventKind kind, const ScopeNode& node, ScopeReading now,
              std::int64_t delta) const;

  std::deque<ScopeNode> nodes_;        // stable addresses; [0] is the root
  std::deque<std::string> labels_;     // by id - 1; stable for string_views
  ScopeNode* current_;
  int depth_ = 0;
  std::uint64_t generation_ = 0;
  SeededRandom random_;
};

}  // namespace ljcheck
