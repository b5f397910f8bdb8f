// The timeline: an event capture that runs beside a script (a collector
// thread drains the recorder's full chunks while it runs), and its export as
// Chrome Trace Event JSON, which chrome://tracing, Perfetto and speedscope
// load. Zones and scopes become B/E slices, strictly nested per thread; trace
// recordings become X slices on a "trace recorder" lane of their thread;
// aborts are `i` instants with reasonId, location and zone in args; the Lua
// heap is a `C` counter; ts is in microseconds from the capture's start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ljcheck/event_recorder.h"
#include "ljcheck/live_profile.h"

struct lua_State;

namespace ljcheck {

// The VM's id in events (1, 2, ...; given on the VM's first use of the module).
std::uint32_t vmIdOf(lua_State* L);

class TimelineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a finished capture holds: every drained event, and the counts.
struct TimelineEvents {
  std::vector<Event> events;
  CaptureCounts counts;
  std::uint64_t beganNs = 0;
};

struct CollectorSync;

class TimelineCapture {
 public:
  static constexpr std::size_t kDefaultChunks = 64;  // 64 x 4,096 events, 10 MiB
  // Begins the recorder's capture; throws TimelineError when a capture is
  // running already or the slab cannot be reserved (capture stays disarmed).
  static std::unique_ptr<TimelineCapture> start(std::size_t chunks = kDefaultChunks);
  ~TimelineCapture();  // ends the capture if finish was not called
  TimelineCapture(const TimelineCapture&) = delete;
  TimelineCapture& operator=(const TimelineCapture&) = delete;

  // Ends the capture, drains what is left and returns everything; once.
  TimelineEvents finish();
  bool finished() const { return finished_; }

 private:
  TimelineCapture() = default;
  void collect();

  std::thread collector_;
  bool finished_ = false;
  std::unique_ptr<CollectorSync> sync_;
  TimelineEvents out_;
};

// How the writer names what events refer to by number.
struct TimelineNaming {
  // reasonId of an abort's (trace-error code, subject); "" leaves it raw.
  std::function<std::string(int code, int subject)> reasonIdOf;
  // A chunk name ("@app.lua") as a report path ("app.lua").
  std::function<std::string(const std::string& chunkName)> displayPath;
};

// Names through the VM's recorder profile and the registry (reasonIds), with
// paths relative to root ("" = the working directory).
TimelineNaming timelineNaming(const LiveProfile& profile, const std::string& root);

std::string toChromeTraceJson(const TimelineEvents& captured, const TimelineNaming& naming);

// speedscopeJson (the sampler's speedscope file) with one evented profile
// added per thread that has zone or scope slices in chromeTraceJson.
std::string addEventedProfiles(const std::string& speedscopeJson, const std::string& chromeTraceJson);

}  // namespace ljcheck
