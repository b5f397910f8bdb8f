// Finds the file `require` loads for a module name on the C path
// (c_modules.h), the way LuaJIT's package library does (lib_package.c:
// setpath, searchpath, the Lua loader before the C loader).
#include "ljcheck/c_modules.h"

#include <cstdio>
#include <memory>

#include <lua.hpp>

namespace ljcheck {
namespace {

// package.<field> of a fresh LuaJIT state with LUA_NOENV set: the
// luaconf.h default, whatever LUA_PATH and LUA_CPATH say.
std::string packageDefault(const char* field) {
  std::unique_ptr<lua_State, void (*)(lua_State*)> L(luaL_newstate(), lua_close);
  if (!L) return {};
  lua_pushboolean(L.get(), 1);
  lua_setfield(L.get(), LUA_REGISTRYINDEX, "LUA_NOENV");
  lua_pushcfunction(L.get(), luaopen_package);
  lua_pushstring(L.get(), LUA_LOADLIBNAME);
  if (lua_pcall(L.get(), 1, 1, 0) != 0) return {};
  lua_getfield(L.get(), -1, field);
  const char* text = lua_tostring(L.get(), -1);
  return text ? text : "";
}

bool readable(const std::string& file) {
  std::FILE* f = std::fopen(file.c_str(), "r");  // what searchpath's readable() does
  if (!f) return false;
  std::fclose(f);
  return true;
}

}  // namespace

std::string luajitDefaultCPath() {
  static const std::string path = packageDefault("cpath");
  return path;
}

std::string luajitDefaultPath() {
  static const std::string path = packageDefault("path");
  return path;
}

std::string expandSearchPath(std::string_view given, std::string_view fallback) {
  std::string out;
  for (std::size_t at = 0;;) {
    std::size_t hit = given.find(";;", at);
    if (hit == std::string_view::npos) {
      out.append(given.substr(at));
      return out;
    }
    out.append(given.substr(at, hit - at)).append(";").append(fallback).append(";");
    at = hit + 2;
  }
}

std::optional<std::string> CModules::searchPath(std::string_view module, std::string_view templates) {
  std::string name(module);
  for (char& c : name)
    if (c == '.') c = '/';
  while (!templates.empty()) {
    std::size_t end = templates.find(';');
    std::string_view one = templates.substr(0, end);
    templates.remove_prefix(end == std::string_view::npos ? templates.size() : end + 1);
    if (one.empty()) continue;
    std::string file;
    for (char c : one) {
      if (c == '?') file += name;
      else file += c;
    }
    if (readable(file)) return file;
  }
  return std::nullopt;
}

CModules::CModules(CModuleSearch search) : search_(std::move(search)) {}

std::optional<std::string> CModules::find(std::string_view module) const {
  for (const auto& name : search_.declared)
    if (name == module)
      return "`" + name + "` is declared a C module" +
             (search_.declaredIn.empty() ? std::string() : " in " + search_.declaredIn);
  if (module.empty() || search_.cpath.empty()) return std::nullopt;
  if (searchPath(module, search_.path)) return std::nullopt;  // the Lua loader comes first
  auto file = searchPath(module, search_.cpath);
  if (!file) return std::nullopt;
  return "`" + std::string(module) + "` resolves to " + *file + " on the C path";
}

std::optional<std::string> CModules::evidence(std::string_view module) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = found_.find(module); it != found_.end()) return it->second;
  }
  // The search opens files: other threads go on meanwhile. Two that look a
  // module up at once both search, and find the same.
  std::optional<std::string> found = find(module);
  std::lock_guard<std::mutex> lock(mutex_);
  return found_.emplace(std::string(module), std::move(found)).first->second;
}

}  // namespace ljcheck
