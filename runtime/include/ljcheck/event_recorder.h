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
#pragma once

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

// One recorded event; threadId is filled in by emit.
struct Event {
  std::uint64_t timeNs = 0;  // monotonic clock (recorderNow)
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
bool emitEvent(const Event& ev);

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
// cannot call C to ask (the FFI zone function reads it); it may lag armed.
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

}  // namespace ljcheck
