// Taking passes over from the last value map of the same document
// (value_history.h): which steps line up, and what a step found.
#include "flow/value_history.h"

#include <utility>

namespace ljcheck::flow {

namespace {

// Bit for bit: the same pointer, so never reading through one (value_history.h).
bool sameBits(const Value& a, const Value& b) {
  return a.kind == b.kind && a.constant == b.constant && a.reassignable == b.reassignable && a.pc == b.pc &&
         a.integer == b.integer && a.proto == b.proto && a.name.data() == b.name.data() &&
         a.name.size() == b.name.size();
}

bool sameBits(const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!sameBits(a[i], b[i])) return false;
  return true;
}

// A pass's data moves between a prototype's values and a history step.
template <typename ProtoValues, typename Pass>
void swapPass(ProtoValues& values, Pass& pass) {
  std::swap(values.before, pass.before);
  std::swap(values.escaping, pass.escaping);
  std::swap(pass.uses, static_cast<decltype(pass.uses)&>(values));
}

// Each UpvalueRef and whether the closure assigns it, in one number.
std::size_t upvalueShape(const bytecode::UpvalueRef& uv, bool assigned) {
  return (static_cast<std::size_t>(uv.index) << 3) | (uv.parentLocal ? 4U : 0U) | (uv.immutable ? 2U : 0U) |
         (assigned ? 1U : 0U);
}

}  // namespace

// Whether this map lines up with the last one: the same settings, the same
// shape of chunk, a pool of names that has not grown too far (it keeps the
// names of every edit while maps line up).
void ValueMap::startHistory() {
  History& h = *history_;
  const std::size_t n = chunk_.prototypes.size();
  std::vector<std::size_t> shape;
  shape.reserve(6 * n + 2);
  shape.push_back(chunk_.fr2 ? 1 : 0);
  shape.push_back(n);
  for (std::size_t i = 0; i < n; ++i) {
    const bytecode::Prototype& p = chunk_.prototypes[i];
    shape.push_back(p.parent);
    shape.push_back(p.children.size());
    shape.insert(shape.end(), p.children.begin(), p.children.end());
    shape.push_back(p.upvalues.size());
    for (std::size_t u = 0; u < p.upvalues.size(); ++u) shape.push_back(upvalueShape(p.upvalues[u], assignsUpvalue(i, u)));
    shape.push_back(static_cast<std::size_t>(creatingPc_[i]));
  }
  // Which globals name which functions: a read of one resolves to it.
  for (const auto& [name, proto] : globalFunctions_) {
    shape.push_back(std::hash<std::string>{}(name));
    shape.push_back(proto);
  }
  const BuiltinAliases noAliases;
  const BuiltinAliases& aliases = aliases_ ? *aliases_ : noAliases;
  bool lineUp = h.valid && h.profile == &profile_ && h.cModules == cModules_ && h.aliases == aliases &&
                h.shape == shape && h.sameBytes.size() == n && h.names.size() <= 2 * h.namesWhenStarted + 256;
  h.valid = false;  // until this map hands its steps back
  if (lineUp) {
    names_ = std::move(h.names);
    libraryCache_ = std::move(h.libraryCache);
  } else {
    h.steps.clear();
    h.namesWhenStarted = SIZE_MAX;  // counted when this map leaves
  }
  h.names.clear();
  h.libraryCache.clear();
  h.profile = &profile_;
  if (!lineUp) h.aliases = aliases;
  h.cModules = cModules_;
  h.shape = std::move(shape);
  h.next.clear();
  h.next.reserve(h.steps.size() + n);
  h.latestPass.assign(n, SIZE_MAX);
  h.cursor = 0;
  h.aligned = lineUp;
  h.passesReused = h.passesRun = 0;
}

ValueMap::Pass ValueMap::passOf(std::size_t index) {
  if (!history_) return forwardPass(index);
  History& h = *history_;
  History::Step step;
  step.proto = index;
  step.upvalues = protos_[index].upvalues;
  step.entry = entryValues(index);
  History::Step* last = h.aligned && h.cursor < h.steps.size() ? &h.steps[h.cursor] : nullptr;
  if (last && (!last->isPass || last->proto != index)) last = nullptr;
  if (h.aligned) ++h.cursor;
  Pass pass;
  if (last && h.sameBytes[index] && sameBits(last->upvalues, step.upvalues) && sameBits(last->entry, step.entry)) {
    pass = std::move(last->pass);
    ++h.passesReused;
  } else {
    pass = forwardPass(index);
    ++h.passesRun;
    // Later passes read this one's stores (the field map): they line up
    // only when the stores are the last map's.
    const auto sameStores = [](const TableUses& a, const TableUses& b) {
      if (a.dynamicKeys != b.dynamicKeys || a.metatables != b.metatables || a.fieldWrites.size() != b.fieldWrites.size())
        return false;
      for (std::size_t i = 0; i < a.fieldWrites.size(); ++i) {
        const auto& x = a.fieldWrites[i];
        const auto& y = b.fieldWrites[i];
        if (x.table != y.table || x.key.data() != y.key.data() || x.key.size() != y.key.size() ||
            !sameBits(x.value, y.value))
          return false;
      }
      return true;
    };
    if (!last || !sameStores(last->pass.uses, pass.uses)) h.aligned = false;
  }
  h.next.push_back(std::move(step));
  return pass;
}

void ValueMap::setReturns(std::size_t index, Value returns) {
  protos_[index].returns = returns;
  if (!history_) return;
  History& h = *history_;
  if (h.aligned) {
    const History::Step* last = h.cursor < h.steps.size() ? &h.steps[h.cursor] : nullptr;
    if (!last || last->isPass || last->proto != index || !sameBits(last->returns, returns)) h.aligned = false;
    ++h.cursor;
  }
  History::Step step;
  step.isPass = false;
  step.proto = index;
  step.returns = returns;
  h.next.push_back(std::move(step));
}

// The pass a prototype held until `resolve` replaced it belongs to its
// previous step.
void ValueMap::keepReplaced(std::size_t index, Pass replaced) {
  History& h = *history_;
  if (h.latestPass[index] != SIZE_MAX) h.next[h.latestPass[index]].pass = std::move(replaced);
  h.latestPass[index] = h.next.size() - 1;  // the step passOf just added
}

// Hands this map's steps, with what each pass found, to the next map.
void ValueMap::leaveHistory() {
  History& h = *history_;
  for (std::size_t i = 0; i < protos_.size(); ++i)
    if (h.latestPass[i] != SIZE_MAX) swapPass(protos_[i], h.next[h.latestPass[i]].pass);
  h.steps = std::move(h.next);
  h.next = {};
  h.names = std::move(names_);
  h.libraryCache = std::move(libraryCache_);
  if (h.namesWhenStarted == SIZE_MAX) h.namesWhenStarted = h.names.size();
  h.valid = true;
}

}  // namespace ljcheck::flow
