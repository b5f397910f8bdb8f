// Expands the paths given on the command line into the Lua files to analyze.
#include <algorithm>
#include <filesystem>
#include <system_error>

#include "ljcheck/analyzer.h"

namespace fs = std::filesystem;

namespace ljcheck {
namespace {

bool isLuaFile(const fs::path& p) { return p.extension() == ".lua"; }

bool isHidden(const fs::path& p) {
  std::string name = p.filename().string();
  return name.size() > 1 && name[0] == '.' && name != "..";
}

void walkDirectory(const fs::path& dir, InputList& out) {
  std::error_code ec;
  auto options = fs::directory_options::skip_permission_denied;
  fs::recursive_directory_iterator it(dir, options, ec), end;
  if (ec) {
    out.errors.push_back({FileError::Kind::Io, dir.string(), 0, "cannot read directory: " + ec.message()});
    return;
  }
  for (; it != end; it.increment(ec)) {
    if (ec) {
      out.errors.push_back({FileError::Kind::Io, it->path().string(), 0, "cannot read: " + ec.message()});
      ec.clear();
      continue;
    }
    const fs::path& p = it->path();
    std::error_code sec;
    auto status = it->status(sec);
    if (fs::is_directory(status)) {
      // Hidden directories (.git) are skipped; directory symlinks are not
      // followed, so symlink loops cannot trap the walk.
      if (isHidden(p)) it.disable_recursion_pending();
      continue;
    }
    if (sec) {
      if (isLuaFile(p))
        out.errors.push_back({FileError::Kind::Io, p.string(), 0, "cannot read: " + sec.message()});
      continue;
    }
    if (fs::is_regular_file(status) && isLuaFile(p)) out.files.push_back(p.string());
  }
}

}  // namespace

InputList collectInputs(const std::vector<std::string>& paths) {
  InputList out;
  for (const auto& path : paths) {
    std::error_code ec;
    auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
      out.errors.push_back({FileError::Kind::Io, path, 0, "no such file or directory"});
    } else if (fs::is_directory(status)) {
      walkDirectory(path, out);
    } else {
      out.files.push_back(path);  // named explicitly: analyzed whatever its extension
    }
  }
  std::sort(out.files.begin(), out.files.end());
  out.files.erase(std::unique(out.files.begin(), out.files.end()), out.files.end());
  return out;
}

}  // namespace ljcheck
