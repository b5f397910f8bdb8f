// The Lua binding of the runtime collector, and nothing else: the module
// table (ljcheck.trace, ljcheck.sample, ljcheck.zone, ljcheck.profile), the
// TraceSession userdata (pause, resume, stop) and the TraceReport table
// (fields, `visited` with coverage, tostring = CSV, report:json()). C++ errors
// become Lua errors here, raised only after every C++ object is gone; sample
// sessions live in lua_sample_binding.cpp.
#include "ljcheck/lua_module.h"

#include <new>
#include <optional>
#include <stdexcept>

#include "ljcheck/live_profile.h"
#include "ljcheck/trace_session.h"
#include "lua_api.h"
#include "lua_binding.h"
#include "lua_sample_binding.h"
#include "lua_timeline_binding.h"
#include "zones.h"

namespace ljcheck {
namespace {

constexpr const char* kSessionType = "ljcheck.TraceSession";
constexpr const char* kReportDataType = "ljcheck.TraceReportData";

using binding::guarded;
using binding::setNumber;
using binding::setString;

// The userdata: the live session and, after a stop whose file could not be
// written, the report it built, so the next stop returns it.
struct TraceSlot {
  TraceSession* session = nullptr;
  std::optional<TraceReport> pending;
};

TraceSlot& slotAt(lua_State* L, const char* method) {
  return *static_cast<TraceSlot*>(binding::selfArgument(L, kSessionType, "session", method));
}

TraceSession& liveSession(lua_State* L, const char* method) {
  TraceSlot& slot = slotAt(L, method);
  if (!slot.session) throw TraceSessionError("trace session already stopped");
  return *slot.session;
}

TraceOptions readOptions(lua_State* L, int idx) {
  TraceOptions options;
  if (lua_isnoneornil(L, idx)) return options;
  if (!lua_istable(L, idx)) throw std::runtime_error("ljcheck.trace: options must be a table");
  for (lua_pushnil(L); lua_next(L, idx); lua_pop(L, 1)) {
    std::string key(lua::stringAt(L, -2));
    if (key == "includeBenign" || key == "coverage") {
      if (!lua_isboolean(L, -1))
        throw std::runtime_error("ljcheck.trace: option '" + key + "' must be a boolean");
      (key == "coverage" ? options.coverage : options.includeBenign) = lua_toboolean(L, -1) != 0;
    } else if (key == "root") {
      if (lua_type(L, -1) != LUA_TSTRING)
        throw std::runtime_error("ljcheck.trace: option 'root' must be a string");
      options.root = std::string(lua::stringAt(L, -1));
    } else {
      throw std::runtime_error("ljcheck.trace: unknown option '" +
                               (key.empty() ? std::string("?") : key) + "'");
    }
  }
  return options;
}

// The running script as the standalone interpreter names it: arg[0].
std::string scriptFromArg(lua_State* L) {
  lua_getglobal(L, "arg");
  std::string script;
  if (lua_istable(L, -1)) {
    lua_rawgeti(L, -1, 0);
    script = std::string(lua::stringAt(L, -1));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return script;
}

int trace(lua_State* L) {
  TraceOptions options = readOptions(L, 1);
  options.script = scriptFromArg(L);
  auto* slot = new (lua_newuserdata(L, sizeof(TraceSlot))) TraceSlot();
  luaL_getmetatable(L, kSessionType);
  lua_setmetatable(L, -2);
  slot->session = TraceSession::start(L, std::move(options)).release();
  return 1;
}

int pause(lua_State* L) {
  liveSession(L, "pause").pause();
  return 0;
}

int resume(lua_State* L) {
  liveSession(L, "resume").resume();
  return 0;
}

int reportCsv(lua_State* L) {
  const auto* report = static_cast<const TraceReport*>(lua_touserdata(L, lua_upvalueindex(1)));
  std::string csv = toCsv(*report);
  lua_pushlstring(L, csv.data(), csv.size());
  return 1;
}

int reportJson(lua_State* L) {
  const auto* report = static_cast<const TraceReport*>(lua_touserdata(L, lua_upvalueindex(1)));
  std::string json = toJson(*report);
  lua_pushlstring(L, json.data(), json.size());
  return 1;
}

int reportDataGc(lua_State* L) {
  static_cast<TraceReport*>(luaL_checkudata(L, 1, kReportDataType))->~TraceReport();
  return 0;
}

void pushSite(lua_State* L, const AbortSite& site) {
  lua_createtable(L, 0, 8);
  setString(L, "severity", std::string(toString(site.severity)));
  setNumber(L, "count", static_cast<double>(site.count));
  setString(L, "reason", site.reason);
  setString(L, "reasonId", site.reasonId.str());
  setString(L, "reasonClass", std::string(toString(site.reasonClass)));
  setString(L, "rawReason", site.rawReason);
  setString(L, "location", site.location());
  setString(L, "zonePath", site.zonePath);
  setString(L, "start", site.startLocation());
}

// The report table; its metatable closes over a userdata holding the C++ report.
void pushReport(lua_State* L, TraceReport report) {
  void* memory = lua_newuserdata(L, sizeof(TraceReport));
  const TraceReport* data = new (memory) TraceReport(std::move(report));
  luaL_getmetatable(L, kReportDataType);
  lua_setmetatable(L, -2);
  int dataIndex = lua_gettop(L);

  lua_createtable(L, 0, 8);
  setNumber(L, "durationSec", data->durationSec);
  setNumber(L, "totalAborts", static_cast<double>(data->totalAborts));
  setNumber(L, "blacklisted", static_cast<double>(data->blacklisted));
  lua_createtable(L, static_cast<int>(data->sites.size()), 0);
  for (std::size_t i = 0; i < data->sites.size(); ++i) {
    pushSite(L, data->sites[i]);
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  lua_setfield(L, -2, "sites");
  lua_createtable(L, 0, 3);
  setString(L, "id", data->envelope.traceProfile.id);
  setString(L, "name", data->envelope.traceProfile.name);
  lua_pushboolean(L, data->envelope.traceProfile.supported);
  lua_setfield(L, -2, "supported");
  lua_setfield(L, -2, "traceProfile");
  setString(L, "reasonCatalogId", data->envelope.reasonCatalogId);
  setNumber(L, "reasonCatalogVersion", data->envelope.reasonCatalogVersion);
  setString(L, "root", data->envelope.root);
  if (data->coverage) {
    lua_createtable(L, static_cast<int>(data->visited.size()), 0);
    for (std::size_t i = 0; i < data->visited.size(); ++i) {
      lua_pushlstring(L, data->visited[i].data(), data->visited[i].size());
      lua_rawseti(L, -2, static_cast<int>(i + 1));
    }
    lua_setfield(L, -2, "visited");
  }

  lua_createtable(L, 0, 2);  // the report's metatable
  lua_pushvalue(L, dataIndex);
  lua_pushcclosure(L, guarded<reportCsv>, 1);
  lua_setfield(L, -2, "__tostring");
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, dataIndex);
  lua_pushcclosure(L, guarded<reportJson>, 1);
  lua_setfield(L, -2, "json");
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_remove(L, dataIndex);
}

// ljcheck.profile(): the host VM's recorder profile, read live, as the
// trace report's traceProfile names it, with the facts its id joins.
int profile(lua_State* L) {
  LiveProfile live = readLiveProfile(L);
  lua_createtable(L, 0, 7);
  setString(L, "id", live.id);
  setString(L, "name", live.name);
  lua_pushboolean(L, live.supported);
  lua_setfield(L, -2, "supported");
  setString(L, "version", live.facts.version);
  setString(L, "arch", live.facts.arch);
  setString(L, "os", live.facts.os);
  lua_createtable(L, static_cast<int>(live.facts.jitFlags.size()), 0);
  for (std::size_t i = 0; i < live.facts.jitFlags.size(); ++i) {
    lua_pushlstring(L, live.facts.jitFlags[i].data(), live.facts.jitFlags[i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  lua_setfield(L, -2, "flags");
  return 1;
}

int stop(lua_State* L) {
  TraceSlot& slot = slotAt(L, "stop");
  if (!slot.session) throw TraceSessionError("trace session already stopped");
  std::string filename;
  if (lua_type(L, 2) == LUA_TSTRING) filename = std::string(lua::stringAt(L, 2));
  else if (!lua_isnoneornil(L, 2))
    throw std::runtime_error(std::string("session:stop(filename): filename must be a string, got a ") +
                             luaL_typename(L, 2));
  if (!slot.pending) slot.pending = slot.session->stop(L);
  // A failed write raises and keeps the report: the next stop returns it.
  if (!filename.empty()) writeReportFile(filename, toCsv(*slot.pending));
  TraceReport report = std::move(*slot.pending);
  delete slot.session;
  slot.session = nullptr;
  slot.pending.reset();
  pushReport(L, std::move(report));
  return 1;
}

int sessionToString(lua_State* L) {
  TraceSession* session = static_cast<TraceSlot*>(luaL_checkudata(L, 1, kSessionType))->session;
  const char* state = !session || session->stopped() ? "stopped" : session->paused() ? "paused" : "running";
  lua_pushfstring(L, "%s (%s)", kSessionType, state);
  return 1;
}

int sessionGc(lua_State* L) {
  auto& slot = *static_cast<TraceSlot*>(luaL_checkudata(L, 1, kSessionType));
  if (slot.session) {
    slot.session->cancel(L);
    delete slot.session;
    slot.session = nullptr;
  }
  slot.~TraceSlot();
  return 0;
}

void registerMetatables(lua_State* L) {
  if (luaL_newmetatable(L, kSessionType)) {
    lua_createtable(L, 0, 3);
    lua_pushcfunction(L, guarded<pause>);
    lua_setfield(L, -2, "pause");
    lua_pushcfunction(L, guarded<resume>);
    lua_setfield(L, -2, "resume");
    lua_pushcfunction(L, guarded<stop>);
    lua_setfield(L, -2, "stop");
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, guarded<sessionToString>);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, sessionGc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
  if (luaL_newmetatable(L, kReportDataType)) {
    lua_pushcfunction(L, reportDataGc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
  registerSampleBinding(L);
}

}  // namespace

int openLuaModule(lua_State* L) {
  registerMetatables(L);
  lua_createtable(L, 0, 4);
  pushSampleFunction(L);
  lua_setfield(L, -2, "sample");
  pushZoneFunction(L);
  lua_setfield(L, -2, "zone");
  lua_pushcfunction(L, guarded<trace>);
  lua_setfield(L, -2, "trace");
  lua_pushcfunction(L, guarded<profile>);
  lua_setfield(L, -2, "profile");
  addTimelineFunctions(L);
  return 1;
}

}  // namespace ljcheck
