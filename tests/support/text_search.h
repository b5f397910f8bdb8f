// Looking for text in what a command printed.
#pragma once

#include <cstddef>
#include <string>

namespace ljcheck::testing {

// Whether `part` occurs in `text`.
inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// How many times `what` occurs in `text`, overlapping occurrences included.
inline std::size_t countOf(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace ljcheck::testing
