// Guards in front of toml11 (Debian's 3.7.1), for input it cannot take
// safely: its parser descends recursively into arrays and inline tables, and
// its error path for a string that is not UTF-8 reads past its buffer. Each
// guard finds the first offending position, so the caller can report it.
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
// Brackets are counted outside strings and comments, read as TOML reads them.
std::optional<TextPosition> tooDeeplyNested(std::string_view toml, int limit);

// The first byte that does not start a valid UTF-8 sequence (TOML documents
// must be UTF-8), or nullopt.
std::optional<TextPosition> firstInvalidUtf8(std::string_view toml);

}  // namespace ljcheck::cli
