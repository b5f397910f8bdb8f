// Chunk names to report paths (see location.h).
#include "location.h"

#include <filesystem>
#include <system_error>

namespace ljcheck {
namespace fs = std::filesystem;

namespace {

std::string currentDirectory() {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  return ec ? std::string("/") : cwd.string();
}

fs::path absoluteFrom(const std::string& base, std::string_view path) {
  fs::path p{std::string(path)};
  return (p.is_absolute() ? p : fs::path(base) / p).lexically_normal();
}

// Like lua_Debug.short_src for a chunk loaded from a string: its first line.
std::string stringChunkName(std::string_view source) {
  constexpr std::size_t kMaxShown = 40;
  std::size_t end = source.find_first_of("\r\n");
  bool cut = end != std::string_view::npos || source.size() > kMaxShown;
  std::string_view shown = source.substr(0, std::min(end, kMaxShown));
  return "[string \"" + std::string(shown) + (cut ? "...\"]" : "\"]");
}

}  // namespace

LocationResolver::LocationResolver(const std::string& root) : cwd_(currentDirectory()) {
  std::string normalized = absoluteFrom(cwd_, root.empty() ? cwd_ : root).string();
  while (normalized.size() > 1 && normalized.back() == '/') normalized.pop_back();
  root_ = normalized;
}

std::string LocationResolver::relativePath(std::string_view path) const {
  fs::path absolute = absoluteFrom(cwd_, path);
  fs::path relative = absolute.lexically_relative(root_);
  if (relative.empty() || *relative.begin() == "..") return absolute.string();
  return relative.string();
}

std::string LocationResolver::displayPath(std::string_view chunkName) const {
  if (chunkName.empty()) return {};
  if (chunkName.front() == '@') return relativePath(chunkName.substr(1));
  if (chunkName.front() == '=') return std::string(chunkName);
  return stringChunkName(chunkName);
}

}  // namespace ljcheck
