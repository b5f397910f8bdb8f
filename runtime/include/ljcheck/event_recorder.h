// The per-thread event recorder: any thread of the process (one LuaJIT VM
// per thread, or several) appends small fixed-size events to a chunk of its
// own, taken from one preallocated slab; a collector drains full chunks and
// gives them back to the pool, and the end of a capture publishes every
// partial chunk, so each accepted event is drained exactly once.
//
// Lifetime and ordering (the four defects this design avoids):
//   - the free and full chunk lists are under one mutex, taken once per chunk,
//     never per event (no lock-free free list, so no ABA);
//   - an emit announces itself in its thread's `busy` flag before it reads the
//     armed flag, so endCapture, which disarms and then waits for every busy
//     flag, cannot miss a producer; the pairing is an asymmetric fence (a
//     compiler barrier in emit, membarrier(2) in endCapture) where the kernel
//     offers it, else a sequentially consistent store and load on both sides;
//   - beginCapture rebuilds the free list from every chunk of the slab and
//     discards unexported events explicitly: a second capture records;
//   - name tables publish their count with release ordering after the entry.
// The recorder is constant-initialized and never destroyed, so a thread that
// exits during static destruction can still hand its chunk back.
//
// emitEvent is inline (the end of this file): the common case stores into the
// thread's chunk in about 20 instructions; a thread's first emit, a full
// chunk, and every emit under the seq_cst pairing go out of line.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ljcheck {

enum class EventKind : std::uint8_t {
  TraceStart,   // a: trace number, b: parent trace
  TraceStop,    // a: trace number
  TraceAbort,   // a: zone label, b: code << 32 | subject, c: source label << 32 | line
  TraceExit,    // a: trace number, b: exit number
  ZoneEnter,    // a: zone name label
  ZoneLeave,    // a: zone name label
  ScopeMark,    // a: scope label, b: heap bytes at the mark
  ScopeDone,    // a: scope label, b: memory delta in bytes
  Sample,       // a: VM state letter ('I', 'J', 'C', 'G', 'N'), b: heap bytes
  CollectorStep // a: 0, b: heap bytes after the step (hosts that expose one)
};

// Ids into the process-wide label table (zone names, scope labels, chunk
// names); 0 is the empty label.
using LabelId = std::uint32_t;

// One recorded event.
struct Event {
  std::uint64_t timeNs = 0;  // monotonic clock (recorderNow)
  // The emitting thread's id (currentThreadId), filled in when the event is
  // drained: a chunk belongs to one thread, so emit does not store it.
  std::uint32_t threadId = 0;
  std::uint32_t vmId = 0;    // 0: not from a Lua VM
  EventKind kind = EventKind::Sample;
  std::int32_t a = 0;
  std::int64_t b = 0;
  std::int64_t c = 0;
};

inline constexpr std::size_t kEventsPerChunk = 4096;

// What a capture saw, as endCapture reports it.
struct CaptureCounts {
  std::uint64_t accepted = 0;   // emits that stored their event
  std::uint64_t dropped = 0;    // emits refused for want of a free chunk
  std::uint64_t discarded = 0;  // events of an earlier capture never drained (beginCapture)
};

// Monotonic nanoseconds (CLOCK_MONOTONIC), the clock every event uses.
std::uint64_t recorderNow();

// Stores ev for the calling thread when a capture is armed; false when not
// armed, when no chunk is free, or when the thread cannot get a slot.
// Inline: defined at the end of this file.
inline bool emitEvent(const Event& ev);

// Arms a capture over a slab of chunkCount chunks (reallocated when the size
// changes). Fails, leaving capture disarmed and the program running, when a
// capture is armed already, chunkCount is 0, the slab size overflows, or the
// allocation fails; error then says why.
bool beginCapture(std::size_t chunkCount, std::string* error = nullptr);
// Disarms, waits until no producer is inside an emit, and publishes every
// partial chunk to the full list. Returns the capture's counts.
CaptureCounts endCapture();
// Hands each full chunk's events to sink once, then returns the chunk to the
// free list. Safe while producers emit. Returns the number of events drained.
std::size_t drainCapture(const std::function<void(const Event*, std::size_t)>& sink);
bool captureArmed();
// A 32-bit word that is nonzero while a capture is armed, for code that
// cannot call C to ask (the FFI zone function reads it).
const void* captureArmedWord();

// The calling thread's id in events (registered on first use, never reused).
std::uint32_t currentThreadId();
// Names a thread (e.g. "main", "worker 3"); names the calling thread when
// threadId is 0. Safe from any thread; the last name given wins.
void nameThread(std::string_view name, std::uint32_t threadId = 0);
void nameVm(std::uint32_t vmId, std::string_view name);
// The name given, or "" (lock-free reads of published entries).
std::string threadName(std::uint32_t threadId);
std::string vmName(std::uint32_t vmId);

