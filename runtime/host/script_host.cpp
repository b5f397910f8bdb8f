// The script host (see ljcheck/script_host.h). The script sees the standard
// libraries, `arg` as the luajit binary sets it, and require("ljcheck") from
// package.preload; os.exit is wrapped so the reports are written first.
#include "ljcheck/script_host.h"

#include <csignal>
#include <cstdio>
#include <memory>
#include <stdexcept>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include "ljcheck/lua_module.h"
#include "ljcheck/sample_session.h"
#include "ljcheck/site_cost.h"
#include "ljcheck/timeline.h"
#include "ljcheck/trace_exit_hook.h"
#include "ljcheck/trace_session.h"

namespace ljcheck {
namespace {

// What runs around the script; reached from the os.exit wrapper too.
struct Host {
  const RunOptions& options;
  lua_State* L = nullptr;
  std::unique_ptr<TraceSession> session;
  std::unique_ptr<SampleSession> sampler;
  std::unique_ptr<TimelineCapture> timeline;
  TraceExitHook exits;  // while the timeline runs
  bool reported = false;

  // Stops the sessions and writes the requested files, once; false on an I/O error.
  bool finish() {
    if (reported || !session) return true;
    reported = true;
    try {
      SampleReport samples;
      if (sampler) samples = sampler->stop(L);
      TraceReport report = session->stop(L);
      std::string timelineJson;
      exits.detach(L);
      if (timeline)
        timelineJson = toChromeTraceJson(timeline->finish(), timelineNaming(session->profile(), session->options().root));
      if (!options.timelineOut.empty()) writeReportFile(options.timelineOut, timelineJson);
      if (sampler) addSiteCosts(report, samples);
      if (!options.quiet) std::fputs(runSummary(report, sampler ? &samples : nullptr).c_str(), stderr);
      if (!options.traceCsv.empty()) writeReportFile(options.traceCsv, toCsv(report));
      if (!options.jsonOut.empty()) writeReportFile(options.jsonOut, toJson(report, sampler ? &samples : nullptr));
      if (!options.sampleOut.empty()) writeReportFile(options.sampleOut, samples.collapsedText());
      if (!options.speedscopeOut.empty())
        writeReportFile(options.speedscopeOut,
                        addEventedProfiles(toSpeedscopeJson(samples, options.script), timelineJson));
      return true;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ljcheck run: %s\n", e.what());
      return false;
    }
  }
};

// Ctrl-C (SIGINT) and SIGTERM stop the script as luajit's own host does: a
// hook raises "interrupted" at the next instruction the interpreter runs,
// the script unwinds, and the reports are written for the run so far. A
// second signal before that ends the process (the default action). Code
// running in a trace that never exits notices only when the trace exits.
lua_State* gInterruptible = nullptr;
volatile std::sig_atomic_t gInterruptedBy = 0;

void stopAtNextInstruction(lua_State* L, lua_Debug*) {
  lua_sethook(L, nullptr, 0, 0);
  luaL_where(L, 0);
  lua_pushfstring(L, "%sinterrupted by %s", lua_tostring(L, -1), gInterruptedBy == SIGTERM ? "SIGTERM" : "SIGINT");
  lua_error(L);
}

void onInterrupt(int signo) {
  std::signal(signo, SIG_DFL);
  gInterruptedBy = signo;
  if (gInterruptible) lua_sethook(gInterruptible, stopAtNextInstruction, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

// Catches SIGINT and SIGTERM while the script runs; a signal the parent
// ignores (a background job's SIGINT, nohup) stays ignored. Restores the
// previous actions when it goes out of scope.
class InterruptGuard {
 public:
  explicit InterruptGuard(lua_State* L) {
    gInterruptible = L;
    gInterruptedBy = 0;
    for (int i = 0; i < 2; ++i) {
      struct sigaction action {};
      action.sa_handler = onInterrupt;
      sigemptyset(&action.sa_mask);
      sigaction(kSignals[i], nullptr, &previous_[i]);
      if (previous_[i].sa_handler != SIG_IGN) sigaction(kSignals[i], &action, nullptr);
    }
  }
  ~InterruptGuard() {
    for (int i = 0; i < 2; ++i) sigaction(kSignals[i], &previous_[i], nullptr);
    gInterruptible = nullptr;
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  static constexpr int kSignals[2] = {SIGINT, SIGTERM};
  struct sigaction previous_[2] {};
};

struct StateCloser {
  void operator()(lua_State* L) const { lua_close(L); }
};

// os.exit replacement: write the reports, then call the original os.exit.
int exitAfterReports(lua_State* L) {
  // A report that cannot be written is run's own failure (kRunFailed), as
  // at a normal end: the script's status would hide it.
  if (!static_cast<Host*>(lua_touserdata(L, lua_upvalueindex(1)))->finish()) {
    if (lua_gettop(L) == 0) lua_pushnil(L);
    lua_pushinteger(L, kRunFailed);
    lua_replace(L, 1);  // os.exit's `close` argument stays
  }
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 0);
  return 0;
}

void wrapOsExit(lua_State* L, Host* host) {
  lua_getglobal(L, "os");
  lua_pushlightuserdata(L, host);
  lua_getfield(L, -2, "exit");
  lua_pushcclosure(L, exitAfterReports, 2);
  lua_setfield(L, -2, "exit");
  lua_pop(L, 1);
}

void preloadModule(lua_State* L) {
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, openLuaModule);
  lua_setfield(L, -2, "ljcheck");
  lua_pop(L, 2);
}

// arg[0] = script, arg[1..n] = args, arg[-1] = the host, as luajit does.
void setArgTable(lua_State* L, const RunOptions& options) {
  lua_createtable(L, static_cast<int>(options.args.size()), 2);
  lua_pushstring(L, "ljcheck");
  lua_rawseti(L, -2, -1);
  lua_pushstring(L, options.script.c_str());
  lua_rawseti(L, -2, 0);
  for (std::size_t i = 0; i < options.args.size(); ++i) {
    lua_pushstring(L, options.args[i].c_str());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  lua_setglobal(L, "arg");
}

// Message handler: the error with a traceback.
int traceback(lua_State* L) {
  if (lua_type(L, 1) != LUA_TSTRING && lua_type(L, 1) != LUA_TNUMBER) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  } else {
    lua_pushvalue(L, 1);
  }
  luaL_traceback(L, L, lua_tostring(L, -1), 1);
  return 1;
}

// Loads the script; on failure prints why and returns the exit status.
int loadScript(lua_State* L, const std::string& script) {
  int status = luaL_loadfile(L, script.c_str());
  if (status == 0) return 0;
  const char* message = lua_tostring(L, -1);
  std::fprintf(stderr, "ljcheck run: %s\n", message ? message : script.c_str());
  return status == LUA_ERRFILE ? kScriptNotFound : kScriptFailed;
}

}  // namespace

int runScript(const RunOptions& options) {
  std::unique_ptr<lua_State, StateCloser> state(luaL_newstate());
  if (!state) {
    std::fprintf(stderr, "ljcheck run: cannot create a Lua state\n");
    return kRunFailed;
  }
  lua_State* L = state.get();
  luaL_openlibs(L);
  preloadModule(L);
  setArgTable(L, options);
  Host host{options, L, nullptr, nullptr, nullptr, {}, false};
  wrapOsExit(L, &host);

  for (const std::string* out : {&options.traceCsv, &options.jsonOut, &options.sampleOut, &options.speedscopeOut,
                                 &options.timelineOut})
    if (!out->empty())
      if (std::string problem = reportFileProblem(*out); !problem.empty()) {
        std::fprintf(stderr, "ljcheck run: %s (nothing was run)\n", problem.c_str());
        return kRunFailed;
      }
  lua_pushcfunction(L, traceback);
  int handler = lua_gettop(L);
  if (int status = loadScript(L, options.script)) return status;
  for (const std::string& a : options.args) lua_pushstring(L, a.c_str());

  try {
    // The speedscope file's evented profiles (zones, scopes) come from the timeline too.
    if (!options.timelineOut.empty() || !options.speedscopeOut.empty()) {
      host.timeline = TimelineCapture::start();
      host.exits.attach(L);
      nameThread("main");
      nameVm(vmIdOf(L), options.script);
    }
    host.session = TraceSession::start(
        L, {options.includeBenign, options.root, options.script, options.coverage, options.maxSites});
    if (options.sample)
      host.sampler = SampleSession::start(
          L, {options.intervalMs, options.stackDepth, "", "", options.root, options.compiledStacks});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ljcheck run: %s\n", e.what());
    return kRunFailed;
  }
  int exitStatus = kScriptRan;
  int interruptedBy = 0;
  {
    InterruptGuard interrupts(L);
    if (lua_pcall(L, static_cast<int>(options.args.size()), 0, handler) != 0) {
      const char* message = lua_tostring(L, -1);
      std::fprintf(stderr, "ljcheck run: %s\n", message ? message : "(error)");
      exitStatus = kScriptFailed;
    }
    interruptedBy = gInterruptedBy;
  }
  if (interruptedBy) {
    std::fprintf(stderr, "ljcheck run: %s: the reports cover the run up to the interrupt\n",
                 interruptedBy == SIGTERM ? "terminated (SIGTERM)" : "interrupted (SIGINT)");
    exitStatus = 128 + interruptedBy;  // as a shell reports a process a signal ended
  }
  if (!host.finish()) return kRunFailed;
  return exitStatus;
}

}  // namespace ljcheck
