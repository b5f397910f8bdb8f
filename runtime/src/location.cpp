// Chunk names to report paths (see location.h).
#include "location.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

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
  if (chunkName.front() == '@') {
    std::string_view file = chunkName.substr(1);
    // A relative chunk name is the working directory's. One that names no
    // file there but one under the root is the root's: a host that compiled
    // its modules in under names relative to its runtime folder (Neovim's
    // "@vim/shared.lua" for <runtime>/lua/vim/shared.lua, audit 48).
    namespace fs = std::filesystem;
    if (!file.empty() && file.front() != '/') {
      std::error_code ec;
      const fs::path underRoot = fs::path(root_.path()) / fs::path(file);
      if (!fs::exists(fs::path(file), ec) && fs::is_regular_file(underRoot, ec)) return root_.show(underRoot.string());
    }
    return root_.show(file);
  }
  if (chunkName.front() == '=') return std::string(chunkName);
  return stringChunkName(chunkName);
}

}  // namespace ljcheck
