// Columns in UTF-16 code units for the writers whose consumers count them so
// (SARIF with columnKind utf16CodeUnits, GitHub annotations): predictions
// carry byte columns, so each file's text is read once through the lookup.
#pragma once

#include <string>
#include <vector>

#include "ljcheck/lint_report.h"

namespace ljcheck {

class Utf16Columns {
 public:
  explicit Utf16Columns(const SourceLookup& source) : source_(source) {}
  // The byte column on `line` of `path` in UTF-16 code units; the byte
  // column itself when the file or line cannot be read; 0 stays 0.
  int convert(const std::string& path, int line, int byteColumn);

 private:
  const SourceLookup& source_;
  bool loaded_ = false;
  std::string path_;                      // the file whose text is held
  std::string text_;
  std::vector<std::size_t> lineStarts_;  // empty: the file could not be read
};

}  // namespace ljcheck
