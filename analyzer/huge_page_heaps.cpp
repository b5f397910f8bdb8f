// Asked for with LJCHECK_HUGE_PAGES=1 (huge_page_heaps.h says why it is not
// the default). Why: on some machines (a virtual one) the first touch of a
// 4 KiB page costs about 13 µs, and a lint run's page faults equal its peak
// resident pages: 10,300 faults over bench/corpus. With 2 MiB pages the
// same run takes about 1,500, and there 10-16 % less wall time at -j 1 and
// -j 2 (BENCHMARKS.md, "Huge pages under the worker heaps").
//
// How, on glibc: a thread's malloc arena lives in heaps that glibc maps
// HEAP_MAX_SIZE apart and aligned to it (64 MiB on 64-bit: arena.c finds a
// chunk's heap by masking its address), and grows each heap's readable part
// by M_TOP_PAD beyond a request. The kernel backs a fault with a huge page
// only when the 2 MiB around it lies inside one readable mapping that asked
// for them (madvise MADV_HUGEPAGE, THP "madvise" mode, Debian's default).
// So: pad a new heap to its whole size, and advise the heap a thread's first
// allocation lands in. Both are hints; where they do not hold (another
// allocator, THP off, a sanitizer's malloc) nothing changes but the speed.
// glibc's own glibc.malloc.hugetlb=1 tunable advises only the main arena.
// Under another malloc (a sanitizer's, or one preloaded with LD_PRELOAD)
// none of this applies and nothing is done (glibcMalloc).
#include "ljcheck/huge_page_heaps.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__) && defined(__linux__)
#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>

#define LJCHECK_HUGE_PAGE_HEAPS 1
#endif

namespace ljcheck {
namespace {

std::atomic<bool> inUse{false};

#ifdef LJCHECK_HUGE_PAGE_HEAPS
// glibc's HEAP_MAX_SIZE: 2 * DEFAULT_MMAP_THRESHOLD_MAX, 4 MiB * sizeof(long).
constexpr std::uintptr_t kHeapSize = 2 * 4 * 1024 * 1024 * sizeof(long);
#endif

}  // namespace

bool hugePageHeapsRequested() {
  const char* value = std::getenv("LJCHECK_HUGE_PAGES");
  return value && std::strcmp(value, "1") == 0;
}

bool glibcMalloc() {
#ifdef LJCHECK_HUGE_PAGE_HEAPS
  static const bool glibc = [] {
    Dl_info where{};
    void* found = dlsym(RTLD_DEFAULT, "malloc");
    return found && dladdr(found, &where) != 0 && where.dli_fname && std::strstr(where.dli_fname, "libc.so");
  }();
  return glibc;
#else
  return false;
#endif
}

void useHugePageHeaps() {
  if (!glibcMalloc() || inUse.exchange(true)) return;
#ifdef LJCHECK_HUGE_PAGE_HEAPS
  mallopt(M_TOP_PAD, static_cast<int>(kHeapSize));
#endif
}

bool hugePageHeapsInUse() { return inUse.load(); }

void adviseThreadHeap() {
  if (!inUse.load()) return;
#ifdef LJCHECK_HUGE_PAGE_HEAPS
  void* first = std::malloc(1);  // attaches this thread to its arena
  if (!first) return;
  const std::uintptr_t heap = reinterpret_cast<std::uintptr_t>(first) & ~(kHeapSize - 1);
  madvise(reinterpret_cast<void*>(heap), kHeapSize, MADV_HUGEPAGE);  // a hint: errors change nothing
  std::free(first);
#endif
}

}  // namespace ljcheck
