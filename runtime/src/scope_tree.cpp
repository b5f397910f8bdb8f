// The scope tree and its zero-sum accounting (see scope_tree.h).
#include "scope_tree.h"

#include <algorithm>
#include <atomic>

namespace ljcheck {
namespace {

std::atomic<ScopeHookFunction> hookFunction{nullptr};
std::atomic<void*> hookUser{nullptr};

}  // namespace

void setScopeHook(ScopeHookFunction function, void* user) {
  hookUser.store(user, std::memory_order_relaxed);
  hookFunction.store(function, std::memory_order_release);
}

ScopeTree::ScopeTree(std::uint64_t seed) : nodes_(1), current_(&nodes_.front()), random_(seed) {}

int ScopeTree::intern(std::string_view label) {
  for (std::size_t i = 0; i < labels_.size(); ++i)
    if (labels_[i] == label) return static_cast<int>(i + 1);
  labels_.emplace_back(label);
  return static_cast<int>(labels_.size());
}

std::string_view ScopeTree::labelName(int id) const {
  return knownLabel(id) ? std::string_view(labels_[static_cast<std::size_t>(id - 1)]) : std::string_view();
}

ScopeNode* ScopeTree::newChild(ScopeNode& parent, int labelId) {
  ScopeNode& node = nodes_.emplace_back();
  node.label = labelId;
  node.index = nodes_.size() - 1;
  node.parent = &parent;
  parent.children.push_back(&node);
  return &node;
}

void ScopeTree::notify(ScopeHookFunction hook, ScopeEventKind kind, const ScopeNode& node, ScopeReading now,
                       std::int64_t delta) const {
  ScopeEvent event;
  event.kind = kind;
  event.label = labelName(node.label);
  event.timeNs = clock ? clock->toMonotonicNs(now.ticks) : now.ticks;
  event.heapBytes = now.heapBytes;
  event.memDelta = delta;
  event.depth = kind == ScopeEventKind::mark ? depth_ : depth_ + 1;
  event.vm = vmId;
  hook(event, hookUser.load(std::memory_order_relaxed));
}

void ScopeTree::mark(int labelId, ScopeReading now) {
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

bool ScopeTree::done(ScopeReading now) {
  if (depth_ == 0) return false;
  ScopeNode& node = *current_;
  std::int64_t elapsed = now.ticks - node.start.ticks;
  std::int64_t delta = now.heapBytes - node.start.heapBytes;
  ++node.count;
  node.timeSum += static_cast<double>(elapsed);
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

void ScopeTree::reset(std::uint64_t seed) {
  nodes_.resize(1);
  nodes_.front() = ScopeNode();
  current_ = &nodes_.front();
  depth_ = 0;
  ++generation_;
  random_ = SeededRandom(seed);
}

ScopeNode* ScopeTree::node(std::size_t index) { return index < nodes_.size() ? &nodes_[index] : nullptr; }

std::string ScopeTree::path(const ScopeNode& node) const {
  std::string out;
  for (const ScopeNode* n = &node; n && n->parent; n = n->parent) {
    std::string_view label = labelName(n->label);
    out.insert(0, out.empty() ? std::string(label) : std::string(label) + "/");
  }
  return out;
}

ScopeStats ScopeTree::stats(const ScopeNode& node, double nsPerTick) const {
  ScopeStats s;
  s.count = node.count;
  if (node.count > 0) {
    auto n = static_cast<double>(node.count);
    s.timeAvgNs = node.timeSum / n * nsPerTick;
    s.memDeltaAvg = static_cast<double>(node.deltaSum) / n;
  }
  auto ns = [nsPerTick](std::int64_t ticks) {
    return nsPerTick == 1.0 ? ticks : static_cast<std::int64_t>(static_cast<double>(ticks) * nsPerTick + 0.5);
  };
  s.timeP50Ns = ns(node.times.percentile(50));
  s.timeP90Ns = ns(node.times.percentile(90));
  s.timeMaxNs = ns(node.timeMax);
  s.memDeltaSum = node.deltaSum;
  s.memNet = node.memNet();
  s.memInverse = node.inverseSum;
  return s;
}

}  // namespace ljcheck
