// Which `require` names load C modules (lpeg, lfs, cjson): a call into one
// is a call of a plain C function, which the recorder does not compile
// (STITCH:C, RETURN:C). A module is a C module when the user declares it so
// (`c-modules` in .ljcheck.toml), or when the first file LuaJIT's loaders
// would find for it is a shared library on the C path: the Lua path is
// searched first, as package.loaders does. A module found nowhere is not a
// C module.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ljcheck {

struct CModuleSearch {
  std::vector<std::string> declared;  // C modules whatever the search finds (`c-modules`)
  std::string cpath;                  // package.cpath templates: "./?.so;/usr/lib/lua/5.1/?.so"
  std::string path;                   // package.path templates: a Lua file found here first wins
  std::string declaredIn;             // where `declared` comes from, for the reasoning
};

// package.cpath and package.path as the LuaJIT that ljcheck links builds
// them (luaconf.h), before LUA_CPATH and LUA_PATH.
std::string luajitDefaultCPath();
std::string luajitDefaultPath();
// A search path as LuaJIT's setpath reads one: ";;" stands for `fallback`.
std::string expandSearchPath(std::string_view given, std::string_view fallback);

class CModules {
 public:
  CModules();  // nothing is a C module
  explicit CModules(CModuleSearch search);
  CModules(const CModules&) = delete;
  CModules& operator=(const CModules&) = delete;
  // Why require(module) loads a C module, as a sentence for the reasoning
  // ("`lpeg` resolves to /usr/lib/x86_64-linux-gnu/lua/5.1/lpeg.so on the
  // C path"); nullopt without evidence. Thread-safe; files are looked up
  // once per module.
  std::optional<std::string> evidence(std::string_view module) const;
  // The first file `templates` name for `module` that can be opened, as
  // package.searchpath finds it ('.' in the name becomes '/').
  static std::optional<std::string> searchPath(std::string_view module, std::string_view templates);
  ~CModules();

 private:
  class FolderNames;  // c_modules.cpp: what each folder on the paths holds, listed once
  std::optional<std::string> find(std::string_view module) const;
  CModuleSearch search_;
  std::unique_ptr<FolderNames> folders_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::optional<std::string>, std::less<>> found_;
};

}  // namespace ljcheck