LabelId internLabel(std::string_view text);
std::string labelText(LabelId id);

// What the scope code calls on mark (memDelta: heap bytes at the mark) and
// done (memDelta: the scope's own delta D), with the scope's label, the time
// it read, and the VM's id (vmIdOf in ljcheck/timeline.h).
enum class ScopeEdge : std::uint8_t { Mark, Done };
void emitScopeEvent(ScopeEdge edge, LabelId label, std::uint64_t timeNs, std::int64_t memDelta,
                    std::uint32_t vmId);
// The same, interning the label first (a lock and a lookup: prefer the id).
void emitScopeEvent(ScopeEdge edge, std::string_view label, std::uint64_t timeNs, std::int64_t memDelta,
                    std::uint32_t vmId);

// Internal figures for tests and benchmarks.
std::size_t recorderChunkCount();
// True once a capture began with the asymmetric fence (membarrier) rather
// than the sequentially consistent fallback (LJCHECK_RECORDER_FENCE=seq_cst,
// ThreadSanitizer builds, kernels without membarrier).
bool recorderUsesAsymmetricFence();

// The emit fast path's view of the recorder; event_recorder.cpp owns it all.
namespace detail {

#define LJCHECK_RECORDER_HIDDEN __attribute__((visibility("hidden")))

// The part of a producing thread's slot that an emit touches: `busy` for the
// whole emit, the write cursor and its chunk's end (both null without a
// chunk). Written by the owner inside an emit, by others only under the
// recorder's lock once the owner is outside one.
struct EmitSlot {
  std::atomic<bool> busy{false};
  Event* cursor = nullptr;
  Event* end = nullptr;
};

// The armed word: which pairing the capture's emits use with endCapture.
enum ArmedState : std::int32_t {
  kDisarmed = 0,
  kArmedAsymmetric = 1,  // a compiler barrier here, membarrier(2) in endCapture
  kArmedSeqCst = 2,      // sequentially consistent store and load on both sides (out of line)
};
extern LJCHECK_RECORDER_HIDDEN std::atomic<std::int32_t> armedState;

// The calling thread's slot: a shared placeholder without a chunk until the
// thread's first emit attaches it (so the fast path needs no null test).
// __thread, not thread_local: constant-initialized, so no TLS wrapper call.
extern LJCHECK_RECORDER_HIDDEN __thread EmitSlot* threadSlot;

// Field by field (a wide copy would load across a caller's narrow stores to
// the same bytes and stall store forwarding); threadId is the chunk's, filled
// in at drain.
inline void storeFields(Event& to, const Event& from) {
  to.timeNs = from.timeNs;
  to.vmId = from.vmId;
  to.kind = from.kind;
  to.a = from.a;
  to.b = from.b;
  to.c = from.c;
}

// How far ahead of the cursor an emit prefetches its chunk, in events (2,560
// bytes): a run of emits is bound by fetching the chunk's cache lines for
// writing, not by its instructions (BENCHMARKS.md, "Event recorder: inline
// emit"). Past a chunk's end it touches the next chunk of the slab: harmless.
inline constexpr std::uintptr_t kEmitPrefetchAhead = 64;

// Everything but the common case, `busy` already set: the thread's first
// emit, a full chunk, the seq_cst pairing, a disarmed recorder. The event is
// passed by value so that its address does not escape from the caller: the
// fast path can then keep its fields in registers across the compiler barrier.
LJCHECK_RECORDER_HIDDEN bool emitSlow(Event ev);

#undef LJCHECK_RECORDER_HIDDEN

}  // namespace detail

// Announce (busy), then test armed: the compiler barrier keeps the two in
// program order, membarrier(2) in endCapture does the rest (see
// runtime/src/asymmetric_fence.h). The acquire load keeps the cursor's load
// after the armed test. The prefetch address is computed as an integer: it
// may lie past the slab (a prefetch does not fault, and nothing dereferences it).
inline bool emitEvent(const Event& ev) {
  detail::EmitSlot& s = *detail::threadSlot;
  s.busy.store(true, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (__builtin_expect(detail::armedState.load(std::memory_order_acquire) != detail::kArmedAsymmetric, 0))
    return detail::emitSlow(ev);
  Event* at = s.cursor;
  if (__builtin_expect(at == s.end, 0)) return detail::emitSlow(ev);
  s.cursor = at + 1;
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(at) +
                                                   detail::kEmitPrefetchAhead * sizeof(Event)),
                     1);
  detail::storeFields(*at, ev);
  s.busy.store(false, std::memory_order_release);
  return true;
}

}  // namespace ljcheck
