// Bytes from outside (file names, source text in messages) made safe for
// each output: a terminal, a URI, a column count. File paths are bytes on
// Linux: none of these fails on bytes that are not UTF-8.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ljcheck {

// Length of the valid UTF-8 sequence starting at s[i], or 0.
std::size_t utf8SequenceLength(std::string_view s, std::size_t i);
bool isUtf8(std::string_view s);

// `text` with every byte that could steer a terminal or break a line shown as
// \xHH: C0 controls (newline included) and DEL, C1 controls, the bidirectional
// overrides and isolates (U+202A-U+202E, U+2066-U+2069), and bytes that are
// not UTF-8. Other text, backslashes included, is kept as it is.
std::string escapeControls(std::string_view text);

// The bytes of a path as a URI path: unreserved characters, sub-delimiters,
// ':', '@' and '/' are kept; every other byte is %HH. Lossless.
std::string percentEncodePath(std::string_view path);

// A 1-based column counted in bytes on `line` as a 1-based column counted in
// UTF-16 code units. Column 0 (unknown) stays 0; bytes that are not UTF-8
// count one unit each; a column past the end counts the rest as bytes.
int utf16Column(std::string_view line, int byteColumn);

}  // namespace ljcheck
