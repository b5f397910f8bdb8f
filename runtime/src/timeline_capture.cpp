// A timeline capture (see ljcheck/timeline.h): begins the recorder's capture
// and runs a collector thread that drains full chunks every few milliseconds,
// so that the pool is recycled while the script runs; finish ends the
// capture (which publishes every partial chunk) and drains the rest.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>

#include "ljcheck/event_recorder.h"
#include "ljcheck/scope_hook.h"
#include "ljcheck/timeline.h"

namespace ljcheck {

struct CollectorSync {
  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
};

namespace {
constexpr auto kCollectEvery = std::chrono::milliseconds(5);

// Scopes (ljcheck.scope) become recorder events: installed at the first
// timeline and left in place (replacing a hook while VMs run is not atomic);
// without a capture armed, emitScopeEvent drops the event at once.
// A mark carries the heap at the mark (the timeline's heapBytes and its
// heap counter), a done the scope's own delta (event_recorder.h).
void scopeToRecorder(const ScopeEvent& event, void*) {
  const bool mark = event.kind == ScopeEventKind::mark;
  emitScopeEvent(mark ? ScopeEdge::Mark : ScopeEdge::Done, event.label, static_cast<std::uint64_t>(event.timeNs),
                 mark ? event.heapBytes : event.memDelta, event.vmId);
}
}  // namespace

std::unique_ptr<TimelineCapture> TimelineCapture::start(std::size_t chunks) {
  std::string error;
  std::unique_ptr<TimelineCapture> capture(new TimelineCapture());
  capture->out_.beganNs = recorderNow();
  capture->finished_ = true;  // until the collector runs, there is nothing to finish
  static const bool hooked = (setScopeHook(scopeToRecorder, nullptr), true);
  (void)hooked;
  if (!beginCapture(chunks, &error)) throw TimelineError("cannot start the timeline: " + error);
  try {
    capture->sync_ = std::make_unique<CollectorSync>();
    capture->collector_ = std::thread([c = capture.get()] { c->collect(); });
    capture->finished_ = false;
  } catch (...) {
    endCapture();
    throw TimelineError("cannot start the timeline's collector thread");
  }
  return capture;
}

void TimelineCapture::collect() {
  nameThread("ljcheck timeline collector");
  auto keep = [this](const Event* events, std::size_t n) { out_.events.insert(out_.events.end(), events, events + n); };
  std::unique_lock<std::mutex> lock(sync_->mutex);
  while (!sync_->stop) {
    lock.unlock();
    try {
      drainCapture(keep);
    } catch (const std::bad_alloc&) {
      // Out of memory: these chunks' events are lost, the capture goes on.
    }
    lock.lock();
    sync_->wake.wait_for(lock, kCollectEvery, [this] { return sync_->stop; });
  }
}

TimelineEvents TimelineCapture::finish() {
  if (finished_) throw TimelineError("the timeline was already stopped");
  finished_ = true;
  {
    std::lock_guard<std::mutex> lock(sync_->mutex);
    sync_->stop = true;
  }
  sync_->wake.notify_all();
  collector_.join();
  out_.counts = endCapture();
  drainCapture([this](const Event* events, std::size_t n) { out_.events.insert(out_.events.end(), events, events + n); });
  return std::move(out_);
}

TimelineCapture::~TimelineCapture() {
  if (finished_) return;
  try {
    finish();
  } catch (...) {
    // Ending a capture in a destructor: nothing to report to.
  }
}

}  // namespace ljcheck
