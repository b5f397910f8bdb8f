// The Lua binding of the timeline: ljcheck.timeline(opts) returns a
// TimelineSession (stop(filename?) returns the Chrome Trace Event JSON and
// writes it when given a file name); ljcheck.nameThread(name) and
// ljcheck.nameVm(name) name the calling thread and VM in timelines.
#pragma once

struct lua_State;

namespace ljcheck {

// Registers the TimelineSession metatable and sets timeline, nameThread and
// nameVm in the module table on top of the stack.
void addTimelineFunctions(lua_State* L);

}  // namespace ljcheck
