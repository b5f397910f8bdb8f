// Zones: named regions a program opens with ljcheck.zone(name) and closes with
// ljcheck.zone(). One zone stack per VM, in memory the FFI writes directly, so
// a push and a pop inside a compiled loop are a table lookup and plain stores
// the JIT compiles into the loop's trace (no Lua-to-C call, which would
// stitch it). Samples and aborts read the path open at the time; zones opened
// with LuaJIT's own jit.zone count too.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "exit_release.h"

struct lua_State;

namespace ljcheck {

// The part the FFI sees; its layout is spelled again in zones.cpp's Lua chunk.
struct ZoneStackData {
  static constexpr int kMaxDepth = 32;  // deeper zones count, but are not named
  std::int32_t depth = 0;
  std::int32_t ids[kMaxDepth] = {};     // 1-based ids of zone names
};

// One VM's zone stack and the names its ids stand for; its names are freed
// at process exit when the VM was not closed (exit_release.h).
class ZoneStack final : public ReleasedAtExit {
 public:
  ZoneStack();
  ZoneStackData data;
  void releaseAtExit() noexcept override;
  const std::uint32_t vmId;  // the VM's id in recorder events

  // The id of a zone name (1-based), registered on first sight.
  int intern(std::string_view name);
  // The recorder label of zone id (0 when unknown); the VM's own thread only.
  std::uint32_t labelOf(int id) const;
  // "frame/render": the open zones, outermost first; "" when none.
  std::string path() const;

 private:
  mutable std::mutex mutex_;  // a name may be registered while another thread's sample reads
  std::vector<std::string> names_;
  std::vector<std::uint32_t> labels_;  // recorder label of each name
};

// The VM's zone stack, created on first use and kept in the registry for the
// VM's life. Never null.
ZoneStack& zoneStackOf(lua_State* L);
// The VM's zone stack if it has one yet, else null; never allocates (safe
// inside the VM's trace events).
ZoneStack* findZoneStack(lua_State* L);
// The zone path open now in L's VM: jit.zone's zones (outermost), then ljcheck's.
std::string currentZonePath(lua_State* L);
// Where a VM event handler finds the zones without a registry lookup or a
// name hashed per event: the VM's zone stack, and the stack or upvalue
// indices of package.loaded and of the string "jit.zone".
struct ZoneSources {
  const ZoneStack* zones = nullptr;
  int loadedIndex = 0;
  int jitZoneKeyIndex = 0;
};
// currentZonePath read through `from`; "" without allocating when no zone is open.
std::string currentZonePath(lua_State* L, const ZoneSources& from);
// currentZonePath with jit.zone's table (or nil, when not loaded) on top of
// L's stack, which it pops; "" without allocating when no zone is open.
std::string currentZonePathPopping(lua_State* L, const ZoneStack& zones);
// Pushes ljcheck.zone: a vararg Lua function over the FFI, or a C function
// with the same behaviour when the VM has no FFI (that one stitches).
void pushZoneFunction(lua_State* L);

}  // namespace ljcheck
