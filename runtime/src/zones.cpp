// Zones (see zones.h). ljcheck.zone is a small Lua function over the FFI: it
// keeps a Lua table of name -> id and writes the id and the depth into
// ZoneStackData through an FFI pointer. Only the first push of a new name
// calls into C (to register it); that happens the first time the line runs,
// in the interpreter, before its loop gets hot. The function is vararg on
// purpose: LuaJIT starts no trace of its own at a vararg function, whereas a
// fixed-argument one called several times per iteration gets hot before the
// caller's loop, and the side trace of its string-or-nil guard aborts
// ("loop unroll limit") when it returns into that loop. Calls to it are
// recorded into the caller's trace like any other.
// While an event capture is armed (a timeline), each push and pop also calls
// zoneEvent through an FFI function pointer, which the JIT compiles as a
// plain C call. The armed word is read on every call: the zone's int32 stores
// may alias it, so the JIT does not hoist the load out of a loop.
#include "zones.h"

#include <atomic>
#include <new>
#include <utility>

#include "ljcheck/event_recorder.h"
#include "lua_api.h"

namespace ljcheck {
namespace {

char kZoneStackKey;  // its address is the registry key of the VM's ZoneStack

// Arguments: ffi, the ZoneStackData pointer (light userdata), the intern
// function. Returns ljcheck.zone. The struct layout matches ZoneStackData.
constexpr const char* kZoneChunk = R"lua(
local ffi, pointer, intern, armed, event, zones = ...
local ctype = "ljcheck_zone_stack_v1"
if not pcall(ffi.typeof, ctype) then
  ffi.cdef("typedef struct { int32_t depth; int32_t ids[32]; } " .. ctype .. ";")
end
local stack = ffi.cast(ctype .. "*", pointer)
local armedWord = ffi.cast("const int32_t*", armed)
local zoneEvent = ffi.cast("void (*)(void*, int32_t)", event)
local self = ffi.cast("void*", zones)
local ids = {}
local error, type = error, type
return function(...)
  local name = ...
  local depth = stack.depth
  if name ~= nil then
    local id = ids[name]
    if id == nil then
      if type(name) ~= "string" then
        error("ljcheck.zone(name): the zone name must be a string, got a " .. type(name), 2)
      end
      id = intern(name)
      ids[name] = id
    end
    if depth < 32 then stack.ids[depth] = id end
    stack.depth = depth + 1
    if armedWord[0] ~= 0 then zoneEvent(self, id) end
  else
    if depth <= 0 then
      error("ljcheck.zone(): no zone is open (a pop without its push)", 2)
    end
    if armedWord[0] ~= 0 then zoneEvent(self, 0) end
    stack.depth = depth - 1
  end
end
)lua";

std::atomic<std::uint32_t> gLastVmId{0};

// A push (id > 0, already on the stack) or a pop (0, before it) while an
// event capture is armed. Called from compiled code: no Lua, no throw.
extern "C" void zoneEvent(void* stack, std::int32_t id) {
  const auto* zones = static_cast<const ZoneStack*>(stack);
  Event ev;
  ev.timeNs = recorderNow();
  ev.vmId = zones->vmId;
  if (id > 0) {
    ev.kind = EventKind::ZoneEnter;
  } else {
    ev.kind = EventKind::ZoneLeave;
    int depth = zones->data.depth;
    id = depth > 0 && depth <= ZoneStackData::kMaxDepth ? zones->data.ids[depth - 1] : 0;
  }
  ev.a = static_cast<std::int32_t>(zones->labelOf(id));
  emitEvent(ev);
}

int zoneStackGc(lua_State* L) {
  static_cast<ZoneStack*>(lua_touserdata(L, 1))->~ZoneStack();
  return 0;
}

int internZone(lua_State* L) {
  auto* zones = static_cast<ZoneStack*>(lua_touserdata(L, lua_upvalueindex(1)));
  lua_pushinteger(L, zones->intern(lua::stringAt(L, 1)));
  return 1;
}

int zoneWithoutFfi(lua_State* L) {
  ZoneStack& zones = *static_cast<ZoneStack*>(lua_touserdata(L, lua_upvalueindex(1)));
  ZoneStackData& d = zones.data;
  if (lua_isnoneornil(L, 1)) {
    if (d.depth <= 0) return luaL_error(L, "ljcheck.zone(): no zone is open (a pop without its push)");
    if (captureArmed()) zoneEvent(&zones, 0);
    --d.depth;
    return 0;
  }
  if (lua_type(L, 1) != LUA_TSTRING)
    return luaL_error(L, "ljcheck.zone(name): the zone name must be a string, got a %s", luaL_typename(L, 1));
  int id = zones.intern(lua::stringAt(L, 1));
  if (d.depth < ZoneStackData::kMaxDepth) d.ids[d.depth] = id;
  ++d.depth;
  if (captureArmed()) zoneEvent(&zones, id);
  return 0;
}

// jit.zone's stack, the table at the top of the stack (popped), when the
// program loaded it: "A/B" of its entries, outermost first.
std::string popJitZonePath(lua_State* L) {
  std::string path;
  if (lua_istable(L, -1)) {
    int n = static_cast<int>(lua_objlen(L, -1));
    for (int i = 1; i <= n; ++i) {
      lua_rawgeti(L, -1, i);
      std::string_view name = lua::stringAt(L, -1);
      if (!name.empty()) {
        if (!path.empty()) path += '/';
        path += name;
      }
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  return path;
}

std::string jitZonePath(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return {};
  }
  lua_getfield(L, -1, "jit.zone");
  std::string path = popJitZonePath(L);
  lua_pop(L, 1);
  return path;
}

std::string joinZonePaths(std::string outer, std::string inner) {
  if (outer.empty()) return inner;
  return inner.empty() ? outer : outer + "/" + inner;
}

}  // namespace

ZoneStack::ZoneStack() : vmId(gLastVmId.fetch_add(1, std::memory_order_relaxed) + 1) {}

int ZoneStack::intern(std::string_view name) {
  std::uint32_t label = internLabel(name);
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return static_cast<int>(i + 1);
  names_.emplace_back(name);
  labels_.push_back(label);
  return static_cast<int>(names_.size());
}

std::uint32_t ZoneStack::labelOf(int id) const {
  auto index = static_cast<std::size_t>(id);
  return id >= 1 && index <= labels_.size() ? labels_[index - 1] : 0;
}

std::string ZoneStack::path() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  int named = data.depth < ZoneStackData::kMaxDepth ? data.depth : ZoneStackData::kMaxDepth;
  for (int i = 0; i < named; ++i) {
    auto id = static_cast<std::size_t>(data.ids[i]);
    if (i > 0) out += '/';
    out += id >= 1 && id <= names_.size() ? names_[id - 1] : std::string("?");
  }
  if (data.depth > named) out += "/...";
  return out;
}

