// What the VM-side code (trace handler, sampler, zones) hands the event
// recorder while a capture is armed. Each hook first tests the armed flag, so
// it costs one load when no timeline is recording.
#pragma once

#include <cstdint>

#include "ljcheck/event_recorder.h"
#include "ljcheck/timeline.h"
#include "trace_event.h"

struct lua_State;

namespace ljcheck {

// The Lua heap in bytes (LUA_GCCOUNT * 1024 + LUA_GCCOUNTB).
std::int64_t heapBytes(lua_State* L);

void recordTraceStart(lua_State* L, int trace, int parent);
void recordTraceStop(lua_State* L, int trace);
// An abort as the trace handler captured it; strings resolve its ids.
void recordTraceAbort(lua_State* L, const TraceEvent& abort, const StringPool& strings);
void recordTraceExit(lua_State* L, int trace, int exitNumber);
// A profiler sample: the VM state letter LuaJIT gave ('I', 'J', 'C', 'G', 'N').
void recordSample(lua_State* L, int vmStateLetter);

}  // namespace ljcheck
