// The shared module ljcheck.so: require("ljcheck") in any LuaJIT host. Its
// only exported symbol is luaopen_ljcheck; the Lua C API comes from the host.
#include <dlfcn.h>

#include "ljcheck/lua_module.h"

namespace {

// The module keeps process-wide state that outlives any one VM: the event
// recorder (never destroyed, with thread-exit hooks), exit handlers and the
// sampler's signal handler. lua_close unloads C modules (dlclose), which would
// leave those pointing into unmapped code; pinning the module once keeps it
// loaded for the life of the process.
void pinModule() {
  static const bool pinned = [] {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&pinModule), &info) == 0 || !info.dli_fname) return false;
    return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != nullptr;
  }();
  (void)pinned;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int luaopen_ljcheck(lua_State* L) {
  pinModule();
  return ljcheck::openLuaModule(L);
}
