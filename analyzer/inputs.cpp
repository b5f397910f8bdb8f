// Expands the paths given on the command line into the Lua files to analyze.
// Every path that cannot be used becomes a FileError naming it; the walk goes
// on with the rest.
#include <algorithm>
#include <cctype>
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

// One directory level at a time, so that a directory that cannot be opened is
// reported and skipped while its siblings are still walked. Directory
// symlinks are not followed (a link to a parent cannot trap the walk); file
// symlinks are, and a broken or looping one is reported when named *.lua.
void walkDirectory(const fs::path& dir, InputList& out) {
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
    bool isLink = it->is_symlink(lec);
    auto status = it->status(sec);
    if (!isLink && fs::is_directory(status)) {
      if (!isHidden(p)) subdirectories.push_back(p);  // .git and friends are skipped
    } else if (isLuaFile(p)) {
      if (sec) out.errors.push_back(ioError(p, "cannot read: " + describe(sec)));
      else if (fs::is_regular_file(status)) out.files.push_back(shown(p));
    }
  }
  if (ec) out.errors.push_back(ioError(dir, "cannot read directory: " + describe(ec)));
  for (const auto& sub : subdirectories) walkDirectory(sub, out);
}

}  // namespace

InputList collectInputs(const std::vector<std::string>& paths) {
  InputList out;
  for (const auto& path : paths) {
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
      walkDirectory(path, out);
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
  std::stable_sort(out.errors.begin(), out.errors.end(),
                   [](const FileError& a, const FileError& b) { return a.path < b.path; });
  return out;
}

}  // namespace ljcheck
