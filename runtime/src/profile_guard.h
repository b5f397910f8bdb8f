// LuaJIT has one profiler (luaJIT_profile_start): a program that calls
// jit.profile.start while a sample session runs would take it from the
// session, which then samples nothing more and says nothing. While a
// session runs, jit.profile.start and jit.profile.stop are guarded: the
// program's start is ignored with one warning on stderr naming its line,
// and its stop leaves the session's profiler running. Stopping the session
// gives both functions back.
#pragma once

struct lua_State;

namespace ljcheck {

// Puts the guard in place (when jit.profile can be loaded); never throws.
void guardProfile(lua_State* L) noexcept;
// Gives jit.profile.start and stop back; never throws.
void unguardProfile(lua_State* L) noexcept;

}  // namespace ljcheck
