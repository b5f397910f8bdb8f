// Conversions between LSP positions and byte offsets. UTF-16 columns come
// from the analyzer's own helper (safe_text.h), so the editor and the SARIF
// writer count the same way.
#include "positions.h"

#include <algorithm>
#include <cstring>

#include "ljcheck/safe_text.h"

namespace ljcheck::lsp {

std::string_view toString(PositionEncoding e) { return e == PositionEncoding::Utf8 ? "utf-8" : "utf-16"; }

LineIndex::LineIndex(std::string_view text) : text_(text) {
  starts_.push_back(0);
  // memchr: the index is built for every change and every publish of a big file.
  const char* begin = text.data();
  const char* end = begin + text.size();
  for (const char* at = begin; at < end;) {
    at = static_cast<const char*>(std::memchr(at, '\n', static_cast<std::size_t>(end - at)));
    if (!at) break;
    starts_.push_back(static_cast<std::size_t>(++at - begin));
  }
}

std::string_view LineIndex::line(int line) const {
  if (line < 0 || line >= lineCount()) return {};
  std::size_t start = starts_[static_cast<std::size_t>(line)];
  std::size_t end = line + 1 < lineCount() ? starts_[static_cast<std::size_t>(line) + 1] - 1 : text_.size();
  if (end > start && text_[end - 1] == '\r') --end;
  return text_.substr(start, end - start);
}

std::size_t LineIndex::offset(Position p, PositionEncoding encoding) const {
  if (p.line < 0) return 0;
  if (p.line >= lineCount()) return text_.size();
  std::string_view text = line(p.line);
  std::size_t start = starts_[static_cast<std::size_t>(p.line)];
  if (p.character <= 0) return start;
  if (encoding == PositionEncoding::Utf8)
    return start + std::min(text.size(), static_cast<std::size_t>(p.character));
  // Walk UTF-16 code units: a four-byte sequence is two units; a byte that
  // is not UTF-8 counts one, as utf16Column counts it.
  std::size_t i = 0;
  int units = 0;
  while (i < text.size() && units < p.character) {
    std::size_t n = utf8SequenceLength(text, i);
    units += n == 4 ? 2 : 1;
    i += n == 0 ? 1 : n;
  }
  return start + i;
}

Position LineIndex::position(int line1, int byteColumn, PositionEncoding encoding) const {
  int line0 = std::max(line1 - 1, 0);
  if (byteColumn <= 1) return {line0, 0};
  if (encoding == PositionEncoding::Utf8) {
    int length = static_cast<int>(line(line0).size());
    return {line0, std::min(byteColumn - 1, length)};
  }
  return {line0, utf16Column(line(line0), byteColumn) - 1};
}

Position LineIndex::endOfLine(int line0, PositionEncoding encoding) const {
  return position(line0 + 1, static_cast<int>(line(line0).size()) + 1, encoding);
}

}  // namespace ljcheck::lsp
