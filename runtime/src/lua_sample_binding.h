// The Lua binding of sample sessions (lua_sample_binding.cpp), opened by the module table.
#pragma once

#include "lua_api.h"

namespace ljcheck {

// Registers the SampleSession metatable in L's registry.
void registerSampleBinding(lua_State* L);
// Pushes ljcheck.sample.
void pushSampleFunction(lua_State* L);
// The report behind a SampleReport table that a sample session's stop
// returned, or nullptr when the value at idx is not one.
struct SampleReport;
const SampleReport* sampleReportAt(lua_State* L, int idx);

}  // namespace ljcheck
