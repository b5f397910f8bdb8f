// The texit handler of the timeline (see trace_exit_hook.h).
#include "ljcheck/trace_exit_hook.h"

#include <exception>

#include "exit_release.h"
#include "lua_api.h"
#include "timeline_hooks.h"
#include "vmevent_attach.h"

namespace ljcheck {
namespace {

constexpr int kExitChainUv = 1;
static_assert(LUA_NOREF == -2, "trace_exit_hook.h spells LUA_NOREF as -2");

// Arguments: trace number, exit number, then register counts and values
// (jit.dump reads those: the chained handler gets every argument).
int traceExitHandler(lua_State* L) {
  int nargs = lua_gettop(L);
  if (!processExiting() && lua_type(L, 1) == LUA_TNUMBER && lua_type(L, 2) == LUA_TNUMBER) {
    try {
      recordTraceExit(L, static_cast<int>(lua_tointeger(L, 1)), static_cast<int>(lua_tointeger(L, 2)));
    } catch (const std::exception&) {
      // Out of memory interning nothing: the event is lost, the VM goes on.
    }
  }
  if (lua_type(L, lua_upvalueindex(kExitChainUv)) != LUA_TFUNCTION) return 0;
  lua_pushvalue(L, lua_upvalueindex(kExitChainUv));
  lua_insert(L, 1);
  if (lua_pcall(L, nargs, 0, 0) != 0) lua_pop(L, 1);
  return 0;
}

}  // namespace

void TraceExitHook::attach(lua_State* L) {
  if (attached()) return;
  int top = lua_gettop(L);
  lua_pushnil(L);  // kExitChainUv
  lua_pushcclosure(L, traceExitHandler, kExitChainUv);
  try {
    attachHandler(L, "texit", ref_, kExitChainUv, chainedRef_);
  } catch (const std::exception&) {
    // No jit.attach (or it failed): the timeline goes on without exits.
    if (ref_ != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, ref_);
    ref_ = LUA_NOREF;
    lua_settop(L, top);
  }
}

void TraceExitHook::detach(lua_State* L) {
  if (!attached()) return;
  int top = lua_gettop(L);
  try {
    detachHandler(L, ref_, "texit", chainedRef_);
  } catch (const std::exception&) {
    lua_settop(L, top);  // jit.attach failed: nothing more to undo
  }
}

bool TraceExitHook::attached() const { return ref_ != LUA_NOREF; }

}  // namespace ljcheck
