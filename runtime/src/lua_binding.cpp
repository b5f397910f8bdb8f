// Helpers shared by the Lua bindings (see lua_binding.h).
#include "lua_binding.h"

#include <filesystem>
#include <stdexcept>
#include <string>

namespace ljcheck::binding {

int callGuarded(lua_State* L, int (*impl)(lua_State*)) {
  try {
    return impl(L);
  } catch (const std::exception& e) {
    luaL_where(L, 1);
    lua_pushstring(L, e.what());
    lua_concat(L, 2);
    return -1;
  }
}

void* selfArgument(lua_State* L, const char* type, const char* what, const char* method) {
  void* self = lua_touserdata(L, 1);
  if (self && lua_getmetatable(L, 1)) {
    luaL_getmetatable(L, type);
    bool same = lua_rawequal(L, -1, -2) != 0;
    lua_pop(L, 2);
    if (same) return self;
  }
  std::string got = lua_isnone(L, 1) ? std::string("nothing") : std::string("a ") + luaL_typename(L, 1);
  throw std::runtime_error(std::string(what) + "." + method + " was called without its " + what +
                           " (argument #1 is " + got + "): call it with a colon, " + what + ":" +
                           method + "(...)");
}

std::string givenType(lua_State* L, int index) {
  return lua_isnone(L, index) ? std::string("nothing") : std::string("a ") + luaL_typename(L, index);
}

std::string filenameArgument(lua_State* L, int idx, const char* method) {
  if (lua_type(L, idx) == LUA_TSTRING) return std::string(lua::stringAt(L, idx));
  if (lua_isnoneornil(L, idx)) return {};
  throw std::runtime_error(std::string(method) + ": filename must be a string, got " + givenType(L, idx));
}

std::string rootOption(lua_State* L, const char* fn) {
  if (lua_type(L, -1) != LUA_TSTRING)
    throw std::runtime_error(std::string(fn) + ": option 'root' must be a string, got " + givenType(L, -1));
  std::string root(lua::stringAt(L, -1));
  std::error_code error;
  if (!root.empty() && !std::filesystem::is_directory(root, error))
    throw std::runtime_error(std::string(fn) + ": option 'root': '" + root + "' is not a directory");
  return root;
}

void noArguments(lua_State* L, const char* fn) {
  if (lua_gettop(L) > 0)
    throw std::runtime_error(std::string(fn) + "() takes no arguments, got " + givenType(L, 1));
}

void setString(lua_State* L, const char* key, const std::string& value) {
  lua_pushlstring(L, value.data(), value.size());
  lua_setfield(L, -2, key);
}

void setNumber(lua_State* L, const char* key, double value) {
  lua_pushnumber(L, value);
  lua_setfield(L, -2, key);
}

void setBoolean(lua_State* L, const char* key, bool value) {
  lua_pushboolean(L, value);
  lua_setfield(L, -2, key);
}

}  // namespace ljcheck::binding
