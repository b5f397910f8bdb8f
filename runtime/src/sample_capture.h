// The capture of one sample session, filled by the profiler callback inside
// the VM (sampler.cpp) and read once at stop (sample_session.cpp). Samples are
// aggregated as they come: by (zone, stack) and by (zone, innermost Lua line
// and its function),
// so memory grows with distinct stacks, not with run time, and is bounded:
// past kMaxSampledStacks distinct stacks (or lines), a new one is counted in
// one overflow stack (and in no line), so the totals stay exact. A level's
// frame is found through the call-site cache (call_site_cache.h), so a sample
// asks LuaJIT for names only at call sites it has not seen.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "call_site_cache.h"
#include "ljcheck/sample_report.h"
#include "trace_event.h"

struct lua_State;

namespace ljcheck {

class ZoneStack;

// One stack frame as lua_getinfo saw it.
struct SampledFrame {
  StringId source = 0;  // chunk name; 0 for a C function
  int lineDefined = 0;  // 0: a main chunk
  StringId name = 0;    // the name the caller used, when known
  bool isC = false;
  bool overflow = false;  // stands for the stacks past kMaxSampledStacks
  auto key() const { return std::tie(source, lineDefined, name, isC, overflow); }
  bool operator<(const SampledFrame& o) const { return key() < o.key(); }
};

// Bound on SampleCapture::stacks and on SampleCapture::lines.
inline constexpr std::size_t kMaxSampledStacks = 10000;

class SampleCapture {
 public:
  explicit SampleCapture(int stackDepth)
      : stackDepth_(stackDepth), walk_(static_cast<std::size_t>(stackDepth) + 1) {}

  bool paused = false;
  // Every sample recorded while not paused, before any zone filter: with the
  // CPU time the session ran, what one sample stands for.
  std::uint64_t taken = 0;
  StringPool strings;
  std::vector<SampledFrame> frames;  // by FrameId
  // (zone, frames innermost first) -> counts by VM state.
  std::map<std::pair<StringId, std::vector<FrameId>>, StateCounts> stacks;
  // (zone, chunk, its function's first line, line) of the innermost Lua
  // frame -> counts by VM state.
  using LineKey = std::tuple<StringId, StringId, int, int>;
  std::map<LineKey, StateCounts> lines;
  // (zone, frames innermost first, each with its current line) -> the
  // interpreted and C-code samples taken there (a C function's samples are
  // taken once it returned: its caller's frames); past the bound a new one
  // is not kept.
  using CallsKey = std::pair<StringId, std::vector<std::pair<FrameId, int>>>;
  struct CallCounts {
    std::uint64_t interpreted = 0, cCode = 0;
  };
  std::map<CallsKey, CallCounts> offTraceCalls;

  // The profiler callback's work: one call for `samples` samples in `state`.
  void record(lua_State* L, int samples, VmState state);
  // Find the zones without a lookup by name per sample: the VM's zone stack
  // and registry references to package.loaded and "jit.zone". Session start
  // and stop, on the VM's thread.
  void referenceZones(lua_State* L);
  void releaseZones(lua_State* L);
  // Lets the functions the call-site cache kept alive go. Session stop.
  void releaseFunctions(lua_State* L);

 private:
  FrameId frameId(const SampledFrame& frame);
  // The frame at `level` by its chunk, first line and name ("Sn"), cached for site.
  FrameId resolveFrame(lua_State* L, int level, const CallSite& site);

  // The counts of (zone, scratch_) and of one line, found or added; a line
  // past the bound has none.
  StateCounts& stackCounts(StringId zone);
  StateCounts* lineCounts(const LineKey& at);
  // Counts an interpreted or C-code sample's frames with their lines (scratch_ and walk_).
  void countOffTrace(StringId zone, std::uint64_t count, VmState state);
  // The zone path open now, as a pool id.
  StringId zoneNow(lua_State* L);
  // Pushes package.loaded["jit.zone"], remembered once it is a table.
  void pushJitZone(lua_State* L);

  int stackDepth_;
  const ZoneStack* zones_ = nullptr;  // null: look the zones up by name
  int loadedRef_ = 0;
  int jitZoneKeyRef_ = 0;
  int jitZoneRef_ = 0;  // jit.zone's table once the program loaded it; 0: not yet
  std::map<SampledFrame, FrameId> frameIds_;
  std::vector<FrameId> scratch_;
  // The entries the last sample counted in (map entries never move).
  std::pair<const std::pair<StringId, std::vector<FrameId>>, StateCounts>* lastStack_ = nullptr;
  std::pair<const LineKey, StateCounts>* lastLine_ = nullptr;
  std::pair<const CallsKey, CallCounts>* lastCalls_ = nullptr;
  CallsKey callsScratch_;
  struct LevelSeen {
    const void* function = nullptr;
    int line = -1;
  };
  std::vector<LevelSeen> walk_;  // this sample's levels, innermost first
  CallSiteCache callSites_;
};

// LuaJIT's profiler C API, resolved in the host process (dlsym), so the
// module works in a host whose VM is linked statically.
struct ProfilerApi {
  using Callback = void (*)(void* data, lua_State* L, int samples, int vmstate);
  void (*start)(lua_State* L, const char* mode, Callback cb, void* data) = nullptr;
  void (*stop)(lua_State* L) = nullptr;
};
// The host's profiler; throws SessionError when the host exports none.
const ProfilerApi& hostProfiler();
// The callback to hand luaJIT_profile_start with a SampleCapture as data.
void onProfilerSample(void* data, lua_State* L, int samples, int vmstate);

}  // namespace ljcheck
