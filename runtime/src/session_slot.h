// The userdata behind a session object in Lua, one template for both kinds:
// the live session and, after a stop whose file could not be written, the
// report it built, so the next stop returns it. What the trace binding
// (lua_module.cpp) and the sample binding (lua_sample_binding.cpp) do alike
// lives here: the userdata and its lookup as `self`, pause, resume, the end
// of stop, tostring, __gc, and the release at process exit. Kind names the
// session and report types, the metatable, and the text stop(filename) writes.
#pragma once

#include <new>
#include <optional>
#include <string>
#include <utility>

#include "exit_release.h"
#include "ljcheck/trace_session.h"
#include "lua_binding.h"

namespace ljcheck {

template <class Kind>
class SessionSlot final : public ReleasedAtExit {
 public:
  using Session = typename Kind::Session;
  using Report = typename Kind::Report;

  Session* session = nullptr;   // null once stopped
  std::optional<Report> pending;

  // Pushes a new, empty slot with Kind's metatable.
  static SessionSlot& push(lua_State* L) {
    auto* slot = new (lua_newuserdata(L, sizeof(SessionSlot))) SessionSlot();
    luaL_getmetatable(L, Kind::kType);
    lua_setmetatable(L, -2);
    return *slot;
  }

  // The slot at argument 1, or an error that shows the colon call.
  static SessionSlot& self(lua_State* L, const char* method) {
    return *static_cast<SessionSlot*>(binding::selfArgument(L, Kind::kType, "session", method));
  }

  static Session& live(lua_State* L, const char* method) {
    SessionSlot& slot = self(L, method);
    if (!slot.session) throw SessionError(Kind::kStopped);
    return *slot.session;
  }

  static int pause(lua_State* L) {
    live(L, "pause").pause();
    return 0;
  }

  static int resume(lua_State* L) {
    live(L, "resume").resume();
    return 0;
  }

  // The end of stop: the report (built once), written to filename when one
  // is given, then the session is gone. A failed write raises and keeps the
  // report: the next stop returns it.
  Report finishStop(lua_State* L, const std::string& filename) {
    if (!pending) pending = session->stop(L);
    if (!filename.empty()) writeReportFile(filename, Kind::fileText(*pending));
    Report report = std::move(*pending);
    pending.reset();
    delete session;
    session = nullptr;
    return report;
  }

  static int toString(lua_State* L) {
    const Session* s = static_cast<SessionSlot*>(luaL_checkudata(L, 1, Kind::kType))->session;
    const char* state = !s ? "stopped" : s->paused() ? "paused" : "running";
    lua_pushfstring(L, "%s (%s)", Kind::kType, state);
    return 1;
  }

  // __gc: a session never stopped lets go of the VM (no report).
  static int gc(lua_State* L) {
    auto* slot = static_cast<SessionSlot*>(luaL_checkudata(L, 1, Kind::kType));
    if (slot->session) slot->session->cancel(L);
    slot->~SessionSlot();
    return 0;
  }

  // The {pause, resume, stop} table of methods, pushed.
  static void pushMethods(lua_State* L, lua_CFunction stop) {
    lua_createtable(L, 0, 3);
    lua_pushcfunction(L, binding::guarded<pause>);
    lua_setfield(L, -2, "pause");
    lua_pushcfunction(L, binding::guarded<resume>);
    lua_setfield(L, -2, "resume");
    lua_pushcfunction(L, stop);
    lua_setfield(L, -2, "stop");
  }

  // __tostring and __gc into the metatable on top of the stack.
  static void setMetamethods(lua_State* L) {
    lua_pushcfunction(L, binding::guarded<toString>);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
  }

  ~SessionSlot() override { delete session; }

  // os.exit without lua_close: free the capture and any unsaved report, the
  // VM untouched. A session open then ends without a report.
  void releaseAtExit() noexcept override {
    if (session) session->abandon();
    delete session;
    session = nullptr;
    pending.reset();
  }

 private:
  SessionSlot() = default;
};

}  // namespace ljcheck
