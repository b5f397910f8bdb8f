// The named standard sets of `std` (builtin_aliases.h). A set lists only
// names a LuaJIT program gives builtins by assignment; which builtins exist
// at all is the recorder profile's business, not a set's.
#include "ljcheck/builtin_aliases.h"

namespace ljcheck {
namespace {

struct StandardSet {
  std::string_view name;
  BuiltinAliases aliases;
};

const std::vector<StandardSet>& standardSets() {
  static const std::vector<StandardSet> sets = {
      {"luajit", {}},
      // What compatibility files set so Lua 5.2 code runs on LuaJIT:
      // `bit32 = require("bit")`, `table.unpack = table.unpack or unpack`.
      {"lua52compat", {{"bit32", "bit"}, {"table.unpack", "unpack"}}},
  };
  return sets;
}

}  // namespace

std::optional<BuiltinAliases> standardSet(std::string_view name) {
  for (const auto& s : standardSets())
    if (s.name == name) return s.aliases;
  return std::nullopt;
}

std::vector<std::string_view> standardSetNames() {
  std::vector<std::string_view> names;
  for (const auto& s : standardSets()) names.push_back(s.name);
  return names;
}

}  // namespace ljcheck
