// How a timeline names aborts and chunks: the same reasonIds and report
// paths as the trace report (abort_mapping through the live profile, and
// the LocationResolver), so a timeline instant and a report site agree.
#include <memory>

#include "ljcheck/abort_mapping.h"
#include "ljcheck/timeline.h"
#include "location.h"

namespace ljcheck {

TimelineNaming timelineNaming(const LiveProfile& profile, const std::string& root) {
  auto shared = std::make_shared<LiveProfile>(profile);
  auto locations = std::make_shared<LocationResolver>(root);
  TimelineNaming naming;
  naming.reasonIdOf = [shared](int code, int subject) {
    const LiveProfile& p = *shared;
    VmNameTables names{p.facts.bytecodeNames, p.facts.fastFunctionNames, p.irNames};
    RawAbort raw{code, subject, p.traceErrorMessage(code), ""};
    return resolveAbort(p.mappingProfile(), raw, names).reasonId.str();
  };
  naming.displayPath = [locations](const std::string& chunkName) {
    return chunkName.empty() ? std::string() : locations->displayPath(chunkName);
  };
  return naming;
}

}  // namespace ljcheck
