// Trace events counted by identity, up to a bound (see event_tally.h).
#include "event_tally.h"

#include <functional>
#include <tuple>

namespace ljcheck {
namespace {

auto fieldsOf(const TraceEvent& ev) {
  return std::tie(ev.kind, ev.blacklistedStart, ev.afterAborts, ev.code, ev.subject, ev.errorText, ev.source, ev.line,
                  ev.zone, ev.startSource, ev.startLine, ev.startPc, ev.startFunctionLine, ev.extentFirstLine,
                  ev.extentLastLine, ev.functionLine);
}

void mix(std::size_t& seed, std::size_t value) { seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2); }

}  // namespace

std::size_t EventTally::Hash::operator()(const TraceEvent& ev) const {
  std::size_t seed = static_cast<std::size_t>(ev.kind);
  std::apply([&seed](const auto&... field) { (mix(seed, std::hash<std::decay_t<decltype(field)>>()(field)), ...); },
             fieldsOf(ev));
  return seed;
}

bool EventTally::Equal::operator()(const TraceEvent& a, const TraceEvent& b) const {
  return fieldsOf(a) == fieldsOf(b);
}

void EventTally::add(const TraceEvent& ev) {
  // A hot loop aborts the same way again and again: the last record first.
  if (last_ < records_.size() && Equal()(records_[last_].event, ev)) {
    ++records_[last_].count;
    return;
  }
  auto it = index_.find(ev);
  if (it != index_.end()) {
    last_ = it->second;
    ++records_[it->second].count;
    return;
  }
  if (!full()) {
    records_.push_back({ev, 1});
    try {
      index_.emplace(ev, records_.size() - 1);
    } catch (...) {
      records_.pop_back();
      throw;
    }
    last_ = records_.size() - 1;
    return;
  }
  if (ev.kind == TraceEventKind::Abort) ++overflow_.aborts;
  else if (ev.kind == TraceEventKind::ExitFallback) ++overflow_.fallbacks;
  else if (ev.kind == TraceEventKind::CallerExtent) {
  }  // only part of an exit's extent: lost with it
  else ++overflow_.splits;
  if (ev.blacklistedStart) ++overflow_.blacklistings;
}

std::size_t EventTally::bytesInUse() const {
  // A node of the index holds the key, the value, the next pointer and the cached hash.
  constexpr std::size_t kNode = sizeof(TraceEvent) + sizeof(std::size_t) + 2 * sizeof(void*);
  return records_.capacity() * sizeof(CountedEvent) + index_.bucket_count() * sizeof(void*) +
         index_.size() * kNode;
}

}  // namespace ljcheck
