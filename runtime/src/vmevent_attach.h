// Attaching C handlers to a VM's events ("trace", "record", "texit") with
// jit.attach, so that a handler attached before (-jv's, -jdump's) keeps
// running: the new handler calls it on, and detaching gives the event back.
// While one is attached, jit.attach is guarded: the VM keeps one handler per
// event, so a program that attaches its own later (require("jit.v").on(),
// jit.dump) would silently take the event from the collector; its handler
// runs behind ours instead, and gets the event when ours is detached.
// Both throw SessionError when jit.attach is missing or fails.
#pragma once

struct lua_State;

namespace ljcheck {

// Attaches the function on top of the stack to event and pops it; ref keeps
// it for detachHandler (set before attaching, so a failed attach is released
// too). The handler it replaces (-jv's) is kept in chainedRef and becomes the
// handler's upvalue chainUpvalue, which calls it on.
void attachHandler(lua_State* L, const char* event, int& ref, int chainUpvalue, int& chainedRef);

// Detaches the handler held by ref (jit.attach without an event) and drops
// ref; then gives event back to the handler it had replaced, if any.
void detachHandler(lua_State* L, int& ref, const char* event, int& chainedRef);

}  // namespace ljcheck
