// The Lua binding of the runtime collector, and nothing else: the module
// table (ljcheck.trace, ljcheck.sample, ljcheck.zone, ljcheck.scope,
// ljcheck.profile), the TraceSession userdata (pause, resume, stop:
// session_slot.h) and the TraceReport table (fields, `visited` with coverage,
// tostring = CSV, report:json()); scopes live in scope_binding.cpp. C++ errors
// become Lua errors here, raised only after every C++ object is gone; sample
// sessions live in lua_sample_binding.cpp.
#include "ljcheck/lua_module.h"

#include <new>
#include <stdexcept>

#include "ljcheck/live_profile.h"
#include "ljcheck/sample_report.h"
#include "ljcheck/site_cost.h"
#include "ljcheck/trace_session.h"
#include "lua_api.h"
#include "lua_binding.h"
#include "lua_sample_binding.h"
#include "scope_binding.h"
#include "session_slot.h"
#include "lua_timeline_binding.h"
#include "zones.h"

namespace ljcheck {
namespace {

constexpr const char* kTraceReportDataType = "ljcheck.TraceReportData";

using binding::guarded;
using binding::setNumber;
using binding::setString;

struct TraceKind {
  using Session = TraceSession;
  using Report = TraceReport;
  static constexpr const char* kType = "ljcheck.TraceSession";
  static constexpr const char* kStopped = "trace session already stopped";
  static std::string fileText(const TraceReport& report) { return toCsv(report); }
};
using TraceSlot = SessionSlot<TraceKind>;

// The C++ report behind a report table, freed at process exit if Lua has not.
struct TraceReportData final : ReleasedAtExit {
  explicit TraceReportData(TraceReport r) : report(std::move(r)) {}
  void releaseAtExit() noexcept override {  // destroyed, not assigned: assignment may keep string capacity
    report.~TraceReport();
    new (&report) TraceReport();
  }
  TraceReport report;
};

TraceOptions readTraceOptions(lua_State* L, int idx) {
  TraceOptions options;
  if (lua_isnoneornil(L, idx)) return options;
  if (!lua_istable(L, idx))
    throw std::runtime_error("ljcheck.trace: options must be a table, got " + binding::givenType(L, idx));
  for (lua_pushnil(L); lua_next(L, idx); lua_pop(L, 1)) {
    std::string key(lua::stringAt(L, -2));
    if (key == "includeBenign" || key == "coverage") {
      if (!lua_isboolean(L, -1))
        throw std::runtime_error("ljcheck.trace: option '" + key + "' must be a boolean, got " +
                                 binding::givenType(L, -1));
      (key == "coverage" ? options.coverage : options.includeBenign) = lua_toboolean(L, -1) != 0;
    } else if (key == "maxSites") {
      lua_Number n = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
      if (!(n >= 1 && n <= 1e9) || n != static_cast<lua_Number>(static_cast<long long>(n)))
        throw std::runtime_error(std::string("ljcheck.trace: option 'maxSites' must be a whole number from 1 to "
                                             "1000000000, got ") +
                                 (lua_type(L, -1) == LUA_TNUMBER ? std::string(lua_tostring(L, -1))
                                                                 : binding::givenType(L, -1)));
      options.maxSites = static_cast<std::size_t>(n);
    } else if (key == "root") {
      options.root = binding::rootOption(L, "ljcheck.trace");
    } else {
      throw std::runtime_error("ljcheck.trace: unknown option '" + (key.empty() ? std::string("?") : key) +
                               "' (known: includeBenign, coverage, maxSites, root)");
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
  TraceOptions options = readTraceOptions(L, 1);
  options.script = scriptFromArg(L);
  TraceSlot& slot = TraceSlot::push(L);
  slot.session = TraceSession::start(L, std::move(options)).release();
  return 1;
}

int reportCsv(lua_State* L) {
  const auto* data = static_cast<const TraceReportData*>(lua_touserdata(L, lua_upvalueindex(1)));
  std::string csv = toCsv(data->report);
  lua_pushlstring(L, csv.data(), csv.size());
  return 1;
}

// report:json([samples]): the runtime JSON; with the SampleReport of a
// sample session that ran beside, also site costs and the samples (stacks
// by VM state included), as `ljcheck run --json --sample` writes.
// Whether argument 1 is the report whose json method holds `data`: a call
// with a dot (report.json(samples)) passes something else there.
bool isReportOf(lua_State* L, const void* data) {
  if (!lua_istable(L, 1) || !lua_getmetatable(L, 1)) return false;
  lua_getfield(L, -1, "__index");
  bool same = false;
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "json");
    if (lua_iscfunction(L, -1) && lua_getupvalue(L, -1, 1)) {
      same = lua_touserdata(L, -1) == data;
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 2);
  return same;
}

int reportJson(lua_State* L) {
  const auto* data = static_cast<const TraceReportData*>(lua_touserdata(L, lua_upvalueindex(1)));
  if (!isReportOf(L, data))
    throw std::runtime_error(std::string("report.json was called without its report (argument #1 is a ") +
                             luaL_typename(L, 1) + "): call it with a colon, report:json(...)");
  const TraceReport* report = &data->report;
  if (lua_isnoneornil(L, 2)) {
    std::string json = toJson(*report);
    lua_pushlstring(L, json.data(), json.size());
    return 1;
  }
  const SampleReport* samples = sampleReportAt(L, 2);
  if (!samples)
    throw std::runtime_error("report:json(samples): samples must be the report a sample session's stop() returned, "
                             "got " + binding::givenType(L, 2));
  TraceReport costed = *report;
  addSiteCosts(costed, *samples);
  std::string json = toJson(costed, samples);
  lua_pushlstring(L, json.data(), json.size());
  return 1;
}

int traceReportDataGc(lua_State* L) {
  static_cast<TraceReportData*>(luaL_checkudata(L, 1, kTraceReportDataType))->~TraceReportData();
  return 0;
}

void pushSite(lua_State* L, const AbortSite& site) {
  lua_createtable(L, 0, 10);
  setString(L, "severity", std::string(toString(site.severity)));
  setNumber(L, "count", static_cast<double>(site.count));
  setString(L, "reason", site.reason);
  setString(L, "reasonId", site.reasonId.str());
  setString(L, "reasonClass", std::string(toString(site.reasonClass)));
  setString(L, "rawReason", site.rawReason);
  setString(L, "location", site.location());
  setString(L, "zonePath", site.zonePath);
  setString(L, "start", site.startLocation());
  lua_pushboolean(L, site.fallback);
  lua_setfield(L, -2, "fallback");
}

// The report table; its metatable closes over a userdata holding the C++ report.
void pushReport(lua_State* L, TraceReport report) {
  void* memory = lua_newuserdata(L, sizeof(TraceReportData));
  const TraceReport* data = &(new (memory) TraceReportData(std::move(report)))->report;
  luaL_getmetatable(L, kTraceReportDataType);
  lua_setmetatable(L, -2);
  int dataIndex = lua_gettop(L);

  lua_createtable(L, 0, 8);
  setNumber(L, "durationSec", data->durationSec);
  setNumber(L, "totalAborts", static_cast<double>(data->totalAborts));
  setNumber(L, "blacklisted", static_cast<double>(data->blacklisted));
  setNumber(L, "fallbackExits", static_cast<double>(data->fallbackExits));
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
  lua_createtable(L, 0, 5);
  setNumber(L, "maxSites", static_cast<double>(data->collector.maxSites));
  lua_pushboolean(L, data->collector.limitReached);
  lua_setfield(L, -2, "limitReached");
  setNumber(L, "overflowAborts", static_cast<double>(data->collector.overflowAborts));
  setNumber(L, "overflowSplits", static_cast<double>(data->collector.overflowSplits));
  setNumber(L, "memoryBytes", static_cast<double>(data->collector.memoryBytes));
  lua_setfield(L, -2, "collector");
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
  binding::noArguments(L, "ljcheck.profile");
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

int stopTracing(lua_State* L) {
  TraceSlot& slot = TraceSlot::self(L, "stop");
  if (!slot.session) throw SessionError(TraceKind::kStopped);
  pushReport(L, slot.finishStop(L, binding::filenameArgument(L, 2)));
  return 1;
}

void registerMetatables(lua_State* L) {
  if (luaL_newmetatable(L, TraceKind::kType)) {
    TraceSlot::pushMethods(L, guarded<stopTracing>);
    lua_setfield(L, -2, "__index");
    TraceSlot::setMetamethods(L);
  }
  lua_pop(L, 1);
  if (luaL_newmetatable(L, kTraceReportDataType)) {
    lua_pushcfunction(L, traceReportDataGc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
  registerSampleBinding(L);
}

}  // namespace

int openLuaModule(lua_State* L) {
  registerMetatables(L);
  lua_createtable(L, 0, 5);
  pushSampleFunction(L);
  lua_setfield(L, -2, "sample");
  pushZoneFunction(L);
  lua_setfield(L, -2, "zone");
  pushScopeTable(L);
  lua_setfield(L, -2, "scope");
  lua_pushcfunction(L, guarded<trace>);
  lua_setfield(L, -2, "trace");
  lua_pushcfunction(L, guarded<profile>);
  lua_setfield(L, -2, "profile");
  addTimelineFunctions(L);
  return 1;
}

}  // namespace ljcheck
