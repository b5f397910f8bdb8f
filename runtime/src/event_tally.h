// Trace events counted by identity: equal events (same kind, reason,
// location, zone and trace start) share one record with a count, so a
// session's memory grows with the distinct events, not with how often they
// happen. The number of records is bounded (TraceOptions::maxSites): past it,
// an event of a new identity is counted in the overflow only, so the totals
// stay exact while its site goes unreported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "trace_event.h"

namespace ljcheck {

struct CountedEvent {
  TraceEvent event;
  std::uint64_t count = 0;
};

// What happened past the bound: counted, not kept.
struct EventOverflow {
  std::uint64_t aborts = 0;
  std::uint64_t splits = 0;         // stitches and returns
  std::uint64_t blacklistings = 0;  // aborts that blacklisted their start site
  std::uint64_t fallbacks = 0;      // side exits left to the interpreter
};

class EventTally {
 public:
  explicit EventTally(std::size_t maxRecords) : maxRecords_(maxRecords) {}

  // Counts ev in its record, in a new one while there is room, or in the overflow.
  void add(const TraceEvent& ev);
  // No room for a new record: the handler then looks names up without
  // interning new ones (an event with a new name cannot match a record).
  bool full() const { return records_.size() >= maxRecords_; }

  const std::vector<CountedEvent>& records() const { return records_; }  // first seen first
  const EventOverflow& overflow() const { return overflow_; }
  std::size_t maxRecords() const { return maxRecords_; }
  bool overflowed() const { return overflow_.aborts + overflow_.splits > 0; }
  // Heap bytes of the records and their index (container sizes; allocator overhead not counted).
  std::size_t bytesInUse() const;

 private:
  struct Hash {
    std::size_t operator()(const TraceEvent& ev) const;
  };
  struct Equal {
    bool operator()(const TraceEvent& a, const TraceEvent& b) const;
  };

  std::size_t maxRecords_;
  std::vector<CountedEvent> records_;
  std::unordered_map<TraceEvent, std::size_t, Hash, Equal> index_;  // event -> records_ position
  EventOverflow overflow_;
  std::size_t last_ = static_cast<std::size_t>(-1);  // the record counted last
};

}  // namespace ljcheck
