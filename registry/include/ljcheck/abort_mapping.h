// Maps what the VM reports through jit.attach — a trace-error number with its
// argument, or the ffid of a call the trace stitched or returned at — to a
// reasonId: the code through the profile's trace-error names (or, for a
// profile the registry does not hold, through the message text), the subject
// through the VM's own bytecode, fast-function and IR names. The runtime
// passes raw numbers; this file and reason.cpp own the reasonId grammar.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ljcheck/profile.h"
#include "ljcheck/reason.h"

namespace ljcheck {

// The subject of a raw event when it is not a VM number.
inline constexpr int kNoSubject = -1;
inline constexpr int kPlainCFunction = -2;  // a lua_CFunction without ffid

// The running VM's own name tables (jit.vmdef), by VM number.
struct VmNameTables {
  const std::vector<std::string>& bytecodes;
  const std::vector<std::string>& fastFunctions;
  const std::vector<std::string>& irOps;
};

struct RawAbort {
  int code = -1;             // the VM's trace-error number; -1: the error was a Lua value
  int subject = kNoSubject;  // the message's argument: an opcode, an ffid, an IR op
  std::string message;       // the message format from the VM's list, e.g. "NYI: bytecode %d" (may be empty)
  std::string errorText;     // the Lua error as text, when code is -1
};

struct ResolvedAbort {
  ReasonId reasonId;
  std::string vmText;  // the message as the VM shows it, its argument filled in
};

ResolvedAbort resolveAbort(const RecorderProfile& profile, const RawAbort& abort, const VmNameTables& names);
// STITCH:<name> or RETURN:<name> for a call to the builtin with this ffid
// (kPlainCFunction: STITCH:C), and the VM-style text "stitch at <name>".
ResolvedAbort resolveSplit(SplitKind kind, int ffid, const VmNameTables& names);

// TREDEF name for the code, by the profile's list (or the message text when
// the profile is not supported or the code is out of range); "RECERR" for a
// non-numeric error, "TRACEERR<n>" when nothing names it.
std::string traceErrorName(const RecorderProfile& profile, int code, std::string_view message);
// TREDEF name whose message equals the text, across the builtin profiles.
std::string traceErrorNameByMessage(std::string_view message);

}  // namespace ljcheck
