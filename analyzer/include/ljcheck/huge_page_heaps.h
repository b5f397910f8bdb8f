// Worker threads' heaps on transparent huge pages, for a short run such as
// lint that fills tens of MiB of fresh heap once (see huge_page_heaps.cpp).
#pragma once

#include <cstdint>

namespace ljcheck {

// The source, in bytes, from which a lint run gains by huge pages: measured
// paired on bench/corpus subsets, 128 KiB ran 2.5 % slower at -j 1 (the
// worker thread, the zeroed 2 MiB pages), 512 KiB 2.4 % faster, 1 MiB 8.5 %.
constexpr std::uintmax_t kHugePageHeapsFrom = 256 * 1024;

// Whether the user asked for huge pages: LJCHECK_HUGE_PAGES=1 in the
// environment. Off by default: on the virtual machine the benchmarks run on,
// they cost 2.6-4.6 MiB of peak memory and 5 % of wall time, and now and then
// a few hundred ms of system time faulting fresh 2 MiB pages in; on one where
// a first touch of a 4 KiB page costs about 13 µs they saved 10-16 %
// (BENCHMARKS.md, "Huge pages under the worker heaps", "Lint's first pass,
// callers first").
bool hugePageHeapsRequested();
// Whether the process's malloc is glibc's, whose heaps the calls below pad
// and advise; false under a sanitizer's allocator or one preloaded with
// LD_PRELOAD (tcmalloc, jemalloc), where they do nothing.
bool glibcMalloc();

// From now on, every thread onThreads starts asks for huge pages under its
// malloc heap, and -j 1 runs its work on one such thread. Process-wide (the
// allocator's settings are), so only a command that runs and exits calls it.
// Nothing when the malloc is not glibc's.
void useHugePageHeaps();
bool hugePageHeapsInUse();

// First thing on a worker thread: advises the heap its allocations come from.
// Does nothing unless useHugePageHeaps was called.
void adviseThreadHeap();

}  // namespace ljcheck
