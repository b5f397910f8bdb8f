// The Lua binding of the timeline (see lua_timeline_binding.h). The session
// owns the process-wide capture: one timeline at a time in the process,
// whichever VM started it; events of every VM and thread go into it.
#include "lua_timeline_binding.h"

#include <new>
#include <stdexcept>

#include "ljcheck/timeline.h"
#include "ljcheck/trace_report.h"
#include "lua_api.h"
#include "lua_binding.h"
#include "ljcheck/trace_exit_hook.h"

namespace ljcheck {
namespace {

using binding::givenType;

constexpr const char* kTimelineType = "ljcheck.TimelineSession";

struct TimelineSlot {
  TimelineCapture* capture = nullptr;
  LiveProfile* profile = nullptr;
  std::string root;
  TraceExitHook exits;  // in the VM that started the timeline, while it runs
};

struct TimelineOptions {
  std::size_t chunks = TimelineCapture::kDefaultChunks;
  std::string root;
  bool exits = true;  // record trace exits (a texit handler: a Lua call per exit)
};

TimelineOptions readTimelineOptions(lua_State* L, int idx) {
  TimelineOptions options;
  if (lua_isnoneornil(L, idx)) return options;
  if (!lua_istable(L, idx))
    throw std::runtime_error("ljcheck.timeline: options must be a table, got " + givenType(L, idx));
  for (lua_pushnil(L); lua_next(L, idx); lua_pop(L, 1)) {
    std::string key(lua::stringAt(L, -2));
    if (key == "chunks") {
      lua_Number n = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
      if (!(n >= 1 && n <= 65536) || n != static_cast<lua_Number>(static_cast<long>(n)))
        throw std::runtime_error("ljcheck.timeline: option 'chunks' must be a whole number from 1 to 65536, got " +
                                 (lua_type(L, -1) == LUA_TNUMBER ? std::string(lua_tostring(L, -1)) : givenType(L, -1)));
      options.chunks = static_cast<std::size_t>(n);
    } else if (key == "exits") {
      if (lua_type(L, -1) != LUA_TBOOLEAN)
        throw std::runtime_error("ljcheck.timeline: option 'exits' must be a boolean, got " + givenType(L, -1));
      options.exits = lua_toboolean(L, -1) != 0;
    } else if (key == "root") {
      options.root = binding::rootOption(L, "ljcheck.timeline");
    } else {
      throw std::runtime_error("ljcheck.timeline: unknown option '" + (key.empty() ? std::string("?") : key) + "'");
    }
  }
  return options;
}

void release(lua_State* L, TimelineSlot& slot) {
  slot.exits.detach(L);
  delete slot.capture;  // ends the capture if it still runs
  slot.capture = nullptr;
  delete slot.profile;
  slot.profile = nullptr;
}

int timeline(lua_State* L) {
  TimelineOptions options = readTimelineOptions(L, 1);
  LiveProfile profile = readLiveProfile(L);
  auto* slot = new (lua_newuserdata(L, sizeof(TimelineSlot))) TimelineSlot();
  luaL_getmetatable(L, kTimelineType);
  lua_setmetatable(L, -2);
  slot->root = options.root;
  slot->profile = new LiveProfile(std::move(profile));
  slot->capture = TimelineCapture::start(options.chunks).release();
  if (options.exits) slot->exits.attach(L);
  return 1;
}

int stopTimeline(lua_State* L) {
  auto& slot = *static_cast<TimelineSlot*>(binding::selfArgument(L, kTimelineType, "timeline", "stop"));
  if (!slot.capture || slot.capture->finished()) throw TimelineError("timeline session already stopped");
  std::string filename = binding::filenameArgument(L, 2, "timeline:stop(filename)");
  slot.exits.detach(L);
  std::string json = toChromeTraceJson(slot.capture->finish(), timelineNaming(*slot.profile, slot.root));
  release(L, slot);
  if (!filename.empty()) writeReportFile(filename, json);
  lua_pushlstring(L, json.data(), json.size());
  return 1;
}

// tostring(timeline): its type and whether it still records, as a trace
// session shows itself.
int timelineToString(lua_State* L) {
  const auto& slot = *static_cast<const TimelineSlot*>(luaL_checkudata(L, 1, kTimelineType));
  lua_pushfstring(L, "%s (%s)", kTimelineType,
                  slot.capture && !slot.capture->finished() ? "running" : "stopped");
  return 1;
}

int timelineGc(lua_State* L) {
  auto& slot = *static_cast<TimelineSlot*>(luaL_checkudata(L, 1, kTimelineType));
  release(L, slot);
  slot.~TimelineSlot();
  return 0;
}

int nameThreadFn(lua_State* L) {
  if (lua_type(L, 1) != LUA_TSTRING)
    throw std::runtime_error("ljcheck.nameThread(name): name must be a string, got " + givenType(L, 1));
  nameThread(lua::stringAt(L, 1));
  return 0;
}

int nameVmFn(lua_State* L) {
  if (lua_type(L, 1) != LUA_TSTRING)
    throw std::runtime_error("ljcheck.nameVm(name): name must be a string, got " + givenType(L, 1));
  nameVm(vmIdOf(L), lua::stringAt(L, 1));
  return 0;
}

}  // namespace

void addTimelineFunctions(lua_State* L) {
  if (luaL_newmetatable(L, kTimelineType)) {
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, binding::guarded<stopTimeline>);
    lua_setfield(L, -2, "stop");
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, timelineGc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, timelineToString);
    lua_setfield(L, -2, "__tostring");
  }
  lua_pop(L, 1);
  lua_pushcfunction(L, binding::guarded<timeline>);
  lua_setfield(L, -2, "timeline");
  lua_pushcfunction(L, binding::guarded<nameThreadFn>);
  lua_setfield(L, -2, "nameThread");
  lua_pushcfunction(L, binding::guarded<nameVmFn>);
  lua_setfield(L, -2, "nameVm");
}

}  // namespace ljcheck
