// The per-thread event recorder (see ljcheck/event_recorder.h): the slab, the
// free and full chunk lists, the thread slots, emit's out-of-line part, and
// capture begin, end and drain. Emit's common case is inline in the header;
// names and labels live in event_names.cpp.
#include "ljcheck/event_recorder.h"

#include <atomic>
#include <ctime>
#include <mutex>
#include <new>
#include <thread>

#include "asymmetric_fence.h"

namespace ljcheck {
namespace {

struct alignas(64) Chunk {
  Event events[kEventsPerChunk];
  std::size_t count = 0;
  Chunk* next = nullptr;
  std::uint32_t threadId = 0;  // of the slot it was attached to; stamped on its events at drain
};

// One producing thread: the emit fast path's part (busy, cursor, end: see
// detail::EmitSlot) and the rest. `chunk` and `dropped` are written by the
// owner inside an emit, like the cursor, and by others only under the
// recorder's mutex once the owner is known to be outside one. An emit stores
// at `cursor` and advances it; cursor == end (both null without a chunk)
// sends it to the refill. The chunk's `count` is written from the cursor when
// the chunk is published. A cache line of its own, so that producers do not
// share one.
struct alignas(64) Slot : detail::EmitSlot {
  bool inUse = false;  // under the mutex
  std::uint32_t threadId = 0;
  Chunk* chunk = nullptr;
  std::uint64_t dropped = 0;
  std::uint64_t starvedAt = 0;  // recycle epoch at which no chunk was free; 0: not starved
};

constexpr std::size_t kMaxThreads = 1024;
// A slab larger than this is refused before any allocation is tried.
constexpr std::size_t kMaxSlabBytes = std::size_t{8} << 30;

class Recorder {
 public:
  constexpr Recorder() = default;

  // Emits pair with endCapture through the asymmetric fence (membarrier) once
  // the first beginCapture found it available; never set back. Until then,
  // and wherever it is not available, both sides use seq_cst operations.
  // The capture's armed state (detail::armedState) tells emits which.
  std::atomic<bool> asymmetricFence{false};
  std::atomic<std::uint64_t> recycleEpoch{1};  // bumped whenever chunks become free
  std::atomic<std::size_t> slotsUsed{0};       // high-water mark of slots
  std::atomic<std::uint32_t> nextThreadId{0};
  std::mutex control;  // begin, end and drain: one at a time
  std::mutex lists;    // free and full lists, slab, slot allocation; once per chunk
  Chunk* slab = nullptr;
  std::size_t chunkCount = 0;
  Chunk* freeList = nullptr;
  Chunk* fullHead = nullptr;
  Chunk* fullTail = nullptr;
  std::uint64_t accepted = 0;  // events in published chunks, this capture
  std::uint64_t dropped = 0;   // drops of threads that exited, this capture
  std::uint64_t discarded = 0; // undrained events the last beginCapture threw away
  Slot slots[kMaxThreads];

