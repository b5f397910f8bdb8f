// A fresh LuaJIT VM inside the test process (so a fresh JIT: no penalties or
// traces left over) with require("ljcheck") preloaded, for the runtime unit
// tests. Header-only: the unit test target links LuaJIT and the runtime.
#pragma once

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include <string>

#include "ljcheck/lua_module.h"

namespace ljcheck::testing {

class EmbeddedVm {
 public:
  EmbeddedVm() : L(luaL_newstate()) {
    luaL_openlibs(L);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, openLuaModule);
    lua_setfield(L, -2, "ljcheck");
    lua_pop(L, 2);
  }
  ~EmbeddedVm() { lua_close(L); }
  EmbeddedVm(const EmbeddedVm&) = delete;
  EmbeddedVm& operator=(const EmbeddedVm&) = delete;

  // Runs code as the chunk `chunkName` (Lua's "@path" form); returns the error or "".
  std::string run(const std::string& code, const std::string& chunkName = "@/proj/snippet.lua") {
    if (luaL_loadbuffer(L, code.data(), code.size(), chunkName.c_str()) != 0 || lua_pcall(L, 0, 0, 0) != 0) {
      std::string error = lua_tostring(L, -1);
      lua_pop(L, 1);
      return error;
    }
    return {};
  }

  lua_State* const L;
};

}  // namespace ljcheck::testing
