// Hover text for the predictions under the cursor, from the reason catalog,
// and for the problems of suppression comments there.
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

// The Markdown for a suppression comment's problem: what is wrong, and what
// the comment does meanwhile (docs/configuration.md, Suppression comments).
std::string explain(const DirectiveProblem& p) {
  std::string text = "**" + std::string(directiveId(p.kind)) + "**\n\n" + p.message + "\n\n";
  switch (p.kind) {
    case DirectiveProblem::Kind::UnknownReason:
      text += "An allow ID is a reasonId (`NYIBC:FNEW`), its code (`NYIBC`: every subject), its subject alone "
              "(`FNEW`), or `*`. This one is none of them, so it suppresses nothing.";
      if (!p.nearest.empty()) text += "\n\n**What to do:** replace it with `" + p.nearest + "` (a quick fix does).";
      break;
    case DirectiveProblem::Kind::UnusedAllow:
      text += "No prediction at the confidence asked for stands where this allow applies: the code was fixed, or "
              "the prediction moved. **What to do:** remove the ID from the comment.";
      break;
    case DirectiveProblem::Kind::UnpairedPush:
      text += "Its allows apply to the end of the file. **What to do:** add `-- ljcheck: pop` where the block "
              "should end.";
      break;
    case DirectiveProblem::Kind::UnpairedPop:
      text += "It is ignored. **What to do:** remove it, or add the `-- ljcheck: push allow(...)` it should close.";
      break;
  }
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
  for (const auto& p : document.result.directives) {
    auto [start, end] = directiveRange(p, lines, encoding);
    nlohmann::json r{{"start", toJson(start)}, {"end", toJson(end)}};
    if (!covers(r, at)) continue;
    if (!value.empty()) value += "\n\n---\n\n";
    value += explain(p);
    if (range.is_null()) range = r;
  }
  if (value.empty()) return nullptr;
  return nlohmann::json{{"contents", {{"kind", "markdown"}, {"value", value}}}, {"range", range}};
}

}  // namespace ljcheck::lsp
