// Report paths relative to the project root (see project_path.h).
#include "ljcheck/project_path.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace ljcheck {
namespace fs = std::filesystem;

namespace {

std::string workingDirectory() {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  return ec ? std::string("/") : cwd.generic_string();
}

fs::path absoluteFrom(const std::string& base, std::string_view path) {
  fs::path p{std::string(path)};
  return (p.is_absolute() ? p : fs::path(base) / p).lexically_normal();
}

std::string withoutTrailingSlash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// A relative path that normalizing leaves as it is: no empty, "." or ".."
// component, no trailing '/'.
bool plainRelative(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.back() == '/') return false;
  for (std::size_t at = 0; at <= path.size();) {
    std::size_t end = std::min(path.find('/', at), path.size());
    std::string_view part = path.substr(at, end - at);
    if (part.empty() || part == "." || part == "..") return false;
    at = end + 1;
  }
  return true;
}

}  // namespace

ProjectRoot::ProjectRoot(std::string_view root, std::string_view cwd)
    : cwd_(cwd.empty() ? workingDirectory() : withoutTrailingSlash(std::string(cwd))) {
  root_ = withoutTrailingSlash(absoluteFrom(cwd_, root.empty() ? std::string_view(cwd_) : root).generic_string());
}

std::string ProjectRoot::show(std::string_view file) const {
  if (file.empty()) return {};
  // The files a walk of the working folder lists, under the default root:
  // shown as they are (the general way below costs 24k instructions each).
  if (root_ == cwd_ && plainRelative(file)) return std::string(file);
  fs::path absolute = absoluteFrom(cwd_, file);
  fs::path relative = absolute.lexically_relative(root_);
  if (relative.empty() || *relative.begin() == "..") return absolute.generic_string();
  return relative.generic_string();
}

std::string ProjectRoot::rebase(std::string_view shown, const ProjectRoot& other) const {
  if (shown.empty()) return {};
  return show(absoluteFrom(other.root_, shown).generic_string());
}

}  // namespace ljcheck
