// The scope tree and its zero-sum accounting (see scope_tree.h).
#include "scope_tree.h"


namespace ljcheck {
std::atomic<ScopeHookFunction> ScopeTree::hookFunction{nullptr};
std::atomic<void*> ScopeTree::hookUser{nullptr};

void setScopeHook(ScopeHookFunction function, void* user) {
  ScopeTree::hookUser.store(user, std::memory_order_relaxed);
  ScopeTree::hookFunction.store(function, std::memory_order_release);
}

ScopeTree::ScopeTree(std::uint64_t seed) : nodes_(1), current_(&nodes_.front()), random_(seed) {}

int ScopeTree::intern(std::string_view label) {
  for (std::size_t i = 0; i < labels_.size(); ++i)
    if (labels_[i] == label) return static_cast<int>(i + 1);
  labels_.emplace_back(label);
  labelCount_ = static_cast<int>(labels_.size());
  return labelCount_;
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
  event.vmId = recorderVmId;
  hook(event, hookUser.load(std::memory_order_relaxed));
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
    s.timeAvgNs = static_cast<double>(node.timeSum) / n * nsPerTick;
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
