// Reads the recorder profile facts of the running VM (jit.version, jit.arch,
// jit.os, jit.status() and jit.vmdef) and matches them against the registry.
#include "ljcheck/live_profile.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "lua_api.h"

namespace ljcheck {
namespace {

// jit.status() lists CPU features (SSE3, BMI2, ...) beside the optimization
// flags; the profile keeps the optimization flags only.
constexpr std::array<std::string_view, 11> kOptimizationFlags = {
    "fold", "cse", "dce", "fwd", "dse", "narrow", "loop", "abc", "sink", "fuse", "fma"};

// vmdef packs bytecode and IR names in 6-character fields, space padded.
std::vector<std::string> splitFixedWidth(std::string_view packed) {
  std::vector<std::string> names;
  for (std::size_t at = 0; at < packed.size(); at += 6) {
    std::string name(packed.substr(at, 6));
    name.erase(name.find_last_not_of(' ') + 1);
    names.push_back(std::move(name));
  }
  return names;
}

// t[0], t[1], ... up to the first nil, of the table at idx.
std::vector<std::string> zeroBasedList(lua_State* L, int idx) {
  std::vector<std::string> items;
  for (int i = 0;; ++i) {
    lua_rawgeti(L, idx, i);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      return items;
    }
    items.emplace_back(lua::stringAt(L, -1));
    lua_pop(L, 1);
  }
}

std::string stringField(lua_State* L, int idx, const char* key) {
  lua_getfield(L, idx, key);
  std::string value(lua::stringAt(L, -1));
  lua_pop(L, 1);
  return value;
}

std::vector<std::string> optimizationFlags(lua_State* L, int jitIndex) {
  int base = lua_gettop(L);
  lua_getfield(L, jitIndex, "status");
  std::string error = lua::protectedCall(L, 0, LUA_MULTRET);
  if (!error.empty()) throw std::runtime_error("jit.status(): " + error);
  std::vector<std::string> flags;
  for (int i = base + 2; i <= lua_gettop(L); ++i) {  // the first result is on/off
    std::string_view flag = lua::stringAt(L, i);
    if (std::find(kOptimizationFlags.begin(), kOptimizationFlags.end(), flag) !=
        kOptimizationFlags.end())
      flags.emplace_back(flag);
  }
  lua_settop(L, base);
  return flags;
}

std::string nameAt(const std::vector<std::string>& names, int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= names.size()) return {};
  return names[static_cast<std::size_t>(index)];
}

}  // namespace

const RecorderProfile& LiveProfile::mappingProfile() const {
  static const RecorderProfile unsupported;  // supported == false: map by message text
  return registered ? *registered : unsupported;
}

std::string LiveProfile::fastFunctionName(int ffid) const { return nameAt(facts.fastFunctionNames, ffid); }
std::string LiveProfile::traceErrorMessage(int code) const {
  return nameAt(facts.traceErrorMessages, code);
}

void matchRegistry(LiveProfile& profile) {
  std::string computed = computeProfileId(profile.facts);
  profile.registered = findProfile(computed);
  profile.supported = profile.registered != nullptr;
  profile.id = profile.supported ? computed : "external:" + computed;
  profile.name = profile.supported ? profile.registered->name : "external";
}

LiveProfile readLiveProfile(lua_State* L) {
  int top = lua_gettop(L);
  LiveProfile profile;
  try {
    lua::pushRequired(L, "jit");
    int jit = lua_gettop(L);
    if (!lua_istable(L, jit)) throw std::runtime_error("module 'jit' is not a table");
    profile.facts.version = stringField(L, jit, "version");
    profile.facts.arch = stringField(L, jit, "arch");
    profile.facts.os = stringField(L, jit, "os");
    profile.facts.jitFlags = optimizationFlags(L, jit);
    lua::pushRequired(L, "jit.vmdef");
    int vmdef = lua_gettop(L);
    if (!lua_istable(L, vmdef)) throw std::runtime_error("module 'jit.vmdef' is not a table");
    lua_getfield(L, vmdef, "bcnames");
    profile.facts.bytecodeNames = splitFixedWidth(lua::stringAt(L, -1));
    lua_getfield(L, vmdef, "irnames");
    profile.irNames = splitFixedWidth(lua::stringAt(L, -1));
    lua_getfield(L, vmdef, "ffnames");
    if (lua_istable(L, -1)) profile.facts.fastFunctionNames = zeroBasedList(L, lua_gettop(L));
    lua_getfield(L, vmdef, "traceerr");
    if (lua_istable(L, -1)) profile.facts.traceErrorMessages = zeroBasedList(L, lua_gettop(L));
  } catch (const std::exception&) {
    lua_settop(L, top);
    throw;
  }
  lua_settop(L, top);
  if (profile.facts.bytecodeNames.empty() || profile.facts.traceErrorMessages.empty())
    throw std::runtime_error("jit.vmdef lacks bcnames or traceerr: not a LuaJIT 2.1 VM");
  matchRegistry(profile);
  return profile;
}

}  // namespace ljcheck
