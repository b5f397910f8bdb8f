// jit.profile.start and stop while a sample session runs (see profile_guard.h).
#include "profile_guard.h"

#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "lua_api.h"  // the Lua C API

namespace ljcheck {
namespace {

// registry[kGuardKey] while the guard is in place: {module = the jit.profile
// table, start = its start, stop = its stop}.
constexpr const char* kGuardKey = "ljcheck.profileguard";

// Whether a chunk is one of LuaJIT's own jit.* modules (jit/p.lua calls
// jit.profile.start for `-jp` and require("jit.p").start).
bool luajitLibrary(std::string_view source) {
  const std::size_t slash = source.rfind("/jit/");
  const bool inJit = slash != std::string_view::npos || source.rfind("@jit/", 0) == 0;
  return inJit && source.size() > 4 && source.substr(source.size() - 4) == ".lua";
}

// "app.lua:12", where the program's code that called the guard stands: the
// first caller outside LuaJIT's jit.* modules.
std::string callerLocation(lua_State* L) {
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); ++level) {
    if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0) continue;
    if (ar.source && luajitLibrary(ar.source)) continue;
    return std::string(ar.short_src) + ":" + std::to_string(ar.currentline);
  }
  return "the program";
}

// jit.profile.start while the session samples: ignored, said once.
int ignoredStart(lua_State* L) {
  if (lua_toboolean(L, lua_upvalueindex(1))) return 0;
  lua_pushboolean(L, 1);
  lua_replace(L, lua_upvalueindex(1));
  std::string where = callerLocation(L);
  std::fprintf(stderr,
               "ljcheck: %s: jit.profile.start is ignored while ljcheck samples this run: LuaJIT has one "
               "profiler (stop the sample session first; under ljcheck run, --no-sampling leaves it to the "
               "program)\n",
               where.c_str());
  return 0;
}

// jit.profile.stop while the session samples: the session's profiler goes on.
int ignoredStop(lua_State*) { return 0; }

// Pushes the jit.profile table, or nothing and false when it cannot be loaded.
bool pushProfileModule(lua_State* L) {
  const int top = lua_gettop(L);
  try {
    lua::pushRequired(L, "jit.profile");
    if (lua_istable(L, -1)) return true;
  } catch (const std::exception&) {  // a build without the profiler: nothing to guard
  }
  lua_settop(L, top);
  return false;
}

}  // namespace

void guardProfile(lua_State* L) noexcept {
  const int top = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, kGuardKey);
  bool guarded = lua_istable(L, -1);
  lua_settop(L, top);
  if (guarded || !pushProfileModule(L)) return;
  const int module = lua_gettop(L);
  lua_createtable(L, 0, 3);
  lua_pushvalue(L, module);
  lua_setfield(L, -2, "module");
  lua_getfield(L, module, "start");
  lua_setfield(L, -2, "start");
  lua_getfield(L, module, "stop");
  lua_setfield(L, -2, "stop");
  lua_setfield(L, LUA_REGISTRYINDEX, kGuardKey);
  lua_pushboolean(L, 0);  // warned yet
  lua_pushcclosure(L, ignoredStart, 1);
  lua_setfield(L, module, "start");
  lua_pushcfunction(L, ignoredStop);
  lua_setfield(L, module, "stop");
  lua_settop(L, top);
}

void unguardProfile(lua_State* L) noexcept {
  const int top = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, kGuardKey);
  if (lua_istable(L, -1)) {
    const int guard = lua_gettop(L);
    lua_getfield(L, guard, "module");
    const int module = lua_gettop(L);
    // Only what is still ours: the program may have put its own there since.
    lua_getfield(L, module, "start");
    if (lua_tocfunction(L, -1) == ignoredStart) {
      lua_getfield(L, guard, "start");
      lua_setfield(L, module, "start");
    }
    lua_getfield(L, module, "stop");
    if (lua_tocfunction(L, -1) == ignoredStop) {
      lua_getfield(L, guard, "stop");
      lua_setfield(L, module, "stop");
    }
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, kGuardKey);
  }
  lua_settop(L, top);
}

}  // namespace ljcheck
