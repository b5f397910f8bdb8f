// What the source text adds to a prediction: the column range of the
// construct on its line, and `-- ljcheck: allow(ID, ...)` suppressions.
// Columns come from a scan of the one line (cheap: most files have some
// predictions); suppressions from tree-sitter, only in files that have an
// `ljcheck:` comment at all, so statements are delimited exactly.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ljcheck/reason.h"

namespace ljcheck {

struct ColumnRange {
  int begin = 0;  // 1-based; 0 when not found
  int end = 0;    // 1-based, exclusive
};

class SourceMap {
 public:
  explicit SourceMap(std::string_view source);
  ~SourceMap();
  SourceMap(const SourceMap&) = delete;
  SourceMap& operator=(const SourceMap&) = delete;

  // The construct on `line`: "closure" (the `function` keyword), "vararg"
  // (`...`), "call" (the callee, matched by the last part of its name).
  ColumnRange locate(int line, std::string_view construct, std::string_view callee) const;
  // True when an allow comment covers this line for this reasonId (an ID
  // names itself, or a CODE all its subjects: allow(NYIBC) covers NYIBC:FNEW).
  bool suppressed(int line, const ReasonId& reasonId) const;

  struct Allow {
    int firstLine = 0, lastLine = 0;  // 0, 0: the whole file
    std::vector<std::string> ids;
  };
  const std::vector<Allow>& allows() const { return allows_; }

 private:
  std::string_view lineText(int line) const;
  std::string_view source_;
  std::vector<std::size_t> lineStarts_;
  std::vector<Allow> allows_;
};

}  // namespace ljcheck
