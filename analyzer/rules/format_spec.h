// string.format specifiers as LuaJIT's lj_strfmt_parse reads them: flags,
// width and precision of at most two digits each, then a conversion from
// its map (a A c d e E f F g G i o p q s u x X). Anything else is an error.
#pragma once

#include <string_view>
#include <vector>

namespace ljcheck::rules {

struct FormatSpec {
  enum class Type { Int, Uint, Num, Str, Char, Ptr, Error };
  Type type = Type::Error;
  char conversion = 0;
  std::string_view text;  // "%5.2f", "%y" for an error
};

// The specifiers of a format string in order, one per argument; parsing
// stops after an error, like the recorder's.
std::vector<FormatSpec> parseFormat(std::string_view format);

}  // namespace ljcheck::rules
