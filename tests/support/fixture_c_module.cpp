// ljcheck_fixture_cmod: the smallest C module, for the fixtures about calls
// into C modules (fixtures/stitch_c_module.lua, clean_c_module_cold.lua).
// Built into <build>/fixture-cmodules/; the fixture runners put that folder
// on the C path. It takes the Lua C API from the host, as every module does.
#include <lua.hpp>

namespace {

int twice(lua_State* L) {
  lua_pushnumber(L, 2 * luaL_checknumber(L, 1));
  return 1;
}

const luaL_Reg kFunctions[] = {{"twice", twice}, {nullptr, nullptr}};

}  // namespace

extern "C" __attribute__((visibility("default"))) int luaopen_ljcheck_fixture_cmod(lua_State* L) {
  lua_newtable(L);
  luaL_register(L, nullptr, kFunctions);
  return 1;
}
