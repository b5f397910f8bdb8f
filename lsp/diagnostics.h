// An analysis as LSP diagnostics: one per prediction (masked ones as hints
// pointing at the masking site), one per file error (a syntax error).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "documents.h"
#include "positions.h"

namespace ljcheck::lsp {

struct DiagnosticStyle {
  PositionEncoding encoding = PositionEncoding::Utf16;
  std::string docsUrl;  // the folder holding reasons/, ending in '/'; "" for no links
};

// The LSP range of a prediction: its construct, else its whole line.
nlohmann::json predictionRange(const Prediction& p, const LineIndex& lines, PositionEncoding encoding);
nlohmann::json toJson(Position p);
// The LSP range of a suppression comment's problem: from the comment to the
// end of its line.
std::pair<Position, Position> directiveRange(const DirectiveProblem& p, const LineIndex& lines,
                                             PositionEncoding encoding);

// One Diagnostic as JSON text appended to `out`, and as a json value.
void appendDiagnostic(std::string& out, const Prediction& p, const Document& document, const LineIndex& lines,
                      const DiagnosticStyle& style);
nlohmann::json diagnosticFor(const Prediction& p, const Document& document, const LineIndex& lines,
                             const DiagnosticStyle& style);

// The params of textDocument/publishDiagnostics for a document's analysis,
// as JSON text.
std::string publishParams(const Document& document, const DiagnosticStyle& style);
// The same, with the diagnostic of document.result.predictions[i] written
// by appendPrediction(out, i).
// `lines`: the LineIndex of document.text, built once by the caller.
std::string publishParams(const Document& document, const DiagnosticStyle& style, const LineIndex& lines,
                          const std::function<void(std::string&, std::size_t)>& appendPrediction);

}  // namespace ljcheck::lsp
