// A trace session: attaches the C trace handler to one LuaJIT VM, captures
// aborts and trace splits until stop, then aggregates them into a TraceReport.
// At most one trace session is active per process.
#pragma once

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "ljcheck/live_profile.h"
#include "ljcheck/session_error.h"
#include "ljcheck/trace_report.h"

struct lua_State;

namespace ljcheck {

class TraceCapture;
class LocationResolver;

struct TraceOptions {
  bool includeBenign = false;  // also report stop-class reasons such as LINNER, LLEAVE
  std::string root;            // directory locations are made relative to; "" = cwd
  std::string script;          // the hosted script, recorded in the report
  bool coverage = false;       // also record the lines the trace recorder visited
  // At most this many distinct sites are kept; past it, aborts and splits
  // are only counted (CollectorUsage). Bounds the collector's memory.
  std::size_t maxSites = kDefaultMaxSites;
  static constexpr std::size_t kDefaultMaxSites = 10000;
};

class TraceSession {
 public:
  // Attaches the handler to L's VM with jit.attach(handler, "trace"), and
  // with options.coverage a second one with jit.attach(handler, "record").
  static std::unique_ptr<TraceSession> start(lua_State* L, TraceOptions options);
  ~TraceSession();
  TraceSession(const TraceSession&) = delete;
  TraceSession& operator=(const TraceSession&) = delete;

  // While paused, aborts and splits are not counted.
  void pause();
  void resume();
  bool paused() const;
  bool stopped() const { return stopped_; }

  // Detaches the handler and builds the report. Throws when already stopped.
  TraceReport stop(lua_State* L);
  // Detaches the handler without a report (finalizers); never throws.
  void cancel(lua_State* L) noexcept;
  // The process is exiting with the VM still open (os.exit without closing
  // it): frees the capture without touching the VM. The handler stays
  // attached and ignores events from then on (exit_release.h).
  void abandon() noexcept;

  const LiveProfile& profile() const { return profile_; }
  const TraceOptions& options() const { return options_; }

 private:
  TraceSession(TraceOptions options, LiveProfile profile);
  void detach(lua_State* L);
  void detachHandlers(lua_State* L);

  TraceOptions options_;
  LiveProfile profile_;
  std::unique_ptr<LocationResolver> locations_;
  std::unique_ptr<TraceCapture> capture_;
  int handlerRef_ = -2;        // LUA_NOREF
  int recordHandlerRef_ = -2;  // LUA_NOREF unless options_.coverage
  int chainedRef_ = -2;        // the "trace" handler ours replaced (-jv's), restored at stop
  int recordChainedRef_ = -2;  // the "record" handler ours replaced (-jdump's)
  bool stopped_ = false;
  std::chrono::steady_clock::time_point startedAt_;
};

}  // namespace ljcheck
