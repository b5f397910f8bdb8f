// toml11's parse errors in the form every other config error takes:
// "file:line:column: what is wrong", at the place its caret points to.
#pragma once

#include <string>
#include <string_view>

namespace ljcheck::cli {

// `what`: the text of a toml::syntax_error (toml11 3.7: a headline
// "[error] toml::parse_x: ..." and source lines with carets under them).
// `name`: the file it is reported as. The position is the last caret's; the
// headline loses toml11's function name; the carets' own words follow.
// Text in another shape is given as it is, at `fallbackLine:fallbackColumn`.
std::string tomlSyntaxError(std::string_view what, const std::string& name, int fallbackLine, int fallbackColumn);

}  // namespace ljcheck::cli
