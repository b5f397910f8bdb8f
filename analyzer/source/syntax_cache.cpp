// Taking a document's token index over after an edit of digits only
// (ljcheck/syntax_cache.h).
#include "ljcheck/syntax_cache.h"

#include <cstring>

#include "source/syntax_index.h"

namespace ljcheck {

namespace {

constexpr std::size_t kBlock = 4096;  // compared with memcmp before byte by byte

// The first index where `a` and `b` (of one length) differ; their size when equal.
std::size_t firstDifference(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  while (i + kBlock <= a.size() && std::memcmp(a.data() + i, b.data() + i, kBlock) == 0) i += kBlock;
  while (i < a.size() && a[i] == b[i]) ++i;
  return i;
}

// One past the last index where they differ (after `from`, a difference).
std::size_t lastDifference(std::string_view a, std::string_view b, std::size_t from) {
  std::size_t end = a.size();
  while (end >= from + kBlock && std::memcmp(a.data() + end - kBlock, b.data() + end - kBlock, kBlock) == 0)
    end -= kBlock;
  while (end > from && a[end - 1] == b[end - 1]) --end;
  return end;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

SyntaxCache::SyntaxCache() = default;
SyntaxCache::~SyntaxCache() = default;

std::shared_ptr<const SyntaxIndex> SyntaxCache::indexOf(std::string_view source) {
  tookOver_ = false;
  if (index_ && source.size() == text_.size()) {
    const std::size_t first = firstDifference(text_, source);
    const std::size_t end = first == source.size() ? first : lastDifference(text_, source, first);
    bool digitsOnly = true;
    for (std::size_t i = first; i < end && digitsOnly; ++i)
      digitsOnly = text_[i] == source[i] || (isDigit(text_[i]) && isDigit(source[i]));
    if (digitsOnly) {
      // In place: the index's names view text_.
      std::memcpy(text_.data() + first, source.data() + first, end - first);
      tookOver_ = true;
      return index_;
    }
  }
  index_.reset();
  text_.assign(source.data(), source.size());
  index_ = std::make_shared<const SyntaxIndex>(text_);
  return index_;
}

}  // namespace ljcheck
