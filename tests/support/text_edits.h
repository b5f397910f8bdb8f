// Editing a test's source text the way a user would: replace the first
// occurrence of a snippet (which must be there).
#pragma once

#include <catch2/catch.hpp>

#include <string>

namespace ljcheck::testing {

// Replaces the first `from` in `text` by `to`; fails the test when `from` is absent.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace ljcheck::testing
