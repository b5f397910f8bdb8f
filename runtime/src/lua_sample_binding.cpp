// The Lua binding of sample sessions: ljcheck.sample(opts), the SampleSession
// userdata (fields intervalMs, zoneFilter, root, compiledStacks, paused, stopped; methods
// pause, resume, stop: session_slot.h) and the SampleReport table (tostring =
// collapsed text).
#include "lua_sample_binding.h"

#include <stdexcept>

#include "ljcheck/sample_session.h"
#include "lua_binding.h"
#include "exit_release.h"
#include "session_slot.h"
#include "zones.h"

namespace ljcheck {
namespace {

using binding::givenType;
using binding::setNumber;
using binding::setString;

// The userdata in a SampleReport table's metatable that holds the C++ report
// (a trace report's json(samples) reads it).
constexpr const char* kSampleReportDataType = "ljcheck.SampleReportData";
constexpr const char* kReportDataKey = "__ljcheck_samples";

// The held report, freed at a plain os.exit like the module's other objects
// in Lua memory (exit_release.h).
struct SampleReportData final : ReleasedAtExit {
  explicit SampleReportData(SampleReport r) : report(std::move(r)) {}
  void releaseAtExit() noexcept override {  // destroyed, not assigned: assignment may keep capacity
    report.~SampleReport();
    new (&report) SampleReport();
  }
  SampleReport report;
};

struct SampleKind {
  using Session = SampleSession;
  using Report = SampleReport;
  static constexpr const char* kType = "ljcheck.SampleSession";
  static constexpr const char* kStopped = "sample session already stopped";
  static std::string fileText(const SampleReport& report) { return report.collapsedText(); }
};
using SampleSlot = SessionSlot<SampleKind>;

int intOption(lua_State* L, const std::string& key) {
  if (lua_type(L, -1) != LUA_TNUMBER)
    throw std::runtime_error("ljcheck.sample: option '" + key + "' must be a number, got " + givenType(L, -1));
  lua_Number value = lua_tonumber(L, -1);
  if (value < 1 || value > 1e6 || value != static_cast<lua_Number>(static_cast<int>(value)))
    throw std::runtime_error("ljcheck.sample: option '" + key + "' must be a whole number from 1 to 1000000");
  return static_cast<int>(value);
}

std::string stringOption(lua_State* L, const std::string& key) {
  if (lua_type(L, -1) != LUA_TSTRING)
    throw std::runtime_error("ljcheck.sample: option '" + key + "' must be a string, got " + givenType(L, -1));
  return std::string(lua::stringAt(L, -1));
}

CompiledStacks compiledStacksOption(lua_State* L, const std::string& key) {
  std::string name = stringOption(L, key);
  if (name == compiledStacksName(CompiledStacks::AtTraceExit)) return CompiledStacks::AtTraceExit;
  if (name == compiledStacksName(CompiledStacks::AtFunctionBoundary)) return CompiledStacks::AtFunctionBoundary;
  throw std::runtime_error("ljcheck.sample: option '" + key + "' must be \"exit\" or \"function\", got \"" +
                           name + "\"");
}

SampleOptions readSampleOptions(lua_State* L, int idx) {
  SampleOptions options;
  if (lua_isnoneornil(L, idx)) return options;
  if (!lua_istable(L, idx))
    throw std::runtime_error("ljcheck.sample: options must be a table, got " + givenType(L, idx));
  for (lua_pushnil(L); lua_next(L, idx); lua_pop(L, 1)) {
    if (lua_type(L, -2) != LUA_TSTRING) throw std::runtime_error("ljcheck.sample: option names must be strings");
    std::string key(lua::stringAt(L, -2));
    if (key == "intervalMs") options.intervalMs = intOption(L, key);
    else if (key == "stackDepth") options.stackDepth = intOption(L, key);
    else if (key == "zone") options.zone = stringOption(L, key);
    else if (key == "root") options.rootModule = stringOption(L, key);
    else if (key == "compiledStacks") options.compiledStacks = compiledStacksOption(L, key);
    else
      throw std::runtime_error("ljcheck.sample: unknown option '" + key +
                               "' (known: intervalMs, stackDepth, zone, root, compiledStacks)");
  }
  return options;
}

int sample(lua_State* L) {
  SampleOptions options = readSampleOptions(L, 1);
  SampleSlot& slot = SampleSlot::push(L);
  slot.session = SampleSession::start(L, std::move(options)).release();
  return 1;
}

void setStates(lua_State* L, const StateCounts& states) {
  for (int i = 0; i < kVmStateCount; ++i)
    setNumber(L, fieldName(static_cast<VmState>(i)), static_cast<double>(states.counts[i]));
}

int reportText(lua_State* L) {
  lua_getfield(L, 1, "text");
  return 1;
}

void pushReport(lua_State* L, const SampleReport& report) {
  lua_createtable(L, 0, 12);
  setNumber(L, "intervalMs", report.intervalMs);
  setNumber(L, "msPerSample", report.msPerSample());
  setNumber(L, "cpuMs", report.cpuMs);
  setNumber(L, "samples", static_cast<double>(report.samples));
  setNumber(L, "stacks", static_cast<double>(report.stackCount()));
  setString(L, "text", report.collapsedText());
  setString(L, "zoneFilter", report.zoneFilter);
  setString(L, "root", report.rootModule);
  setStates(L, report.states);
  lua_createtable(L, static_cast<int>(report.rows.size()), 0);
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const SampleRecord& row = report.rows[i];
    lua_createtable(L, 0, 8);
    setString(L, "zonePath", row.zonePath);
    setString(L, "stack", row.stack());
    setNumber(L, "count", static_cast<double>(row.count()));
    setStates(L, row.states);
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  lua_setfield(L, -2, "rows");
  lua_createtable(L, 0, 2);
  lua_pushcfunction(L, reportText);
  lua_setfield(L, -2, "__tostring");
  new (lua_newuserdata(L, sizeof(SampleReportData))) SampleReportData(report);
  luaL_getmetatable(L, kSampleReportDataType);
  lua_setmetatable(L, -2);
  lua_setfield(L, -2, kReportDataKey);
  lua_setmetatable(L, -2);
}

int sampleReportDataGc(lua_State* L) {
  static_cast<SampleReportData*>(luaL_checkudata(L, 1, kSampleReportDataType))->~SampleReportData();
  return 0;
}

int stopSampling(lua_State* L) {
  SampleSlot& slot = SampleSlot::self(L, "stop");
  if (!slot.session) throw SessionError(SampleKind::kStopped);
  // Any coroutine may stop it: the profiler and the zones are the VM's, and
  // the one that started it may have ended (an OpenResty request handler).
  if (!slot.pending) {
    std::string zone = zoneStackOf(L).path();
    if (!zone.empty())
      throw SessionError("sample session: stop() called inside zone '" + zone +
                              "'; close it with ljcheck.zone() first");
  }
  pushReport(L, slot.finishStop(L, binding::filenameArgument(L, 2)));
  return 1;
}

// Fields first, then methods.
int sessionIndex(lua_State* L) {
  auto& slot = *static_cast<SampleSlot*>(luaL_checkudata(L, 1, SampleKind::kType));
  std::string_view key = lua::stringAt(L, 2);
  const SampleSession* s = slot.session;
  if (key == "stopped") lua_pushboolean(L, !s);
  else if (key == "paused") lua_pushboolean(L, s && !slot.pending && s->paused());
  else if (key == "intervalMs") s ? lua_pushinteger(L, s->options().intervalMs) : lua_pushnil(L);
  else if (key == "zoneFilter") s ? (void)lua_pushstring(L, s->options().zone.c_str()) : lua_pushnil(L);
  else if (key == "root") s ? (void)lua_pushstring(L, s->options().rootModule.c_str()) : lua_pushnil(L);
  else if (key == "compiledStacks")
    s ? (void)lua_pushstring(L, compiledStacksName(s->options().compiledStacks)) : lua_pushnil(L);
  else {
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
  }
  return 1;
}

}  // namespace

void registerSampleBinding(lua_State* L) {
  if (luaL_newmetatable(L, SampleKind::kType)) {
    SampleSlot::pushMethods(L, binding::guarded<stopSampling>);
    lua_pushcclosure(L, sessionIndex, 1);
    lua_setfield(L, -2, "__index");
    SampleSlot::setMetamethods(L);
  }
  lua_pop(L, 1);
  if (luaL_newmetatable(L, kSampleReportDataType)) {
    lua_pushcfunction(L, sampleReportDataGc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
}

const SampleReport* sampleReportAt(lua_State* L, int idx) {
  if (!lua_getmetatable(L, idx)) return nullptr;
  lua_getfield(L, -1, kReportDataKey);
  const SampleReport* report = nullptr;
  if (lua_getmetatable(L, -1)) {
    luaL_getmetatable(L, kSampleReportDataType);
    if (lua_rawequal(L, -1, -2)) report = &static_cast<const SampleReportData*>(lua_touserdata(L, -3))->report;
    lua_pop(L, 2);
  }
  lua_pop(L, 2);
  return report;
}

void pushSampleFunction(lua_State* L) { lua_pushcfunction(L, binding::guarded<sample>); }

}  // namespace ljcheck
