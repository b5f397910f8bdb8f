// Events to sites: resolves each raw event to a reasonId through the live
// profile and the registry, locates it, and groups by (reasonId, location,
// zonePath). No Lua here: it runs after the capture was drained.
#pragma once

#include <vector>

#include "ljcheck/live_profile.h"
#include "ljcheck/reason.h"
#include "ljcheck/trace_report.h"
#include "event_tally.h"
#include "location.h"
#include "trace_event.h"

namespace ljcheck {

struct AggregationContext {
  const LiveProfile& profile;
  const ReasonCatalog& catalog;
  const LocationResolver& locations;
  bool includeBenign = false;
};

// Fills report.sites (sorted), totalAborts and blacklisted, and the
// overflow part of report.collector. The overflow counts in the totals:
// its aborts in totalAborts, its blacklistings in blacklisted (one start
// site each, as a VM demotes a start site once).
void aggregateSites(const EventTally& events, const StringPool& strings, const AggregationContext& context,
                    TraceReport& report);

}  // namespace ljcheck
