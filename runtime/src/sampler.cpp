// The profiler callback and LuaJIT's profiler API as the host exports it.
// LuaJIT calls the callback at a safe point after its timer fired (not in a
// signal handler), with the VM state the timer saw and the number of ticks
// since the last callback; the stack is walked there with lua_getstack and
// lua_getinfo, which are safe inside the profiler hook.
#include <dlfcn.h>

#include <exception>
#include <stdexcept>

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
    throw SessionError(
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
  // Each level's function and current line ("fl": no name, no chunk), one
  // level past the depth for the last frame's call site.
  int levels = 0;
  lua_Debug ar;
  for (; levels <= stackDepth_ && lua_getstack(L, levels, &ar); ++levels) {
    if (!lua_getinfo(L, "fl", &ar)) break;
    walk_[static_cast<std::size_t>(levels)] = {lua_topointer(L, -1), ar.currentline};
    lua_pop(L, 1);
  }
  scratch_.clear();
  StringId lineSource = 0;
  int line = -1, functionLine = 0;
  for (int level = 0; level < levels && level < stackDepth_; ++level) {
    const LevelSeen& seen = walk_[static_cast<std::size_t>(level)];
    CallSite site{seen.function, nullptr, -1};
    if (level + 1 < levels) {
      site.caller = walk_[static_cast<std::size_t>(level) + 1].function;
      site.callerLine = walk_[static_cast<std::size_t>(level) + 1].line;
    }
    const FrameId* cached = callSites_.find(site);
    FrameId id = cached ? *cached : resolveFrame(L, level, site);
    scratch_.push_back(id);
    // The current line of the innermost Lua frame that has one.
    if (line < 0 && seen.line >= 0 && !frames[id].isC) {
      lineSource = frames[id].source;
      functionLine = frames[id].lineDefined;
      line = seen.line;
    }
  }
  StringId zone = zoneNow(L);
  auto count = static_cast<std::uint64_t>(samples > 0 ? samples : 1);
  taken += count;
  if (state == VmState::Interpreted || state == VmState::CCode) countOffTrace(zone, count, state);
  stackCounts(zone)[state] += count;
  if (line < 0) return;
  if (StateCounts* counts = lineCounts({zone, lineSource, functionLine, line})) (*counts)[state] += count;
}

StateCounts& SampleCapture::stackCounts(StringId zone) {
  // A hot loop gives the same stack many samples in a row: no lookup then.
  if (lastStack_ && lastStack_->first.first == zone && lastStack_->first.second == scratch_)
    return lastStack_->second;
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
  lastStack_ = &*stack;
  return stack->second;
}

void SampleCapture::countOffTrace(StringId zone, std::uint64_t count, VmState state) {
  callsScratch_.first = zone;
  callsScratch_.second.clear();
  for (std::size_t level = 0; level < scratch_.size(); ++level)
    callsScratch_.second.emplace_back(scratch_[level], walk_[level].line);
  if (!lastCalls_ || lastCalls_->first != callsScratch_) {
    auto counted = offTraceCalls.find(callsScratch_);
    if (counted == offTraceCalls.end()) {
      if (offTraceCalls.size() >= kMaxSampledStacks) return;
      counted = offTraceCalls.try_emplace(callsScratch_).first;
    }
    lastCalls_ = &*counted;
  }
  (state == VmState::CCode ? lastCalls_->second.cCode : lastCalls_->second.interpreted) += count;
}

StateCounts* SampleCapture::lineCounts(const LineKey& at) {
  if (lastLine_ && lastLine_->first == at) return &lastLine_->second;
  auto counted = lines.find(at);
  if (counted == lines.end()) {
    if (lines.size() >= kMaxSampledStacks) return nullptr;
    counted = lines.try_emplace(at).first;
  }
  lastLine_ = &*counted;
  return &counted->second;
}

FrameId SampleCapture::resolveFrame(lua_State* L, int level, const CallSite& site) {
  SampledFrame frame;
  lua_Debug ar;
  if (lua_getstack(L, level, &ar) && lua_getinfo(L, "Sn", &ar)) {
    frame.isC = ar.what && ar.what[0] == 'C';
    if (!frame.isC) {
      frame.source = strings.intern(ar.source ? ar.source : "");
      frame.lineDefined = ar.linedefined;
    }
    if (ar.name) frame.name = strings.intern(ar.name);
  }
  FrameId id = frameId(frame);
  callSites_.add(L, site, level, id);
  return id;
}

StringId SampleCapture::zoneNow(lua_State* L) {
  if (!zones_) return strings.intern(currentZonePath(L));
  if (jitZoneRef_) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, jitZoneRef_);
    if (zones_->data.depth == 0 && lua_objlen(L, -1) == 0) {  // no zone open: the common case
      lua_pop(L, 1);
      return 0;
    }
  } else {
    pushJitZone(L);
  }
  std::string path = currentZonePathPopping(L, *zones_);
  return path.empty() ? 0 : strings.intern(path);
}

void SampleCapture::pushJitZone(lua_State* L) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, loadedRef_);
  lua_rawgeti(L, LUA_REGISTRYINDEX, jitZoneKeyRef_);
  lua_rawget(L, -2);
  lua_remove(L, -2);
  if (!lua_istable(L, -1)) return;
  // Loaded: jit.zone keeps its stack in this one table for the VM's life.
  lua_pushvalue(L, -1);
  jitZoneRef_ = luaL_ref(L, LUA_REGISTRYINDEX);
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
  int top = lua_gettop(L);
  pushJitZone(L);
  if (!jitZoneRef_) {
    // Load it now, so that a sample reads one table instead of looking the
    // module up by name; the program's own require returns the same table.
    try {
      lua::pushRequired(L, "jit.zone");
    } catch (const std::runtime_error&) {  // a LuaJIT without jit/zone.lua: looked up per sample
    }
    lua_settop(L, top);
    pushJitZone(L);
  }
  lua_settop(L, top);
}

void SampleCapture::releaseFunctions(lua_State* L) { callSites_.release(L); }

void SampleCapture::releaseZones(lua_State* L) {
  if (!zones_) return;
  zones_ = nullptr;
  luaL_unref(L, LUA_REGISTRYINDEX, loadedRef_);
  luaL_unref(L, LUA_REGISTRYINDEX, jitZoneKeyRef_);
  if (jitZoneRef_) luaL_unref(L, LUA_REGISTRYINDEX, jitZoneRef_);
  jitZoneRef_ = 0;
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
