// What was last published for one document, kept so that the next publish
// after an edit writes only the diagnostics whose inputs changed: a
// 5,000-line file has hundreds of diagnostics, and a one-line edit changes
// one or none of them. The text is the same as publishParams() writes.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "documents.h"

namespace ljcheck::lsp {

class PublishedDiagnostics {
 public:
  // publishParams(document, style), reusing the JSON text of each
  // diagnostic whose prediction and source lines equal the last call's.
  std::string params(const Document& document, const DiagnosticStyle& style);
  // How many diagnostics the last params() call took from the one before.
  std::size_t reused() const { return reused_; }

 private:
  // The fields of a prediction its diagnostic's text reads: kept instead of
  // the whole prediction (the advice, the function and the rest are never
  // written), since every publish copies them all.
  struct Written {
    int line = 0;
    ReasonId reasonId;
    ReasonClass reasonClass = ReasonClass::Risk;
    Severity severity = Severity::Warn;
    Confidence confidence = Confidence::Likely;
    SourceRange range;
    std::optional<MaskingSite> maskedBy;
    std::string message, reasoning;
    // Assigned field by field: the strings keep their buffers from one
    // publish to the next.
    void keep(const Prediction& p);
    bool same(const Prediction& p) const;
  };
  // What every diagnostic's text depends on besides its prediction and lines.
  std::string uri_, path_, docsUrl_;
  PositionEncoding encoding_ = PositionEncoding::Utf16;
  // The last text, on the heap so that lines_ (which views it) stays valid
  // when this object moves; its index is the "before" of the next publish.
  // The next text is copied into spare_, and the two trade places.
  std::unique_ptr<std::string> text_ = std::make_unique<std::string>();
  std::unique_ptr<std::string> spare_ = std::make_unique<std::string>();
  std::optional<LineIndex> lines_;
  std::vector<Written> predictions_;
  std::vector<std::string> diagnostics_;  // the JSON text of each of predictions_
  std::size_t reused_ = 0;
};

}  // namespace ljcheck::lsp
