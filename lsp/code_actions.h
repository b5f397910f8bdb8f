// textDocument/codeAction: quickfixes that suppress a prediction with the
// comments the analyzer honours, `-- ljcheck: allow(ID)` at the end of its
// line or `-- ljcheck: allow-file(ID)` at the top of the file.
#pragma once

#include <nlohmann/json.hpp>

#include "diagnostics.h"
#include "documents.h"

namespace ljcheck::lsp {

// The CodeAction[] for the predictions whose lines meet [first, last] (0-based).
nlohmann::json codeActionsFor(const Document& document, int firstLine, int lastLine, const DiagnosticStyle& style);

}  // namespace ljcheck::lsp
