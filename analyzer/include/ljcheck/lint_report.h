// Writers for lint results: gcc-style text, JSON, CSV. They read the
// results and never reach back into the analyzer.
#pragma once

#include <ostream>
#include <vector>

#include "ljcheck/prediction.h"
#include "ljcheck/profile.h"

namespace ljcheck {

struct LintReport {
  const RecorderProfile* profile = nullptr;
  std::string root;  // absolute directory the paths are relative to
  std::vector<FileResult> files;
  std::size_t predictionCount() const;
  std::size_t errorCount() const;
  // Whether an unmasked prediction has at least `threshold`: the lint exit status.
  bool hasFindingAtLeast(Severity threshold) const;
};

// `path:line:col: severity: message [reasonId]`; severities read as editors
// expect them: blacklist -> error, warn -> warning, info -> note. A masked
// prediction is a note naming its masking site. With `explain`, each
// prediction is followed by a note at the same place: its confidence and the
// analyzer's reasoning.
void writeText(std::ostream& out, const LintReport& report, bool color, bool explain = true);
// `jobs` threads render the prediction rows; the bytes are the same for any number.
void writeJson(std::ostream& out, const LintReport& report, unsigned jobs = 1);
// path,line,reasonId,class,severity,context,column,confidence,masked with a header (RFC 4180).
void writeCsv(std::ostream& out, const LintReport& report);

// RFC 4180 field: quoted when it holds a comma, quote or line break.
std::string csvField(std::string_view text);

}  // namespace ljcheck
