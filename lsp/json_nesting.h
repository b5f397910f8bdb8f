// A guard in front of nlohmann-json for client messages: copying, comparing
// and dumping a json value recurse once per level, so a message nested
// thousands of levels deep would exhaust the stack of the server.
#pragma once

#include <string_view>

namespace ljcheck::lsp {

// Deeper than any LSP message (initialize's capabilities nest about 8).
inline constexpr int kMaxJsonNesting = 64;

// Whether JSON text opens more than `limit` arrays or objects at once;
// brackets inside strings do not count. Malformed text is left to the parser.
bool nestedDeeperThan(std::string_view json, int limit);

}  // namespace ljcheck::lsp
