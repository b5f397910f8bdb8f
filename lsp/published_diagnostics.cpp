// Reuse of the diagnostics last published for a document (see
// published_diagnostics.h). A diagnostic's text is a function of its
// prediction, the text of the lines its ranges lie on, and the document's
// URI, path and the client's settings; when all of those are equal, so is
// the text, and it is copied instead of written again.
#include "published_diagnostics.h"

#include <optional>
#include <utility>

#include "positions.h"

namespace ljcheck::lsp {
namespace {

bool sameRange(const SourceRange& a, const SourceRange& b) {
  return a.start.line == b.start.line && a.start.column == b.start.column && a.end.line == b.end.line &&
         a.end.column == b.end.column;
}

bool sameMask(const std::optional<MaskingSite>& a, const std::optional<MaskingSite>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->path == b->path && a->line == b->line && a->reasonId == b->reasonId && sameRange(a->range, b->range));
}

// The 0-based lines whose text a prediction's diagnostic reads: its range's
// start and end (or its whole line), and the masking site's line in this file.
template <typename Visit>
bool allLines(const Prediction& p, const std::string& documentPath, Visit visit) {
  auto line0 = [](int line1) { return line1 > 0 ? line1 - 1 : 0; };
  if (p.range.found()) {
    if (!visit(line0(p.range.start.line)) || !visit(line0(p.range.end.line))) return false;
  } else if (!visit(line0(p.line))) {
    return false;
  }
  if (!p.maskedBy || p.maskedBy->path != documentPath) return true;
  const SourceRange& mask = p.maskedBy->range;
  if (mask.found()) return visit(line0(mask.start.line)) && visit(line0(mask.end.line));
  return visit(line0(p.maskedBy->line));
}

}  // namespace

void PublishedDiagnostics::Written::keep(const Prediction& p) {
  line = p.line;
  reasonId = p.reasonId;
  reasonClass = p.reasonClass;
  severity = p.severity;
  confidence = p.confidence;
  range = p.range;
  maskedBy = p.maskedBy;
  message = p.message;
  reasoning = p.reasoning;
}

// Every field of a prediction appendDiagnostic() reads.
bool PublishedDiagnostics::Written::same(const Prediction& p) const {
  return line == p.line && reasonId == p.reasonId && reasonClass == p.reasonClass && severity == p.severity &&
         confidence == p.confidence && sameRange(range, p.range) && sameMask(maskedBy, p.maskedBy) &&
         message == p.message && reasoning == p.reasoning;
}

std::string PublishedDiagnostics::params(const Document& document, const DiagnosticStyle& style) {
  const bool sameSetting = uri_ == document.uri && path_ == document.path && docsUrl_ == style.docsUrl &&
                           encoding_ == style.encoding;
  if (!lines_) lines_.emplace(*text_);
  const LineIndex& before = *lines_;
  // The copy kept for the next publish is made first and indexed once: the
  // index of an equal text serves this publish as well.
  *spare_ = document.text;
  LineIndex now(*spare_);
  const std::vector<Prediction>& predictions = document.result.predictions;
  std::vector<std::string> written(predictions.size());
  reused_ = 0;
  // Predictions come sorted by line: after an edit that keeps the line
  // count, the one at an index is most often the one at that index before.
  auto reusable = [&](std::size_t i) {
    if (!sameSetting || i >= predictions_.size() || !predictions_[i].same(predictions[i]))
      return false;
    return allLines(predictions[i], document.path, [&](int line) { return before.line(line) == now.line(line); });
  };
  std::string out = publishParams(document, style, now, [&](std::string& json, std::size_t i) {
    if (reusable(i)) {
      written[i] = std::move(diagnostics_[i]);
      ++reused_;
    } else {
      appendDiagnostic(written[i], predictions[i], document, now, style);
    }
    json += written[i];
  });
  uri_ = document.uri;
  path_ = document.path;
  docsUrl_ = style.docsUrl;
  encoding_ = style.encoding;
  std::swap(text_, spare_);
  lines_.emplace(std::move(now));
  predictions_.resize(predictions.size());
  for (std::size_t i = 0; i < predictions.size(); ++i) predictions_[i].keep(predictions[i]);
  diagnostics_ = std::move(written);
  return out;
}

}  // namespace ljcheck::lsp
