// The Lua C API as the runtime uses it: the LuaJIT headers (C, no lua.hpp in
// Debian) and a few helpers for calling Lua from C++ without letting a Lua
// error and a C++ exception cross each other.
#pragma once

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include <string>
#include <string_view>

namespace ljcheck::lua {

// Calls the function below nargs arguments on the stack, protected. Returns
// the error message, or "" on success (results left on the stack).
std::string protectedCall(lua_State* L, int nargs, int nresults);
// Pushes require(name); throws std::runtime_error when it fails.
void pushRequired(lua_State* L, const char* name);
// The string at idx without converting a number in place; "" otherwise.
std::string_view stringAt(lua_State* L, int idx);
// Integer field of the table at idx, or fallback when absent or not a number.
int intField(lua_State* L, int idx, const char* key, int fallback);

}  // namespace ljcheck::lua
