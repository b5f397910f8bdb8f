// A guard in front of toml11, whose parser descends recursively into arrays
// and inline tables: finds where TOML text nests brackets deeper than a
// limit, reading strings and comments the way TOML does so that brackets
// inside them do not count.
#pragma once

#include <optional>
#include <string_view>

namespace ljcheck::cli {

// Deeper than any real .ljcheck.toml (which nests 2 or 3 levels), and far
// shallower than the depth at which toml11 runs out of stack.
inline constexpr int kMaxTomlNesting = 64;

struct TextPosition {
  int line = 1;    // 1-based
  int column = 1;  // 1-based, in bytes
};

// The position of the first `[` or `{` that opens level `limit + 1`, or
// nullopt when the text stays within the limit.
std::optional<TextPosition> tooDeeplyNested(std::string_view toml, int limit);

}  // namespace ljcheck::cli
