// Helpers over the Lua C API (see lua_api.h).
#include "lua_api.h"

#include <stdexcept>

namespace ljcheck::lua {

std::string protectedCall(lua_State* L, int nargs, int nresults) {
  if (lua_pcall(L, nargs, nresults, 0) == 0) return {};
  std::string message = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
                                                         : std::string("(non-string error)");
  lua_pop(L, 1);
  return message.empty() ? "(empty error)" : message;
}

void pushRequired(lua_State* L, const char* name) {
  lua_getglobal(L, "require");
  lua_pushstring(L, name);
  std::string error = protectedCall(L, 1, 1);
  if (!error.empty()) throw std::runtime_error("require(\"" + std::string(name) + "\"): " + error);
}

std::string_view stringAt(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TSTRING) return {};
  size_t len = 0;
  const char* s = lua_tolstring(L, idx, &len);
  return {s, len};
}

int intField(lua_State* L, int idx, const char* key, int fallback) {
  lua_getfield(L, idx, key);
  int value = lua_type(L, -1) == LUA_TNUMBER ? static_cast<int>(lua_tointeger(L, -1)) : fallback;
  lua_pop(L, 1);
  return value;
}

}  // namespace ljcheck::lua
