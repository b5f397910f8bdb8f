// Trace exits on the timeline: a C handler for jit.attach(handler, "texit")
// that records each exit of compiled code back to the interpreter as a
// TraceExit event (trace number, exit number). Exits are frequent (every
// side exit of every trace), and a texit handler makes LuaJIT call into Lua
// on each one, so it is attached only while a timeline capture runs, in the
// VM that started it, and detached when the timeline stops; a handler found
// attached before (-jdump's) is called on and given back.
#pragma once

struct lua_State;

namespace ljcheck {

class TraceExitHook {
 public:
  // Attaches to L's VM. A VM without jit.attach records no exits: no error.
  void attach(lua_State* L);
  // Detaches and restores the handler it replaced; safe when not attached.
  void detach(lua_State* L);
  bool attached() const;

 private:
  int ref_ = -2;         // LUA_NOREF
  int chainedRef_ = -2;  // LUA_NOREF
};

}  // namespace ljcheck
