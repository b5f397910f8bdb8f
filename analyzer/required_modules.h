// The modules a Lua file requires by a literal name, read from its text
// alone: `require "a.b"`, `require('a.b')`, `require [[a.b]]`. The lint of a
// project orders its first pass by them (project_order.h) before any file
// is compiled. A `require` in a comment or a string counts too: a name
// too many only orders two files needlessly.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ljcheck {

std::vector<std::string> requiredModules(std::string_view text);

}  // namespace ljcheck
