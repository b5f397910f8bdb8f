// `ljcheck registry profile [--format text|json]`: the recorder profile of
// the LuaJIT this binary embeds, read live from the VM (jit.version,
// jit.status(), jit.vmdef) the way the collector reads its host, and matched
// against the registry. It is the VM's word, not the committed file's.
#include <fmt/format.h>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "ljcheck/live_profile.h"
#include "registry_subcommands.h"

namespace ljcheck::cli {
namespace {

LiveProfile readEmbeddedProfile() {
  std::unique_ptr<lua_State, decltype(&lua_close)> L(luaL_newstate(), &lua_close);
  if (!L) throw std::runtime_error("cannot create a Lua state");
  luaL_openlibs(L.get());
  return readLiveProfile(L.get());
}

std::size_t recordedCount(const RecorderProfile& p) {
  std::size_t recorded = 0;
  for (const auto& f : p.fastFunctions) recorded += f.recorded();
  return recorded;
}

void printJson(const LiveProfile& live) {
  const ProfileFacts& f = live.facts;
  nlohmann::ordered_json j = {{"name", live.name},
                              {"id", live.id},
                              {"supported", live.supported},
                              {"version", f.version},
                              {"arch", f.arch},
                              {"os", f.os},
                              {"jitFlags", f.jitFlags},
                              {"bytecodes", f.bytecodeNames.size()},
                              {"fastFunctions", f.fastFunctionNames.size()},
                              {"traceErrors", f.traceErrorMessages.size()}};
  if (live.registered) {
    j["openresty"] = live.registered->openresty;
    j["recordedFastFunctions"] = recordedCount(*live.registered);
    j["nyiBytecodes"] = live.registered->nyiBytecodes;
  }
  std::cout << j.dump(2) << "\n";
}

}  // namespace

void printProfileText(const std::string& name, const std::string& id, bool supported, const ProfileFacts& f,
                      const RecorderProfile* known) {
  std::cout << fmt::format("profile     {}\nid          {}\n", name, id);
  std::cout << fmt::format("supported   {}\n", supported ? "yes" : "no: the registry holds no profile with this "
                                                            "id, so reasons map by message text");
  std::cout << fmt::format("luajit      {}{}\narch/os     {}/{}\njit flags   {}\n", f.version,
                           known && known->openresty ? " (OpenResty)" : "", f.arch, f.os,
                           fmt::join(f.jitFlags, " "));
  std::cout << fmt::format("bytecodes   {}\nfast funcs  {}", f.bytecodeNames.size(), f.fastFunctionNames.size());
  if (known) std::cout << fmt::format(" ({} recorded)", recordedCount(*known));
  std::cout << fmt::format("\ntrace errs  {}\n", f.traceErrorMessages.size());
  if (known) std::cout << fmt::format("NYI bytecodes: {}\n", fmt::join(known->nyiBytecodes, " "));
}

RegistrySubcommand addRegistryProfile(CLI::App& registryCmd) {
  auto format = std::make_shared<std::string>("text");
  auto* cmd = registryCmd.add_subcommand("profile", "Print the recorder profile of the embedded LuaJIT, read live");
  cmd->add_option("--format", *format, "Output format")->check(CLI::IsMember({"text", "json"}));
  return {cmd, [format]() {
            LiveProfile live = readEmbeddedProfile();
            if (*format == "json") printJson(live);
            else printProfileText(live.name, live.id, live.supported, live.facts, live.registered);
            return static_cast<int>(kClean);
          }};
}

}  // namespace ljcheck::cli
