// Guards in front of toml11 (Debian's 3.7.1), for input it cannot take
// safely: its parser descends recursively into arrays and inline tables, its
// error path for a string that is not UTF-8 reads past its buffer, and it
// reads a binary integer (0b...) by doubling a signed 64-bit place value per
// digit, which overflows (undefined behaviour) from the 63rd digit on. Each
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

// toml11 reads at most this many binary digits safely: a 0b literal of 62
// digits already exceeds any count or limit a config holds.
inline constexpr int kMaxTomlBinaryDigits = 62;

// The position of the first `0b` integer with more than `maxDigits` digits
// (underscores are not digits), outside strings and comments, or nullopt.
std::optional<TextPosition> binaryIntegerTooLong(std::string_view toml, int maxDigits);

// The first byte that does not start a valid UTF-8 sequence (TOML documents
// must be UTF-8), or nullopt.
std::optional<TextPosition> firstInvalidUtf8(std::string_view toml);

}  // namespace ljcheck::cli
