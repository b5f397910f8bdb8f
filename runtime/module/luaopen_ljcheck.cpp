// The shared module ljcheck.so: require("ljcheck") in any LuaJIT host. Its
// only exported symbol is luaopen_ljcheck; the Lua C API comes from the host.
#include "ljcheck/lua_module.h"

extern "C" __attribute__((visibility("default"))) int luaopen_ljcheck(lua_State* L) {
  return ljcheck::openLuaModule(L);
}
