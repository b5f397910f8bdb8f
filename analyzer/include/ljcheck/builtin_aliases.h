// Builtins under other names: the `std` and `globals` of `.ljcheck.toml`.
// A host or a start-up file may set a global, or a field of a library
// table, to a builtin (`str = string`, `bit32 = require("bit")`,
// `table.unpack = unpack`); files that only use the name do not show it.
// The value tracker resolves an alias exactly as the builtin it names, so
// `str.gsub` in a hot loop predicts STITCH:string.gsub.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ljcheck {

// Alias (a global, or a dotted library member) -> the builtin's name as the
// recorder profile spells it ("string", "string.format", "unpack").
using BuiltinAliases = std::map<std::string, std::string>;

// The aliases of a named standard set: "luajit" (none: the profile's own
// names, the default) or "lua52compat" (the Lua 5.2 shims LuaJIT programs
// install: bit32 = bit, table.unpack = unpack). nullopt for an unknown name.
std::optional<BuiltinAliases> standardSet(std::string_view name);
// The names standardSet knows, in order.
std::vector<std::string_view> standardSetNames();

}  // namespace ljcheck
