// Expands the paths given on the command line into the Lua files to analyze.
// Every path that cannot be used becomes a FileError naming it; the walk goes
// on with the rest.
#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <system_error>
#include <utility>

#include "ljcheck/analyzer.h"

namespace fs = std::filesystem;

namespace ljcheck {
namespace {

bool isLuaFile(const fs::path& p) { return p.extension() == ".lua"; }

bool isHidden(const fs::path& p) {
  std::string name = p.filename().string();
  return name.size() > 1 && name[0] == '.' && name != "..";
}

// "No such file or directory" -> "no such file or directory", as the rest of
// the one-line messages read.
std::string describe(const std::error_code& ec) {
  std::string text = ec.message();
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

// "./src/./x.lua" -> "src/x.lua": inputs read as the user would write them.
// Only "." goes: dropping "a/.." would be wrong when a is a symlink.
std::string shown(const fs::path& p) {
  fs::path out;
  for (const auto& part : p)
    if (part != ".") out /= part;
  return out.empty() ? p.string() : out.string();
}

FileError ioError(const fs::path& p, const std::string& message) {
  return {FileError::Kind::Io, shown(p), 0, message};
}

// `path` relative to `base` when it lies under it (lexically, after making
// both absolute), else the path as given.
std::string relativeTo(const std::string& base, const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec).lexically_normal();
  fs::path from = fs::absolute(base.empty() ? fs::path(".") : fs::path(base), ec).lexically_normal();
  if (ec) return path;
  fs::path relative = absolute.lexically_relative(from);
  if (relative.empty() || *relative.begin() == "..") return path;
  return relative.string();
}

bool globMatches(const std::string& glob, const std::string& path) {
  std::string_view g = glob;
  while (g.size() > 1 && g.back() == '/') g.remove_suffix(1);  // "vendor/" names the folder
  while (g.substr(0, 2) == "./") g.remove_prefix(2);
  std::string pattern(g);
  if (fnmatch(pattern.c_str(), path.c_str(), 0) == 0) return true;
  return pattern.rfind("**/", 0) == 0 && fnmatch(pattern.c_str() + 3, path.c_str(), 0) == 0;
}

// The walk and the command-line inputs, filtered.
struct Walk {
  const InputFilter& filter;
  InputList& out;
  bool excluded(const fs::path& p) const {
    return !filter.exclude.empty() && pathMatchesGlobs(filter.exclude, filter.base, p.string());
  }
  bool taken(const fs::path& p) const {
    if (filter.include.empty()) return isLuaFile(p);
    return pathMatchesGlobs(filter.include, filter.base, p.string());
  }
};

// One directory level at a time, so that a directory that cannot be opened is
// reported and skipped while its siblings are still walked. Directory
// symlinks are not followed (a link to a parent cannot trap the walk); file
// symlinks are, and a broken or looping one is reported when named *.lua.
void walkDirectory(const fs::path& dir, const Walk& walk) {
  InputList& out = walk.out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    out.errors.push_back(ioError(dir, "cannot read directory: " + describe(ec)));
    return;
  }
  std::vector<fs::path> subdirectories;
  for (; it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    std::error_code lec, sec;
    // The entry's own type comes with the listing: only a symlink is
    // stat'ed, to follow it.
    const bool isLink = it->is_symlink(lec);
    if (walk.excluded(p)) continue;
    if (!isLink && it->is_directory(sec)) {
      if (!isHidden(p)) subdirectories.push_back(p);  // .git and friends are skipped
    } else if (walk.taken(p)) {
      const bool regular = isLink ? fs::is_regular_file(it->status(sec)) : it->is_regular_file(sec);
      if (sec) out.errors.push_back(ioError(p, "cannot read: " + describe(sec)));
      else if (regular) out.files.push_back(shown(p));
    }
  }
  if (ec) out.errors.push_back(ioError(dir, "cannot read directory: " + describe(ec)));
  for (const auto& sub : subdirectories) walkDirectory(sub, walk);
}

}  // namespace

