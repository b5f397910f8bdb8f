// Finds the file `require` loads for a module name on the C path
// (c_modules.h), the way LuaJIT's package library does (lib_package.c:
// setpath, searchpath, the Lua loader before the C loader).
#include "ljcheck/c_modules.h"

#include <cerrno>
#include <cstdio>
#include <memory>
#include <set>

#include <dirent.h>
#include <sys/stat.h>

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
  // A named pipe or a device is what searchpath finds too (its open would
  // wait for a writer): found, and not opened here.
  struct stat status;
  if (::stat(file.c_str(), &status) != 0) return false;
  if (!S_ISREG(status.st_mode) && !S_ISDIR(status.st_mode)) return true;
  std::FILE* f = std::fopen(file.c_str(), "r");  // what searchpath's readable() does
  if (!f) return false;
  std::fclose(f);
  return true;
}

}  // namespace

// What each folder on the search paths holds, listed once per run. The
// search tries about ten files per module name, and most folders on the
// default paths do not exist: a candidate whose folder was listed without
// its name is not opened, nor a folder under one listed without it
// (bench/corpus: 5,652 failed opens became 15 folder listings). A folder
// that cannot be listed but may still be searched (execute-only) leaves
// its candidates to be opened.
class CModules::FolderNames {
 public:
  // False when the file's folder was listed and does not hold its name.
  bool mayHold(std::string_view file) {
    std::size_t slash = file.rfind('/');
    std::string folder = slash == std::string_view::npos ? "." : std::string(file.substr(0, slash == 0 ? 1 : slash));
    std::string_view name = slash == std::string_view::npos ? file : file.substr(slash + 1);
    const std::optional<Listing>& listing = listingOf(folder);
    return !listing || (!listing->missing && listing->names.count(name) != 0);
  }

 private:
  struct Listing {
    bool missing = false;  // no such folder
    std::set<std::string, std::less<>> names;
  };
  // The folder's listing, read on first use; nullopt when it cannot be read.
  // Entries are never changed once in the map, whose nodes stay put: the
  // reference outlives the lock.
  const std::optional<Listing>& listingOf(const std::string& folder) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = folders_.find(folder); it != folders_.end()) return it->second;
    }
    std::optional<Listing> listing = list(folder);  // other threads go on meanwhile
    std::lock_guard<std::mutex> lock(mutex_);
    return folders_.emplace(folder, std::move(listing)).first->second;
  }
  // A folder whose parent was listed without it is missing without asking:
  // most candidates are folders under missing ones (vim/lsp/protocol).
  std::optional<Listing> list(const std::string& folder) {
    std::size_t slash = folder.rfind('/');
    std::string_view name = slash == std::string::npos ? std::string_view(folder) : std::string_view(folder).substr(slash + 1);
    if (!name.empty() && name != "." && name != ".." && folder != "/") {
      std::string parent = slash == std::string::npos ? "." : folder.substr(0, slash == 0 ? 1 : slash);
      const std::optional<Listing>& above = listingOf(parent);
      if (above && (above->missing || above->names.count(name) == 0)) return Listing{true, {}};
    }
    std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(folder.c_str()), ::closedir);
    if (!dir) {
      if (errno == ENOENT || errno == ENOTDIR) return Listing{true, {}};
      return std::nullopt;
    }
    Listing listing;
    while (const dirent* entry = ::readdir(dir.get())) listing.names.emplace(entry->d_name);
    return listing;
  }
  std::mutex mutex_;
  std::map<std::string, std::optional<Listing>, std::less<>> folders_;
};

namespace {

// The first file `templates` name for `module` that opens, of those
// `mayExist` lets through.
template <typename MayExist>
std::optional<std::string> firstReadable(std::string_view module, std::string_view templates, MayExist mayExist) {
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
    if (mayExist(file) && readable(file)) return file;
  }
  return std::nullopt;
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
  return firstReadable(module, templates, [](const std::string&) { return true; });
}

CModules::CModules() = default;
CModules::CModules(CModuleSearch search)
    : search_(std::move(search)), folders_(std::make_unique<FolderNames>()) {}
CModules::~CModules() = default;

std::optional<std::string> CModules::find(std::string_view module) const {
  for (const auto& name : search_.declared)
    if (name == module)
      return "`" + name + "` is declared a C module" +
             (search_.declaredIn.empty() ? std::string() : " in " + search_.declaredIn);
  if (module.empty() || search_.cpath.empty()) return std::nullopt;
  auto listed = [this](const std::string& file) { return !folders_ || folders_->mayHold(file); };
  if (firstReadable(module, search_.path, listed)) return std::nullopt;  // the Lua loader comes first
  auto file = firstReadable(module, search_.cpath, listed);
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
