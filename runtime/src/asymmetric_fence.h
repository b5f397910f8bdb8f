// An asymmetric fence for the event recorder's "announce, then test armed"
// handshake (a store-buffering, Dekker-style pattern): the frequent side (an
// emit) pays only a compiler barrier, the rare side (endCapture) pays a
// membarrier(2) system call that makes every running thread of the process
// execute a full memory barrier before it returns.
//
// Why it is enough (the reasoning of folly's asymmetricLightBarrier and
// asymmetricHeavyBarrier, and of the membarrier(2) man page, which states that
// MEMBARRIER_CMD_PRIVATE_EXPEDITED "ensures that all running threads of the
// calling process have passed through a state where all memory accesses to
// user-space addresses match program order between entry to and return from
// the system call", and that the caller itself is fenced at entry and exit):
//   emit:       busy = 1;  compiler barrier;  if (!armed) ...
//   endCapture: armed = 0; heavyFence();  wait while busy ...
// The compiler barrier keeps `busy = 1` before the `armed` load in program
// order. The heavy fence puts a full barrier into each producer at some
// point P. If P precedes the producer's `busy = 1`, its `armed` load comes
// after P, and so after `armed = 0` (which precedes the call): it reads 0 and
// the emit backs out. Otherwise `busy = 1` precedes P, so it is visible when
// the call returns and endCapture's wait sees it. A thread that was not
// running is fenced by the context switch. Either way no producer can be
// inside an emit that endCapture misses. Linux >= 4.14; the process registers
// once (MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) before the first use.
#pragma once

#include <atomic>

namespace ljcheck {

// The producer side is a compiler barrier only (no instruction), inline in
// emitEvent (ljcheck/event_recorder.h).

// Registers the process for the heavy fence; false when the kernel does not
// offer it (older than 4.14, or refused by a seccomp filter), when the build
// is under ThreadSanitizer, which does not model membarrier and would see the
// handshake as unsynchronized, or when LJCHECK_RECORDER_FENCE=seq_cst is in
// the environment (the fallback, forced: tests run the recorder both ways).
// The answer is computed once per process.
bool heavyFenceAvailable();

// The rare side; only after heavyFenceAvailable() returned true. False if the
// kernel refused (the man page lists no such error once registered).
bool heavyFence();

}  // namespace ljcheck
