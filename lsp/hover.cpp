// Hover text for the predictions under the cursor, from the reason catalog.
#include "hover.h"

#include "diagnostics.h"
#include "ljcheck/reason.h"

namespace ljcheck::lsp {
namespace {

Position positionOf(const nlohmann::json& p) { return {p["line"].get<int>(), p["character"].get<int>()}; }

bool notAfter(Position a, Position b) { return a.line < b.line || (a.line == b.line && a.character <= b.character); }

// Whether an LSP range holds `at`, both ends included (the cursor may rest
// just past the construct).
bool covers(const nlohmann::json& range, Position at) {
  return notAfter(positionOf(range["start"]), at) && notAfter(at, positionOf(range["end"]));
}

// The Markdown for one prediction: what it is, why, and what to do.
std::string explain(const Prediction& p) {
  std::string text = "**" + p.reasonId.str() + "**";
  const Reason* reason = ReasonCatalog::builtin().find(p.reasonId.code());
  if (reason) text += ": " + reason->title;
  text += "\n\n" + p.message;
  if (reason) text += "\n\n" + reason->explanation + "\n\n**What to do:** " + reason->advice;
  text += "\n\n*Confidence: " + std::string(toString(p.confidence)) + ".*";
  if (!p.reasoning.empty()) text += " " + p.reasoning;
  return text;
}

}  // namespace

nlohmann::json hoverAt(const Document& document, Position at, PositionEncoding encoding) {
  LineIndex lines(document.text);
  std::string value;
  nlohmann::json range;
  for (const auto& p : document.result.predictions) {
    nlohmann::json r = predictionRange(p, lines, encoding);
    if (!covers(r, at)) continue;
    if (!value.empty()) value += "\n\n---\n\n";
    value += explain(p);
    if (range.is_null()) range = r;
  }
  if (value.empty()) return nullptr;
  return nlohmann::json{{"contents", {{"kind", "markdown"}, {"value", value}}}, {"range", range}};
}

}  // namespace ljcheck::lsp
