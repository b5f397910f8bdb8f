// The token index of a document's last source map, kept for the next one
// (the language server re-lints a document after every edit). Typing a
// number changes digits only; the index is then the same as before, and
// tokenizing and indexing the whole file again is most of a source map's cost.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace ljcheck {

struct SyntaxIndex;

class SyntaxCache {
 public:
  SyntaxCache();
  ~SyntaxCache();
  SyntaxCache(const SyntaxCache&) = delete;
  SyntaxCache& operator=(const SyntaxCache&) = delete;

  // The token index of `source`. The last one when `source` has the last
  // source's length and differs from it only where both have a digit: the
  // lexer decides by character class (a digit is an identifier byte and
  // starts a number whatever its value), so the tokens have the same kinds
  // and positions, and the index reads no more of them than that and the
  // text of keywords and symbols, which hold no digits. The names it keeps
  // view this cache's copy of the text, which is brought up to date in
  // place. Otherwise a new index. The index stays valid until the next call.
  std::shared_ptr<const SyntaxIndex> indexOf(std::string_view source);
  // Whether the last indexOf took the index over (for tests and benchmarks).
  bool tookOver() const { return tookOver_; }

 private:
  std::string text_;  // the text the index was built over, as last brought up to date
  std::shared_ptr<const SyntaxIndex> index_;
  bool tookOver_ = false;
};

}  // namespace ljcheck
