// The recorder profile of the VM the collector runs in, read from its own
// jit.vmdef, jit.version/arch/os and jit.status(), matched against the
// registry. Names of bytecodes, fast functions and IR ops come from here, so
// the runtime never spells a LuaJIT number.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ljcheck/profile.h"

struct lua_State;

namespace ljcheck {

struct LiveProfile {
  ProfileFacts facts;                 // as read from the VM
  std::vector<std::string> irNames;   // jit.vmdef.irnames, for NYIIR
  std::string id;    // the registry id, or "external:<computed id>"
  std::string name;  // the registry's short name, or "external"
  bool supported = false;
  const RecorderProfile* registered = nullptr;  // the registry's entry when supported

  // The profile to map abort codes with: the registry's one, or an empty
  // unsupported one (codes then map by message text).
  const RecorderProfile& mappingProfile() const;
  // Names by VM number; "" when out of range.
  std::string fastFunctionName(int ffid) const;
  std::string traceErrorMessage(int code) const;
};

// Reads the live VM's facts (requires jit.vmdef). Throws std::runtime_error.
LiveProfile readLiveProfile(lua_State* L);
// The same facts for a given profile id lookup (no VM): fills id, name,
// supported and registered from facts.
void matchRegistry(LiveProfile& profile);

}  // namespace ljcheck