void ZoneStack::releaseAtExit() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string>().swap(names_);
  std::vector<std::uint32_t>().swap(labels_);
}

ZoneStack* findZoneStack(lua_State* L) {
  lua_pushlightuserdata(L, &kZoneStackKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  auto* zones = static_cast<ZoneStack*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return zones;
}

ZoneStack& zoneStackOf(lua_State* L) {
  ZoneStack* zones = findZoneStack(L);
  if (zones) return *zones;
  lua_pushlightuserdata(L, &kZoneStackKey);
  zones = new (lua_newuserdata(L, sizeof(ZoneStack))) ZoneStack();
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, zoneStackGc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_rawset(L, LUA_REGISTRYINDEX);
  return *zones;
}

std::string currentZonePath(lua_State* L) { return joinZonePaths(jitZonePath(L), zoneStackOf(L).path()); }

std::string currentZonePath(lua_State* L, const ZoneSources& from) {
  lua_pushvalue(L, from.jitZoneKeyIndex);
  lua_rawget(L, from.loadedIndex);
  return currentZonePathPopping(L, *from.zones);
}

std::string currentZonePathPopping(lua_State* L, const ZoneStack& zones) {
  std::string outer = popJitZonePath(L);
  if (zones.data.depth == 0) return outer;
  return joinZonePaths(std::move(outer), zones.path());
}

void pushZoneFunction(lua_State* L) {
  ZoneStack& zones = zoneStackOf(L);
  int top = lua_gettop(L);
  lua_getglobal(L, "require");
  lua_pushstring(L, "ffi");
  bool haveFfi = lua::protectedCall(L, 1, 1).empty() && lua_istable(L, -1);
  if (haveFfi && luaL_loadbuffer(L, kZoneChunk, std::char_traits<char>::length(kZoneChunk),
                                 "=ljcheck.zone") == 0) {
    lua_pushvalue(L, top + 1);
    lua_pushlightuserdata(L, &zones.data);
    lua_pushlightuserdata(L, &zones);
    lua_pushcclosure(L, internZone, 1);
    lua_pushlightuserdata(L, const_cast<void*>(captureArmedWord()));
    lua_pushlightuserdata(L, reinterpret_cast<void*>(&zoneEvent));
    lua_pushlightuserdata(L, &zones);
    if (lua::protectedCall(L, 6, 1).empty() && lua_isfunction(L, -1)) {
      lua_replace(L, top + 1);
      lua_settop(L, top + 1);
      return;
    }
  }
  lua_settop(L, top);
  lua_pushlightuserdata(L, &zones);
  lua_pushcclosure(L, zoneWithoutFfi, 1);
}

}  // namespace ljcheck