  void pushFull(Chunk* c) {  // lists held
    accepted += c->count;
    c->next = nullptr;
    if (fullTail) fullTail->next = c;
    else fullHead = c;
    fullTail = c;
  }
  void pushFree(Chunk* c) {  // lists held
    c->count = 0;
    c->next = freeList;
    freeList = c;
  }
  Chunk* popFree() {  // lists held
    Chunk* c = freeList;
    if (c) {
      freeList = c->next;
      c->count = 0;
      c->next = nullptr;
    }
    return c;
  }
  // Takes the slot's chunk away from it, its count written from the cursor.
  static Chunk* detachChunk(Slot& s) {  // lists held, or the owner inside an emit
    Chunk* c = s.chunk;
    if (c) c->count = static_cast<std::size_t>(s.cursor - c->events);
    s.chunk = nullptr;
    s.cursor = s.end = nullptr;
    return c;
  }
  static void attachChunk(Slot& s, Chunk* c) {
    if (c) c->threadId = s.threadId;
    s.chunk = c;
    s.cursor = c ? c->events : nullptr;
    s.end = c ? c->events + kEventsPerChunk : nullptr;
  }
  // A chunk a thread held when it stopped producing: drained if it holds events.
  void publishPartial(Slot& s) {  // lists held
    if (Chunk* c = detachChunk(s)) {
      if (c->count > 0) pushFull(c);
      else pushFree(c);
      recycleEpoch.fetch_add(1, std::memory_order_relaxed);
    }
    dropped += s.dropped;
    s.dropped = 0;
    s.starvedAt = 0;
  }
};

// Never destroyed: a union member's destructor runs only when called.
union RecorderStorage {
  constexpr RecorderStorage() : recorder() {}
  ~RecorderStorage() {}
  Recorder recorder;
};
RecorderStorage gStorage;  // constant-initialized (constexpr constructors only)
Recorder& R = gStorage.recorder;

// What a thread's slot pointer holds until its first emit attaches it: no
// chunk, so an emit goes out of line. Its busy flag is written by any
// unattached thread and read by none.
detail::EmitSlot gUnattached;

Slot* attachedSlot() {
  return detail::threadSlot == &gUnattached ? nullptr : static_cast<Slot*>(detail::threadSlot);
}

// Gives the thread's slot back at thread exit, with its partial chunk.
struct ThreadExitHook {
  Slot* slot = nullptr;
  ~ThreadExitHook() {
    if (!slot) return;
    std::lock_guard<std::mutex> lock(R.lists);
    R.publishPartial(*slot);
    slot->inUse = false;
    detail::threadSlot = &gUnattached;
  }
};
thread_local ThreadExitHook tExitHook;

Slot* attachThread() {
  std::lock_guard<std::mutex> lock(R.lists);
  for (std::size_t i = 0; i < kMaxThreads; ++i) {
    Slot& s = R.slots[i];
    if (s.inUse) continue;
    s.inUse = true;
    s.threadId = R.nextThreadId.fetch_add(1, std::memory_order_relaxed) + 1;
    Recorder::attachChunk(s, nullptr);
    s.dropped = 0;
    s.starvedAt = 0;
    if (i + 1 > R.slotsUsed.load(std::memory_order_relaxed))
      R.slotsUsed.store(i + 1, std::memory_order_release);
    detail::threadSlot = &s;
    tExitHook.slot = &s;
    return &s;
  }
  return nullptr;  // more live threads than slots: this one records nothing
}

// The slot's chunk is full or missing: publish it and take a free one. Null
// when none is free; until chunks are recycled, later emits drop without locking.
Chunk* refill(Slot& s) {
  std::uint64_t epoch = R.recycleEpoch.load(std::memory_order_relaxed);
  if (s.starvedAt == epoch && !s.chunk) return nullptr;
  std::lock_guard<std::mutex> lock(R.lists);
  if (Chunk* full = Recorder::detachChunk(s)) R.pushFull(full);
  Recorder::attachChunk(s, R.popFree());
  s.starvedAt = s.chunk ? 0 : R.recycleEpoch.load(std::memory_order_relaxed);
  return s.chunk;
}

bool reserveSlab(std::size_t chunkCount, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  if (chunkCount == 0) return fail("the event recorder needs at least one chunk");
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(chunkCount, sizeof(Chunk), &bytes))
    return fail("the event recorder's slab of " + std::to_string(chunkCount) + " chunks overflows a size");
  if (bytes > kMaxSlabBytes)
    return fail("the event recorder's slab of " + std::to_string(chunkCount) + " chunks (" +
                std::to_string(bytes) + " bytes) is larger than the limit of " +
                std::to_string(kMaxSlabBytes) + " bytes");
  if (R.slab && R.chunkCount == chunkCount) return true;
  if (R.slab) {
    ::operator delete(R.slab, std::align_val_t(alignof(Chunk)));
    R.slab = nullptr;
    R.chunkCount = 0;
  }
  void* memory = ::operator new(bytes, std::align_val_t(alignof(Chunk)), std::nothrow);
  if (!memory)
    return fail("cannot reserve " + std::to_string(bytes) + " bytes for the event recorder's slab");
  R.slab = static_cast<Chunk*>(memory);
  for (std::size_t i = 0; i < chunkCount; ++i) new (&R.slab[i]) Chunk;  // events are trivial
  R.chunkCount = chunkCount;
  return true;
}

}  // namespace

std::uint64_t recorderNow() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

namespace detail {

// Cache-line aligned: read by every emit, written once per capture.
alignas(64) std::atomic<std::int32_t> armedState{kDisarmed};
__thread EmitSlot* threadSlot = &gUnattached;

// Announces again and tests armed sequentially consistently, which pairs with
// endCapture under either fence (the fast path's relaxed announcement is not
// enough for the seq_cst pairing), then stores, taking a new chunk if needed.
// Rare: a thread's first emit, a full chunk (once per 4,096 events), every
// emit under the seq_cst pairing, an emit while disarmed.
bool emitSlow(Event ev) {
  Slot* s = attachedSlot();
  if (!s) {
    if (armedState.load(std::memory_order_relaxed) == kDisarmed) return false;
    if (!(s = attachThread())) return false;  // more live threads than slots
  }
  s->busy.store(true, std::memory_order_seq_cst);
  if (armedState.load(std::memory_order_seq_cst) == kDisarmed) {
    s->busy.store(false, std::memory_order_release);
    return false;
  }
  if (s->cursor == s->end && !refill(*s)) {
    ++s->dropped;
    s->busy.store(false, std::memory_order_release);
    return false;
  }
  storeFields(*s->cursor++, ev);
  s->busy.store(false, std::memory_order_release);
  return true;
}

}  // namespace detail

