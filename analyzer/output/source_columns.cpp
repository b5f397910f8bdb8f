// UTF-16 columns over a file's lines (see source_columns.h).
#include "output/source_columns.h"

#include "ljcheck/safe_text.h"

namespace ljcheck {

int Utf16Columns::convert(const std::string& path, int line, int byteColumn) {
  if (byteColumn <= 0 || line <= 0) return byteColumn;
  if (!loaded_ || path != path_) {
    loaded_ = true;
    path_ = path;
    text_.clear();
    lineStarts_.clear();
    if (auto text = source_ ? source_(path) : std::nullopt) {
      text_ = std::move(*text);
      lineStarts_.push_back(0);
      for (std::size_t i = 0; i < text_.size(); ++i)
        if (text_[i] == '\n') lineStarts_.push_back(i + 1);
    }
  }
  if (static_cast<std::size_t>(line) > lineStarts_.size()) return byteColumn;
  std::size_t start = lineStarts_[static_cast<std::size_t>(line) - 1];
  std::size_t end = text_.find('\n', start);
  std::string_view text(text_);
  return utf16Column(text.substr(start, end == std::string::npos ? std::string::npos : end - start), byteColumn);
}

}  // namespace ljcheck
