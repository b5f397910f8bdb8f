// Chunk names to report paths (see location.h).
#include "location.h"

#include <algorithm>

namespace ljcheck {

namespace {

// Like lua_Debug.short_src for a chunk loaded from a string: its first line.
std::string stringChunkName(std::string_view source) {
  constexpr std::size_t kMaxShown = 40;
  std::size_t end = source.find_first_of("\r\n");
  bool cut = end != std::string_view::npos || source.size() > kMaxShown;
  std::string_view shown = source.substr(0, std::min(end, kMaxShown));
  return "[string \"" + std::string(shown) + (cut ? "...\"]" : "\"]");
}

}  // namespace

std::string LocationResolver::displayPath(std::string_view chunkName) const {
  if (chunkName.empty()) return {};
  if (chunkName.front() == '@') return root_.show(chunkName.substr(1));
  if (chunkName.front() == '=') return std::string(chunkName);
  return stringChunkName(chunkName);
}

}  // namespace ljcheck
