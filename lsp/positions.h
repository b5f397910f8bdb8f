// LSP positions (0-based line, character counted in the negotiated
// encoding) against document text held as UTF-8 bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ljcheck::lsp {

// UTF-16 code units unless the client offers utf-8 (positionEncoding).
enum class PositionEncoding { Utf16, Utf8 };
std::string_view toString(PositionEncoding e);

struct Position {
  int line = 0;
  int character = 0;
};

// Line starts of a text, for moving between positions and byte offsets.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  int lineCount() const { return static_cast<int>(starts_.size()); }
  // The text of a 0-based line without its line break; "" past the end.
  std::string_view line(int line) const;
  // The byte offset of a position; a character past the line's end is the
  // end of the line, a line past the end is the end of the text.
  std::size_t offset(Position p, PositionEncoding encoding) const;
  // The position of a 1-based line and 1-based byte column (0: column 1).
  Position position(int line1, int byteColumn, PositionEncoding encoding) const;
  // The position just past the last character of a 0-based line.
  Position endOfLine(int line, PositionEncoding encoding) const;

 private:
  std::string_view text_;
  std::vector<std::size_t> starts_;
};

}  // namespace ljcheck::lsp
