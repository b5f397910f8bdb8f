// The profiler callback and LuaJIT's profiler API as the host exports it.
// LuaJIT calls the callback at a safe point after its timer fired (not in a
// signal handler), with the VM state the timer saw and the number of ticks
// since the last callback; the stack is walked there with lua_getstack and
// lua_getinfo, which are safe inside the profiler hook.
#include <dlfcn.h>

#include <exception>

#include "exit_release.h"
#include "ljcheck/trace_session.h"
#include "lua_api.h"
#include "sample_capture.h"
#include "timeline_hooks.h"
#include "zones.h"

namespace ljcheck {

const ProfilerApi& hostProfiler() {
  static const ProfilerApi api = [] {
    ProfilerApi found;
    found.start = reinterpret_cast<decltype(found.start)>(dlsym(RTLD_DEFAULT, "luaJIT_profile_start"));
    found.stop = reinterpret_cast<decltype(found.stop)>(dlsym(RTLD_DEFAULT, "luaJIT_profile_stop"));
    return found;
  }();
  if (!api.start || !api.stop)
    throw TraceSessionError(
        "this LuaJIT host exports no luaJIT_profile_start/luaJIT_profile_stop: sampling needs "
        "LuaJIT 2.1's profiler");
  return api;
}

FrameId SampleCapture::frameId(const SampledFrame& frame) {
  auto [it, fresh] = frameIds_.try_emplace(frame, static_cast<FrameId>(frames.size()));
  if (fresh) frames.push_back(frame);
  return it->second;
}

void SampleCapture::record(lua_State* L, int samples, VmState state) {
  scratch_.clear();
  StringId lineSource = 0;
  int line = -1;
  lua_Debug ar;
  for (int level = 0; level < stackDepth_ && lua_getstack(L, level, &ar); ++level) {
    // The current line only until the innermost Lua frame gave one.
    if (!lua_getinfo(L, line < 0 ? "Sln" : "Sn", &ar)) break;
    SampledFrame frame;
    frame.isC = ar.what && ar.what[0] == 'C';
    if (!frame.isC) {
      frame.source = strings.intern(ar.source ? ar.source : "");
      frame.lineDefined = ar.linedefined;
      if (line < 0 && ar.currentline >= 0) {
        lineSource = frame.source;
        line = ar.currentline;
      }
    }
    if (ar.name) frame.name = strings.intern(ar.name);
    scratch_.push_back(frameId(frame));
  }
  StringId zone = zoneNow(L);
  auto count = static_cast<std::uint64_t>(samples > 0 ? samples : 1);
  std::pair<StringId, std::vector<FrameId>> key{zone, {}};
  key.second.swap(scratch_);  // no copy: the scratch is cleared at the next sample anyway
  auto stack = stacks.find(key);
  if (stack == stacks.end()) {
    if (stacks.size() >= kMaxSampledStacks) {
      SampledFrame past;
      past.overflow = true;
      key = {zone, {frameId(past)}};
    }
    stack = stacks.try_emplace(std::move(key)).first;
  } else {
    scratch_.swap(key.second);  // keep the scratch's capacity
  }
  stack->second[state] += count;
  if (line < 0) return;
  std::tuple<StringId, StringId, int> at{zone, lineSource, line};
  auto counted = lines.find(at);
  if (counted == lines.end() && lines.size() < kMaxSampledStacks) counted = lines.try_emplace(at).first;
  if (counted != lines.end()) counted->second[state] += count;
}

StringId SampleCapture::zoneNow(lua_State* L) {
  if (!zones_) return strings.intern(currentZonePath(L));
  lua_rawgeti(L, LUA_REGISTRYINDEX, loadedRef_);
  lua_rawgeti(L, LUA_REGISTRYINDEX, jitZoneKeyRef_);
  int top = lua_gettop(L);
  std::string path = currentZonePath(L, {zones_, top - 1, top});
  lua_pop(L, 2);
  return path.empty() ? 0 : strings.intern(path);
}

void SampleCapture::referenceZones(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  if (!lua_istable(L, -1)) {  // no package.loaded as LuaJIT keeps it: look up by name
    lua_pop(L, 1);
    return;
  }
  loadedRef_ = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pushliteral(L, "jit.zone");
  jitZoneKeyRef_ = luaL_ref(L, LUA_REGISTRYINDEX);
  zones_ = &zoneStackOf(L);
}

void SampleCapture::releaseZones(lua_State* L) {
  if (!zones_) return;
  zones_ = nullptr;
  luaL_unref(L, LUA_REGISTRYINDEX, loadedRef_);
  luaL_unref(L, LUA_REGISTRYINDEX, jitZoneKeyRef_);
}

void onProfilerSample(void* data, lua_State* L, int samples, int vmstate) {
  if (processExiting()) return;  // the capture was released at exit
  auto* capture = static_cast<SampleCapture*>(data);
  if (capture->paused) return;
  int top = lua_gettop(L);
  try {
    capture->record(L, samples, vmStateFromLetter(vmstate));
    recordSample(L, vmstate);
  } catch (const std::exception&) {
    // Out of memory while recording a sample: the sample is lost, the VM goes on.
  }
  lua_settop(L, top);
}

}  // namespace ljcheck
