// Raw trace aborts to reasonIds, through the profile's trace-error names.
#include "ljcheck/abort_mapping.h"

namespace ljcheck {

std::string traceErrorNameByMessage(std::string_view message) {
  for (const auto& p : builtinProfiles())
    for (const auto& te : p.traceErrors)
      if (te.message == message) return te.name;
  return {};
}

std::string traceErrorName(const RecorderProfile& profile, const RawAbort& abort) {
  if (abort.code < 0) return "RECERR";  // a Lua error object instead of a trace error
  if (profile.supported && static_cast<size_t>(abort.code) < profile.traceErrors.size())
    return profile.traceErrors[static_cast<size_t>(abort.code)].name;
  std::string byMessage = traceErrorNameByMessage(abort.message);
  if (!byMessage.empty()) return byMessage;
  return "TRACEERR" + std::to_string(abort.code);
}

bool traceErrorHasSubject(std::string_view name) { return name == "NYIBC" || name == "NYIFFU" || name == "NYIIR"; }

std::string reasonIdForAbort(const RecorderProfile& profile, const RawAbort& abort) {
  std::string name = traceErrorName(profile, abort);
  if (traceErrorHasSubject(name) && !abort.infoName.empty()) return name + ":" + abort.infoName;
  return name;
}

}  // namespace ljcheck
