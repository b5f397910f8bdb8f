// A sample session: LuaJIT's own low-overhead profiler (luaJIT_profile_start,
// taken from the host process) samples the running VM every intervalMs; each
// sample keeps its stack, the zone path open and the VM state. At most one
// sample session per process (LuaJIT's profiler is process-wide); it may run
// beside a trace session.
#pragma once

#include <memory>
#include <string>

#include "ljcheck/sample_report.h"
#include "ljcheck/trace_session.h"

struct lua_State;

namespace ljcheck {

class SampleCapture;
class LocationResolver;

// Where a sample taken while a trace runs gets its stack.
enum class CompiledStacks {
  // At the trace's next exit: traces are left as they are (no flush at
  // start, no profiler checks compiled into them), so the collector observes
  // the program's own traces; a sample in compiled code is placed where the
  // trace next leaves.
  AtTraceExit,
  // At the next function boundary in the trace (LuaJIT's profiler mode 'f',
  // jit.p's default): every trace is flushed at start and new traces check
  // for the profiler at each function entry and return.
  AtFunctionBoundary,
};

struct SampleOptions {
  int intervalMs = 10;
  int stackDepth = 16;
  std::string zone;        // keep only samples whose zone path starts with it ("" = all)
  std::string rootModule;  // drop the callers of this module's outermost frame ("" = none)
  std::string root;        // directory paths are shown relative to ("" = cwd)
  CompiledStacks compiledStacks = CompiledStacks::AtTraceExit;
};

// "exit" / "function", the option's spelling in Lua and on the command line.
const char* compiledStacksName(CompiledStacks where);

class SampleSession {
 public:
  // Starts LuaJIT's profiler on L's VM. Throws SessionError when a sample
  // session is already running or the host exports no profiler.
  static std::unique_ptr<SampleSession> start(lua_State* L, SampleOptions options);
  ~SampleSession();
  SampleSession(const SampleSession&) = delete;
  SampleSession& operator=(const SampleSession&) = delete;

  // While paused the timer keeps firing and samples are dropped. Idempotent.
  void pause();
  void resume();
  bool paused() const;
  bool stopped() const { return stopped_; }
  const SampleOptions& options() const { return options_; }

  // Stops the profiler and builds the report. Throws when already stopped.
  SampleReport stop(lua_State* L);
  // Stops the profiler without a report (finalizers); never throws.
  void cancel(lua_State* L) noexcept;
  // The process is exiting with the VM still open: frees the capture
  // without touching the VM; the profiler callback ignores samples from then on.
  void abandon() noexcept;

 private:
  explicit SampleSession(SampleOptions options);

  SampleOptions options_;
  std::unique_ptr<LocationResolver> locations_;
  std::unique_ptr<SampleCapture> capture_;
  bool stopped_ = false;
  // Process CPU time sampled so far, and when the running stretch began.
  double cpuMs_ = 0, runningSince_ = 0;
};

}  // namespace ljcheck