bool pathMatchesGlobs(const std::vector<std::string>& globs, const std::string& base, const std::string& path) {
  // An absolute glob (a config file's, anchored at its folder) is matched
  // against the absolute path, a relative one against the path under `base`.
  std::error_code ec;
  const fs::path relative = shown(relativeTo(base, path));
  const fs::path absolute = fs::absolute(path, ec).lexically_normal();
  for (const auto& glob : globs) {
    const bool anchored = !glob.empty() && glob[0] == '/';
    for (fs::path p = anchored ? absolute : relative; !p.empty() && p != p.root_path(); p = p.parent_path())
      if (globMatches(glob, p.string())) return true;
  }
  return false;
}

std::string globProblem(const std::string& glob) {
  for (std::size_t i = 0; i < glob.size(); ++i) {
    if (glob[i] == '\\') {
      ++i;  // an escaped character stands for itself
      continue;
    }
    if (glob[i] != '[') continue;
    std::size_t end = i + 1;
    if (end < glob.size() && (glob[end] == '!' || glob[end] == '^')) ++end;
    if (end < glob.size() && glob[end] == ']') ++end;  // a ']' first in a class is one of its characters
    end = glob.find(']', end);
    if (end == std::string::npos)
      return "the glob '" + glob + "' opens a character class with '[' at column " + std::to_string(i + 1) +
             " that no ']' closes (write \\[ for a literal '[')";
    i = end;
  }
  return {};
}

namespace {

// Drops the later paths of a file already listed under another (same device
// and inode): `src` and a symlink to it, or a bind mount, are linted once.
// Keeps the sizes that the same look-up gives.
void dropSecondPaths(InputList& list) {
  std::set<std::pair<dev_t, ino_t>> seen;
  std::vector<std::string> kept;
  kept.reserve(list.files.size());
  list.sizes.clear();
  list.sizes.reserve(list.files.size());
  for (auto& f : list.files) {
    struct stat st;
    const bool known = ::stat(f.c_str(), &st) == 0;
    if (known && !seen.insert({st.st_dev, st.st_ino}).second) continue;
    kept.push_back(std::move(f));
    list.sizes.push_back(known && S_ISREG(st.st_mode) ? static_cast<std::uintmax_t>(st.st_size) : 0);
  }
  list.files = std::move(kept);
}

}  // namespace

InputList collectInputs(const std::vector<std::string>& paths, const InputFilter& filter) {
  InputList out;
  const Walk walk{filter, out};
  for (const auto& path : paths) {
    if (walk.excluded(path)) continue;
    std::error_code ec;
    auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
      std::error_code lec;
      bool dangling = fs::is_symlink(fs::symlink_status(path, lec));
      std::string why = ec && ec != std::errc::no_such_file_or_directory ? describe(ec) : "no such file or directory";
      out.errors.push_back(ioError(path, dangling && why == "no such file or directory"
                                             ? why + " (broken symbolic link)"
                                             : why));
    } else if (fs::is_directory(status)) {
      walkDirectory(path, walk);
    } else if (fs::is_fifo(status) || fs::is_socket(status)) {
      // Opening one waits for a writer that may never come; the walk skips them too.
      out.errors.push_back(ioError(path, fs::is_fifo(status) ? "is a named pipe (FIFO), not a file"
                                                             : "is a socket, not a file"));
    } else {
      out.files.push_back(shown(path));  // named explicitly: analyzed whatever its extension
    }
  }
  std::sort(out.files.begin(), out.files.end());
  out.files.erase(std::unique(out.files.begin(), out.files.end()), out.files.end());
  dropSecondPaths(out);
  std::stable_sort(out.errors.begin(), out.errors.end(),
                   [](const FileError& a, const FileError& b) { return a.path < b.path; });
  return out;
}

}  // namespace ljcheck
