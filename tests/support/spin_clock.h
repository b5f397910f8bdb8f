// A deadline for Lua snippets that spin while LuaJIT's profiler samples them.
//
// Why not `while os.clock() < stop`: os.clock reads the process CPU clock
// through a system call, and on some kernels the profiler's CPU-time timer
// then lands on that call in every tick of a run. Seen on this project's
// VM (kernel 6.18): plain `luajit` with jit.profile and an os.clock loop
// gave all 50 samples as C code in 8 of 200 runs, and never with the clock
// below. Tests that count compiled or interpreted samples then fail.
//
// `now()` reads CLOCK_MONOTONIC through the FFI: user space (vDSO), no
// system call, compiled into the trace. `deadline(s)` gives a wall and a
// CPU deadline, for a loop that runs until both have passed:
//   local wall, cpu = deadline(0.2)
//   while now() < wall or os.clock() < cpu do ... end
// so the program still spends its CPU time on a loaded machine, and
// os.clock is called only once the wall deadline has passed. The test is
// written in the loop's own function: a compiled loop's samples reach the
// profiler at the trace's exit, and that exit is then in this frame.
//
// kSpinClock is one line without a newline: prefix a snippet's first line
// with it and every line number the test checks stays the same.
#pragma once

namespace ljcheck::testing {

inline constexpr const char* kSpinClock =
    "local spin_ffi = require('ffi'); pcall(spin_ffi.cdef, 'int clock_gettime(int, long *);'); "
    "local spin_ts = spin_ffi.new('long[2]'); "
    "local function now() spin_ffi.C.clock_gettime(1, spin_ts); "
    "return tonumber(spin_ts[0]) + tonumber(spin_ts[1]) * 1e-9 end; "
    "local function deadline(seconds) return now() + seconds, os.clock() + seconds end; ";

}  // namespace ljcheck::testing
