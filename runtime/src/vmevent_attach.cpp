// Attaching C handlers to the VM's events with jit.attach, chained to the
// handler each replaces, and guarding jit.attach while they are attached
// (see vmevent_attach.h).
#include "vmevent_attach.h"

#include "ljcheck/trace_session.h"
#include "lua_api.h"

namespace ljcheck {
namespace {

// The guard's state in the registry while a handler of ours is attached:
// {original = jit.attach as it was, handlers = {event = our handler},
// chains = {event = that handler's chain upvalue}}.
constexpr const char* kGuardKey = "ljcheck.jitattach";

// jit.attach in place while our handlers are attached. A function attached
// to an event one of them holds (jit.v's, jit.dump's, a program's own) runs
// behind it, as its chained handler, instead of taking its place; detaching
// a function takes it out of any chain. Everything else, and every call
// whose arguments the VM's jit.attach would refuse, goes to that function.
int guardedAttach(lua_State* L) {
  const int guard = lua_upvalueindex(1);
  if (lua_isfunction(L, 1) && (lua_type(L, 2) == LUA_TSTRING || lua_isnoneornil(L, 2))) {
    const int top = lua_gettop(L);
    lua_getfield(L, guard, "handlers");
    lua_getfield(L, guard, "chains");
    const int handlers = top + 1, chains = top + 2;
    if (lua_type(L, 2) == LUA_TSTRING) {
      lua_pushvalue(L, 2);
      lua_rawget(L, handlers);
      lua_pushvalue(L, 2);
      lua_rawget(L, chains);
      if (lua_isfunction(L, -2) && !lua_rawequal(L, -2, 1) && lua_isnumber(L, -1)) {
        const int chain = static_cast<int>(lua_tointeger(L, -1));
        lua_pushvalue(L, 1);
        lua_setupvalue(L, -3, chain);
        lua_settop(L, top);
        return 0;
      }
    } else {
      for (lua_pushnil(L); lua_next(L, handlers); lua_pop(L, 1)) {
        lua_pushvalue(L, -2);
        lua_rawget(L, chains);
        const int chain = static_cast<int>(lua_tointeger(L, -1));
        lua_pop(L, 1);
        if (lua_getupvalue(L, -1, chain) == nullptr) continue;
        const bool chained = lua_rawequal(L, -1, 1);
        lua_pop(L, 1);
        if (!chained) continue;
        lua_pushnil(L);
        lua_setupvalue(L, -2, chain);
      }
    }
    lua_settop(L, top);
  }
  lua_getfield(L, guard, "original");
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// Pushes the function jit.attach named before the guard went in.
void pushJitAttach(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, kGuardKey);
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "original");
    lua_remove(L, -2);
    return;
  }
  lua_pop(L, 1);
  lua::pushRequired(L, "jit");
  lua_getfield(L, -1, "attach");
  lua_remove(L, -2);
}

// Notes the handler at handlerIdx as ours for event, and puts the guard in
// place of jit.attach when it is not there yet.
void guardEvent(lua_State* L, const char* event, int handlerIdx, int chainUpvalue) {
  lua_getfield(L, LUA_REGISTRYINDEX, kGuardKey);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    lua::pushRequired(L, "jit");
    lua_createtable(L, 0, 3);
    lua_getfield(L, -2, "attach");
    lua_setfield(L, -2, "original");
    lua_newtable(L);
    lua_setfield(L, -2, "handlers");
    lua_newtable(L);
    lua_setfield(L, -2, "chains");
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, kGuardKey);
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, guardedAttach, 1);
    lua_setfield(L, -3, "attach");
    lua_remove(L, -2);  // jit
  }
  lua_getfield(L, -1, "handlers");
  lua_pushvalue(L, handlerIdx);
  lua_setfield(L, -2, event);
  lua_getfield(L, -2, "chains");
  lua_pushinteger(L, chainUpvalue);
  lua_setfield(L, -2, event);
  lua_pop(L, 3);
}

// Pushes the function that runs behind our handler for event now (the one
// it replaced, or one attached since), or nil; then takes event out of the
// guard, and gives jit.attach back when no event is left in it.
void pushChainedAndUnguard(lua_State* L, const char* event) {
  lua_pushnil(L);
  const int chained = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, kGuardKey);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  const int guard = lua_gettop(L);
  lua_getfield(L, guard, "handlers");
  lua_getfield(L, guard, "chains");
  lua_getfield(L, -2, event);
  lua_getfield(L, -2, event);
  if (lua_isfunction(L, -2) && lua_isnumber(L, -1) &&
      lua_getupvalue(L, -2, static_cast<int>(lua_tointeger(L, -1))) != nullptr)
    lua_replace(L, chained);
  lua_settop(L, guard + 1);  // handlers
  lua_pushnil(L);
  lua_setfield(L, -2, event);
  lua_pushnil(L);
  const bool empty = lua_next(L, -2) == 0;
  lua_settop(L, guard);
  if (empty) {
    lua::pushRequired(L, "jit");
    lua_getfield(L, -1, "attach");
    const bool ours = lua_tocfunction(L, -1) == guardedAttach;
    lua_pop(L, 1);
    if (ours) {
      lua_getfield(L, guard, "original");
      lua_setfield(L, -2, "attach");
    }
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, kGuardKey);
  }
  lua_settop(L, chained);
}

// Calls jit.attach (as it was before the guard) with the function at
// fnIndex and, when given, the event name.
void callJitAttach(lua_State* L, int fnIndex, const char* event) {
  pushJitAttach(L);
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
  guardEvent(L, event, handlerIdx, chainUpvalue);
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
  const int top = lua_gettop(L);
  pushChainedAndUnguard(L, event);
  const int chained = lua_gettop(L);
  if (!lua_isfunction(L, chained) && chainedRef != LUA_NOREF) {  // no guard: the one it replaced
    lua_rawgeti(L, LUA_REGISTRYINDEX, chainedRef);
    lua_replace(L, chained);
  }
  if (chainedRef != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, chainedRef);
  chainedRef = LUA_NOREF;
  releaseAndAttach(L, ref, nullptr);
  if (lua_isfunction(L, chained)) callJitAttach(L, chained, event);
  lua_settop(L, top);
}

}  // namespace ljcheck
