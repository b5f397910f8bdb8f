// Streaming JSON text: string escaping that never fails on bytes that are
// not UTF-8 (file paths are bytes on Linux), for writers that emit many rows.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace ljcheck {

// Writes `text` as a JSON string literal; invalid UTF-8 becomes U+FFFD.
void writeJsonString(std::ostream& out, std::string_view text);
// The same, appended to `out`: for writers that build many rows in memory.
void appendJsonString(std::string& out, std::string_view text);
// What appendJsonString appends after the opening quote: for a writer
// that has already appended that quote with the text before it.
void appendJsonStringAfterQuote(std::string& out, std::string_view text);

}  // namespace ljcheck
