// Maps a raw trace abort, as the VM reports it through jit.attach, to a
// reasonId: the code through the profile's trace-error names (or, for a
// profile the registry does not hold, through the message text), the subject
// through the VM's own bytecode and fast-function names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ljcheck/profile.h"

namespace ljcheck {

struct RawAbort {
  int code = -1;            // the VM's trace-error number
  std::string message;      // its message format from jit.vmdef.traceerr (may be empty)
  std::string infoName;     // subject already resolved by the VM side: bytecode, ffname or IR name
};

// TREDEF name for the code, by the profile's list (or message text when the
// code is out of range); "RECERR" for a non-numeric error.
std::string traceErrorName(const RecorderProfile& profile, const RawAbort& abort);
// CODE or CODE:SUBJECT. Subjects only for the trace errors traceErrorHasSubject names.
std::string reasonIdForAbort(const RecorderProfile& profile, const RawAbort& abort);
// Whether an abort with this trace error names a subject: NYIBC (the
// bytecode), NYIFFU (the fast function) and NYIIR (the IR instruction).
bool traceErrorHasSubject(std::string_view name);
// TREDEF name whose message equals the text, across the builtin profiles.
std::string traceErrorNameByMessage(std::string_view message);

}  // namespace ljcheck
