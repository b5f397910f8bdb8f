// textDocument/hover: on a diagnostic's range, the reason's explanation and
// advice from the catalog, or what is wrong with a suppression comment.
#pragma once

#include <nlohmann/json.hpp>

#include "documents.h"
#include "positions.h"

namespace ljcheck::lsp {

// The Hover result at `at`, or null when no prediction or comment problem covers it.
nlohmann::json hoverAt(const Document& document, Position at, PositionEncoding encoding);

}  // namespace ljcheck::lsp
