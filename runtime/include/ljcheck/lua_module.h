// The Lua binding of the runtime collector: the table `require("ljcheck")`
// returns. The shared module (module/luaopen_ljcheck.cpp) and the `ljcheck
// run` host (package.preload) both open it through this function.
#pragma once

struct lua_State;

namespace ljcheck {

// Pushes the module table; a lua_CFunction.
int openLuaModule(lua_State* L);

}  // namespace ljcheck
