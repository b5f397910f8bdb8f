// Attaching C handlers to the VM's events with jit.attach, chained to the
// handler each replaces (see vmevent_attach.h).
#include "vmevent_attach.h"

#include "ljcheck/trace_session.h"
#include "lua_api.h"

namespace ljcheck {
namespace {

// Calls jit.attach with the function at fnIndex and, when given, the event name.
void callJitAttach(lua_State* L, int fnIndex, const char* event) {
  lua::pushRequired(L, "jit");
  lua_getfield(L, -1, "attach");
  lua_remove(L, -2);
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 1);
    throw SessionError("jit.attach is missing: this VM has no trace events");
  }
  lua_pushvalue(L, fnIndex);
  if (event) lua_pushstring(L, event);
  std::string error = lua::protectedCall(L, event ? 2 : 1, 0);
  if (!error.empty()) throw SessionError("jit.attach: " + error);
}

// A copy of the VM's event handler table (registry._VMEVENTS, where
// jit.attach keeps one handler per event), pushed; an empty table when none.
void pushEventHandlersCopy(lua_State* L) {
  lua_newtable(L);
  lua_getfield(L, LUA_REGISTRYINDEX, "_VMEVENTS");
  if (lua_istable(L, -1))
    for (lua_pushnil(L); lua_next(L, -2);) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, -5);
    }
  lua_pop(L, 1);
}

// After jit.attach(handler): the function handler replaced, found as the old
// value of the slot that now holds handler; pushed, or nil. This reads which
// slot changed instead of recomputing LuaJIT's event hash.
void pushReplacedHandler(lua_State* L, int handlerIdx, int beforeIdx) {
  lua_getfield(L, LUA_REGISTRYINDEX, "_VMEVENTS");
  if (lua_istable(L, -1))
    for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
      if (!lua_rawequal(L, -1, handlerIdx)) continue;
      lua_pushvalue(L, -2);
      lua_rawget(L, beforeIdx);
      if (lua_isfunction(L, -1) && !lua_rawequal(L, -1, handlerIdx)) {
        lua_replace(L, -4);
        lua_pop(L, 2);
        return;
      }
      lua_pop(L, 1);
    }
  lua_pop(L, 1);
  lua_pushnil(L);
}

}  // namespace

void attachHandler(lua_State* L, const char* event, int& ref, int chainUpvalue, int& chainedRef) {
  int handlerIdx = lua_gettop(L);
  lua_pushvalue(L, handlerIdx);
  ref = luaL_ref(L, LUA_REGISTRYINDEX);
  pushEventHandlersCopy(L);
  int beforeIdx = lua_gettop(L);
  callJitAttach(L, handlerIdx, event);
  pushReplacedHandler(L, handlerIdx, beforeIdx);
  if (lua_isfunction(L, -1)) {
    lua_pushvalue(L, -1);
    chainedRef = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_setupvalue(L, handlerIdx, chainUpvalue);
  } else {
    lua_pop(L, 1);
  }
  lua_settop(L, handlerIdx - 1);
}

namespace {
// Takes the function ref holds out of the registry and passes it to
// jit.attach with event (nullptr detaches it).
void releaseAndAttach(lua_State* L, int& ref, const char* event) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
  luaL_unref(L, LUA_REGISTRYINDEX, ref);
  ref = LUA_NOREF;
  callJitAttach(L, lua_gettop(L), event);
  lua_pop(L, 1);
}
}  // namespace

void detachHandler(lua_State* L, int& ref, const char* event, int& chainedRef) {
  if (ref == LUA_NOREF) return;
  releaseAndAttach(L, ref, nullptr);
  if (chainedRef != LUA_NOREF) releaseAndAttach(L, chainedRef, event);
}

}  // namespace ljcheck