bool beginCapture(std::size_t chunkCount, std::string* error) {
  std::lock_guard<std::mutex> control(R.control);
  if (detail::armedState.load(std::memory_order_seq_cst) != detail::kDisarmed) {
    if (error) *error = "an event capture is already running; end it before beginning another";
    return false;
  }
  std::lock_guard<std::mutex> lock(R.lists);
  // Unexported events of an earlier capture are discarded here, on purpose.
  std::uint64_t discarded = 0;
  for (Chunk* c = R.fullHead; c; c = c->next) discarded += c->count;
  R.fullHead = R.fullTail = nullptr;
  R.freeList = nullptr;
  if (!reserveSlab(chunkCount, error)) return false;  // stays disarmed
  for (std::size_t i = R.chunkCount; i-- > 0;) R.pushFree(&R.slab[i]);
  R.accepted = 0;
  R.dropped = 0;
  R.discarded = discarded;
  R.recycleEpoch.fetch_add(1, std::memory_order_relaxed);
  if (!R.asymmetricFence.load(std::memory_order_relaxed) && heavyFenceAvailable())
    R.asymmetricFence.store(true, std::memory_order_relaxed);  // before any emit can see armed
  detail::armedState.store(R.asymmetricFence.load(std::memory_order_relaxed) ? detail::kArmedAsymmetric
                                                                              : detail::kArmedSeqCst,
                           std::memory_order_seq_cst);
  return true;
}

CaptureCounts endCapture() {
  std::lock_guard<std::mutex> control(R.control);
  detail::armedState.store(detail::kDisarmed, std::memory_order_seq_cst);
  // The heavy side of the fence. It cannot fail once registered (membarrier(2)
  // lists no such error); if it ever did, later emits go back to seq_cst.
  if (R.asymmetricFence.load(std::memory_order_relaxed) && !heavyFence())
    R.asymmetricFence.store(false, std::memory_order_relaxed);
  std::size_t used = R.slotsUsed.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < used; ++i)
    for (int spins = 0; R.slots[i].busy.load(std::memory_order_seq_cst); ++spins)
      if (spins > 64) std::this_thread::yield();  // an emit is a few nanoseconds: spin first
  std::lock_guard<std::mutex> lock(R.lists);
  for (std::size_t i = 0; i < used; ++i) R.publishPartial(R.slots[i]);
  return {R.accepted, R.dropped, R.discarded};
}

std::size_t drainCapture(const std::function<void(const Event*, std::size_t)>& sink) {
  std::lock_guard<std::mutex> control(R.control);
  Chunk* taken = nullptr;
  {
    std::lock_guard<std::mutex> lock(R.lists);
    taken = R.fullHead;
    R.fullHead = R.fullTail = nullptr;
  }
  std::size_t drained = 0;
  for (Chunk* c = taken; c; c = c->next) {
    for (std::size_t i = 0; i < c->count; ++i) c->events[i].threadId = c->threadId;
    if (c->count) sink(c->events, c->count);
    drained += c->count;
  }
  if (taken) {
    std::lock_guard<std::mutex> lock(R.lists);
    for (Chunk* c = taken; c;) {
      Chunk* next = c->next;
      R.pushFree(c);
      c = next;
    }
    R.recycleEpoch.fetch_add(1, std::memory_order_relaxed);
  }
  return drained;
}

bool captureArmed() { return detail::armedState.load(std::memory_order_acquire) != detail::kDisarmed; }

const void* captureArmedWord() { return &detail::armedState; }
static_assert(sizeof(std::atomic<std::int32_t>) == 4 && std::atomic<std::int32_t>::is_always_lock_free,
              "the FFI reads the armed word as a plain int32_t");

std::uint32_t currentThreadId() {
  Slot* s = attachedSlot();
  if (!s) s = attachThread();
  return s ? s->threadId : 0;
}

bool recorderUsesAsymmetricFence() { return R.asymmetricFence.load(std::memory_order_relaxed); }

std::size_t recorderChunkCount() {
  std::lock_guard<std::mutex> lock(R.lists);
  return R.chunkCount;
}

void emitScopeEvent(ScopeEdge edge, LabelId label, std::uint64_t timeNs, std::int64_t memDelta,
                    std::uint32_t vmId) {
  Event ev;
  ev.timeNs = timeNs;
  ev.vmId = vmId;
  ev.kind = edge == ScopeEdge::Mark ? EventKind::ScopeMark : EventKind::ScopeDone;
  ev.a = static_cast<std::int32_t>(label);
  ev.b = memDelta;
  emitEvent(ev);
}

void emitScopeEvent(ScopeEdge edge, std::string_view label, std::uint64_t timeNs, std::int64_t memDelta,
                    std::uint32_t vmId) {
  if (!captureArmed()) return;
  emitScopeEvent(edge, internLabel(label), timeNs, memDelta, vmId);
}

}  // namespace ljcheck
