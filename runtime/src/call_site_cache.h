// Which sampled frame a stack level is, without asking LuaJIT for its name on
// every sample. A frame's identity (chunk, first line, and the name its call
// site gives it) depends only on its function and on that call site; through
// the public API the call site is the calling function and the line it is on,
// both read cheaply with lua_getinfo "fl" per level. "S" and "n" (which
// decodes the caller's bytecode and searches its variable info) are asked once
// per (function, caller, line). The functions in a key are kept alive in a
// registry table while cached, so their addresses cannot be taken by other
// functions; the cache is bounded, and past the bound a new call site is
// resolved on every sample instead (see SampleCapture::record).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

struct lua_State;

namespace ljcheck {

using FrameId = std::uint32_t;

// One call: the called function, the calling function (null for the
// outermost frame) and the caller's current line (-1 when it has none).
struct CallSite {
  const void* function = nullptr;
  const void* caller = nullptr;
  int callerLine = -1;
  bool operator==(const CallSite& o) const {
    return function == o.function && caller == o.caller && callerLine == o.callerLine;
  }
};

// Bound on the cached call sites (and so on the functions kept alive: two per site at most).
inline constexpr std::size_t kMaxCachedCallSites = 4096;

class CallSiteCache {
 public:
  // The frame of a cached call site, or null.
  const FrameId* find(const CallSite& site) const {
    auto it = frames_.find(site);
    return it == frames_.end() ? nullptr : &it->second;
  }
  bool full() const { return frames_.size() >= kMaxCachedCallSites; }
  // Caches site -> frame and keeps the functions at stack levels `level` and
  // `level + 1` (the caller, when there is one) alive. On L's thread, inside
  // the profiler callback or a test.
  void add(lua_State* L, const CallSite& site, int level, FrameId frame);
  // Lets the kept functions go; the cache is empty afterwards.
  void release(lua_State* L);

 private:
  struct Hash {
    std::size_t operator()(const CallSite& s) const {
      auto a = reinterpret_cast<std::uintptr_t>(s.function), b = reinterpret_cast<std::uintptr_t>(s.caller);
      return static_cast<std::size_t>((a >> 4) * 0x9E3779B97F4A7C15ull ^ (b >> 4) * 0xC2B2AE3D27D4EB4Full ^
                                      static_cast<std::uint64_t>(static_cast<std::uint32_t>(s.callerLine)));
    }
  };
  // Keeps the function at `level` (whose address is `function`) alive.
  void keepAlive(lua_State* L, int level, const void* function);

  std::unordered_map<CallSite, FrameId, Hash> frames_;
  std::unordered_set<const void*> kept_;  // the functions kept alive
  int keptRef_ = 0;  // registry reference of the table holding the cached functions; 0: none yet
};

}  // namespace ljcheck
