// The embedded LuaJIT front end: Lua source in, bytecode dump (or LuaJIT's own
// syntax error) out, plus this VM's bytecode names for decoding the dump.
#include "ljcheck/compile.h"

#include <cctype>
#include <new>
#include <stdexcept>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace ljcheck {
namespace {

// Collect fully now and then: the incremental GC alone lets interned strings
// and prototypes of earlier files pile up over a long run.
constexpr unsigned kCompilesPerCollect = 64;
constexpr std::size_t kLargeSource = std::size_t{1} << 20;

const char* const kBcNamesKey = "ljcheck.bcnames";

int appendToString(lua_State*, const void* p, size_t size, void* out) {
  try {
    static_cast<std::string*>(out)->append(static_cast<const char*>(p), size);
    return 0;
  } catch (const std::bad_alloc&) {
    return 1;  // stops lua_dump
  }
}

bool parseDigits(std::string_view text, std::size_t at, int& line, std::size_t& end) {
  std::size_t i = at;
  long value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && value < 100000000) {
    value = value * 10 + (text[i] - '0');
    ++i;
  }
  if (i == at || i >= text.size() || text[i] != ':') return false;
  line = static_cast<int>(value);
  end = i;
  return true;
}

// LuaJIT formats "<chunk>:<line>: <what>", with a long chunk name shortened
// to "...<tail>"; so try the full path first, then the first ":<digits>:".
int lineOf(std::string_view message, std::string_view chunkPath) {
  int line = 0;
  std::size_t end = 0;
  if (message.substr(0, chunkPath.size()) == chunkPath && message.size() > chunkPath.size() &&
      message[chunkPath.size()] == ':' && parseDigits(message, chunkPath.size() + 1, line, end)) {
    return line;
  }
  for (std::size_t colon = message.find(':'); colon != std::string_view::npos;
       colon = message.find(':', colon + 1)) {
    if (parseDigits(message, colon + 1, line, end)) return line;
  }
  return 0;
}

// Runs inside lua_cpcall: leaves jit.vmdef's bcnames string in the registry.
int loadBytecodeNames(lua_State* L) {
  lua_getglobal(L, "require");
  if (lua_isnil(L, -1)) {
    lua_pushcfunction(L, luaopen_package);
    lua_call(L, 0, 0);
    lua_getglobal(L, "require");
  }
  lua_pushstring(L, "jit.vmdef");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "bcnames");
  if (!lua_isstring(L, -1)) luaL_error(L, "jit.vmdef has no bcnames string");
  lua_setfield(L, LUA_REGISTRYINDEX, kBcNamesKey);
  return 0;
}

// Runs inside lua_cpcall. The lexer loads the FFI on the first cdata literal
// (1LL, 2i) and anchors it only in registry._LOADED; without that table the
// FFI's finalizer table is collected while the VM still points at it, and
// lua_close crashes. So every state gets the table up front.
int createLoadedTable(lua_State* L) {
  luaL_findtable(L, LUA_REGISTRYINDEX, "_LOADED", 16);
  return 0;
}

}  // namespace

LuaCompiler::LuaCompiler() : L_(luaL_newstate()) {
  if (L_ == nullptr) throw std::bad_alloc();
  if (lua_cpcall(L_, createLoadedTable, nullptr) != 0) {
    lua_close(L_);
    throw std::bad_alloc();
  }
}

LuaCompiler::~LuaCompiler() {
  lua_close(L_);
}

CompileResult LuaCompiler::compile(std::string_view source, std::string_view chunkPath) {
  CompileResult result;
  const std::string chunkName = "@" + std::string(chunkPath);
  lua_settop(L_, 0);
  const int status = luaL_loadbufferx(L_, source.data(), source.size(), chunkName.c_str(), "t");
  if (status != 0) {
    size_t length = 0;
    const char* text = lua_tolstring(L_, -1, &length);
    SyntaxError error;
    error.message = text != nullptr        ? std::string(text, length)
                    : status == LUA_ERRMEM ? "not enough memory"
                                           : "cannot compile";
    error.line = lineOf(error.message, chunkPath);
    result.error = std::move(error);
  } else if (lua_dump(L_, appendToString, &result.dump) != 0) {
    result.dump.clear();
    result.error = SyntaxError{std::string(chunkPath) + ": not enough memory to dump bytecode", 0};
  }
  lua_settop(L_, 0);
  if (++compiles_ % kCompilesPerCollect == 0 || source.size() >= kLargeSource) {
    lua_gc(L_, LUA_GCCOLLECT, 0);
  }
  return result;
}

std::vector<std::string> LuaCompiler::bytecodeNames() const {
  lua_settop(L_, 0);
  if (lua_cpcall(L_, loadBytecodeNames, nullptr) != 0) {
    const char* why = lua_tostring(L_, -1);
    std::string message = std::string("cannot load jit.vmdef: ") + (why != nullptr ? why : "unknown error");
    lua_settop(L_, 0);
    throw std::runtime_error(message);
  }
  lua_getfield(L_, LUA_REGISTRYINDEX, kBcNamesKey);
  size_t length = 0;
  const char* text = lua_tolstring(L_, -1, &length);
  const std::string_view all(text != nullptr ? text : "", text != nullptr ? length : 0);
  std::vector<std::string> names;
  constexpr std::size_t kFieldWidth = 6;  // vmdef.lua pads each name to 6 characters
  for (std::size_t at = 0; at < all.size(); at += kFieldWidth) {
    std::string_view field = all.substr(at, kFieldWidth);
    while (!field.empty() && field.back() == ' ') field.remove_suffix(1);
    names.emplace_back(field);
  }
  lua_settop(L_, 0);
  return names;
}

}  // namespace ljcheck
