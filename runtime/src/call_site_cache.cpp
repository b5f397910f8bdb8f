// The sampler's call-site cache (see call_site_cache.h): keeping the cached
// functions alive in a registry table.
#include "call_site_cache.h"

#include "lua_api.h"

namespace ljcheck {

void CallSiteCache::add(lua_State* L, const CallSite& site, int level, FrameId frame) {
  if (full()) return;
  if (!keptRef_) {
    lua_newtable(L);
    keptRef_ = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  keepAlive(L, level, site.function);
  if (site.caller) keepAlive(L, level + 1, site.caller);
  frames_.emplace(site, frame);
}

void CallSiteCache::keepAlive(lua_State* L, int level, const void* function) {
  if (!kept_.insert(function).second) return;  // already kept for another site
  lua_Debug ar;
  if (!lua_getstack(L, level, &ar)) return;
  lua_rawgeti(L, LUA_REGISTRYINDEX, keptRef_);
  if (lua_getinfo(L, "f", &ar)) {
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);  // kept[function] = true
  }
  lua_pop(L, 1);
}

void CallSiteCache::release(lua_State* L) {
  frames_.clear();
  kept_.clear();
  if (!keptRef_) return;
  luaL_unref(L, LUA_REGISTRYINDEX, keptRef_);
  keptRef_ = 0;
}

}  // namespace ljcheck
