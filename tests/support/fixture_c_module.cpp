// ljcheck_fixture_cmod: the smallest C module, for the fixtures about calls
// into C modules (fixtures/stitch_c_module.lua, clean_c_module_cold.lua) and
// about what C modules return: like an lpeg pattern, `object(n)` is a
// userdata whose metatable C code fills with C metamethods (__mul, __unm,
// __len) and C methods (`value`); like lfs.dir, `range(n)` returns a C
// iterator function, its state and its start.
// Built into <build>/fixture-cmodules/; the fixture runners put that folder
// on the C path. It takes the Lua C API from the host, as every module does.
#include <lua.hpp>

namespace {

const char kObjectType[] = "ljcheck_fixture_cmod.object";

int twice(lua_State* L) {
  lua_pushnumber(L, 2 * luaL_checknumber(L, 1));
  return 1;
}

int pushObject(lua_State* L, lua_Number value) {
  auto* slot = static_cast<lua_Number*>(lua_newuserdata(L, sizeof(lua_Number)));
  *slot = value;
  luaL_getmetatable(L, kObjectType);
  lua_setmetatable(L, -2);
  return 1;
}

lua_Number checkObject(lua_State* L, int index) {
  return *static_cast<lua_Number*>(luaL_checkudata(L, index, kObjectType));
}

// A number or an object, as an operand of the object's arithmetic; any
// other value counts as 1 (as lpeg takes a string or a table for a pattern).
lua_Number operand(lua_State* L, int index) {
  if (lua_isuserdata(L, index)) return checkObject(L, index);
  return lua_isnumber(L, index) ? lua_tonumber(L, index) : 1;
}

int object(lua_State* L) { return pushObject(L, luaL_checknumber(L, 1)); }
int value(lua_State* L) {
  lua_pushnumber(L, checkObject(L, 1));
  return 1;
}
int mul(lua_State* L) { return pushObject(L, operand(L, 1) * operand(L, 2)); }
int unm(lua_State* L) { return pushObject(L, -checkObject(L, 1)); }
int len(lua_State* L) { return value(L); }

// for i in range(n): 1, 2, ..., n.
int rangeNext(lua_State* L) {
  lua_Number last = luaL_checknumber(L, 1), next = luaL_checknumber(L, 2) + 1;
  if (next > last) return 0;
  lua_pushnumber(L, next);
  return 1;
}
int range(lua_State* L) {
  lua_pushcfunction(L, rangeNext);
  lua_pushnumber(L, luaL_checknumber(L, 1));
  lua_pushnumber(L, 0);
  return 3;
}

const luaL_Reg kFunctions[] = {{"twice", twice}, {"object", object}, {"range", range}, {nullptr, nullptr}};
const luaL_Reg kMethods[] = {{"value", value}, {nullptr, nullptr}};
const luaL_Reg kMetamethods[] = {{"__mul", mul}, {"__unm", unm}, {"__len", len}, {nullptr, nullptr}};

}  // namespace

extern "C" __attribute__((visibility("default"))) int luaopen_ljcheck_fixture_cmod(lua_State* L) {
  luaL_newmetatable(L, kObjectType);
  luaL_register(L, nullptr, kMetamethods);
  lua_newtable(L);
  luaL_register(L, nullptr, kMethods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  lua_newtable(L);
  luaL_register(L, nullptr, kFunctions);
  return 1;
}
