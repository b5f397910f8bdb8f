// Helpers shared by the Lua bindings (lua_module.cpp, lua_sample_binding.cpp,
// lua_timeline_binding.cpp):
// C++ exceptions become Lua errors only after every C++ object is gone, and a
// method called with a dot instead of a colon gets an error that says so.
#pragma once

#include <string>

#include "lua_api.h"

namespace ljcheck::binding {

// Runs impl; a C++ exception becomes an error message pushed on the stack (-1).
int callGuarded(lua_State* L, int (*impl)(lua_State*));

template <int (*Impl)(lua_State*)>
int guarded(lua_State* L) {
  int results = callGuarded(L, Impl);
  return results < 0 ? lua_error(L) : results;
}

// The userdata of metatable `type` at argument 1, or a std::runtime_error that
// names the method and shows the colon call ("session:stop()").
void* selfArgument(lua_State* L, const char* type, const char* what, const char* method);

// What was passed at `index`, for "got ..." errors: "a number", or
// "nothing" for no argument.
std::string givenType(lua_State* L, int index);

// stop(filename)'s argument at idx: the file name, or "" when none is given;
// `method` names the call in the error ("session:stop(filename)").
std::string filenameArgument(lua_State* L, int idx, const char* method = "session:stop(filename)");

// The `root` option at -1 of function `fn` ("ljcheck.trace"): a string that
// names an existing directory, as `ljcheck run --root` requires.
std::string rootOption(lua_State* L, const char* fn);

// A function that takes no arguments was given some: an error naming it.
void noArguments(lua_State* L, const char* fn);

void setString(lua_State* L, const char* key, const std::string& value);
void setNumber(lua_State* L, const char* key, double value);
void setBoolean(lua_State* L, const char* key, bool value);

}  // namespace ljcheck::binding
