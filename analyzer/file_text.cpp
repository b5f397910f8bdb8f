// Reading a linted file (see file_text.h).
#include "file_text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "ljcheck/system_error_text.h"
#include "required_modules.h"

namespace ljcheck {
namespace {

std::string tooLarge(std::uintmax_t size, std::uintmax_t limit, bool atLeast) {
  return "file too large (" + std::string(atLeast ? "over " : "") + std::to_string(size) + " bytes; the limit is " +
         std::to_string(limit) + ")";
}

// A file opened for reading, closed when it goes out of scope; fd < 0
// when it could not be opened (errno says why).
struct OpenFile {
  int fd;
  explicit OpenFile(const std::string& path) : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~OpenFile() {
    if (fd >= 0) ::close(fd);
  }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
};

}  // namespace

ReadText readText(const std::string& file, std::uintmax_t maxBytes) {
  ReadText out;
  auto refuse = [&](FileError::Kind kind, std::string message) {
    out.content.clear();
    out.problemKind = kind;
    out.problem = std::move(message);
    return std::move(out);
  };
  // Opened first, then asked what it is: one path look-up per file.
  const OpenFile in(file);
  if (in.fd < 0) return refuse(FileError::Kind::Io, "cannot open file: " + systemErrorText(errno));
  struct stat status;
  const bool known = ::fstat(in.fd, &status) == 0;
  if (known && S_ISDIR(status.st_mode)) return refuse(FileError::Kind::Io, "is a directory, not a file");
  std::uintmax_t expected = 0;  // a regular file's size: read in one go
  const bool regular = known && S_ISREG(status.st_mode);
  if (regular) {
    expected = static_cast<std::uintmax_t>(status.st_size);
    if (expected > maxBytes) return refuse(FileError::Kind::Input, tooLarge(expected, maxBytes, false));
    out.stamp = FileStamp{static_cast<std::uint64_t>(status.st_dev), static_cast<std::uint64_t>(status.st_ino),
                          static_cast<std::uint64_t>(status.st_size), static_cast<std::int64_t>(status.st_mtim.tv_sec),
                          static_cast<std::int64_t>(status.st_mtim.tv_nsec)};
  }
  // Read at most one byte past the limit: a device or pipe has no size to
  // check up front, and a regular file may grow after its size was read.
  std::string& content = out.content;
  std::size_t chunk = static_cast<std::size_t>(expected) + 1;
  while (content.size() <= maxBytes) {
    std::size_t have = content.size();
    content.resize(have + chunk);
    ssize_t got = ::read(in.fd, content.data() + have, chunk);
    if (got < 0 && errno != EINTR) return refuse(FileError::Kind::Io, "cannot read file: " + systemErrorText(errno));
    const auto read = static_cast<std::size_t>(std::max<ssize_t>(got, 0));
    content.resize(have + read);
    // The end: nothing more, or less than asked of a regular file (a pipe
    // or a device may give less and still have more).
    if (got == 0 || (regular && got > 0 && read < chunk)) break;
    chunk = std::size_t{1} << 16;
  }
  if (content.size() > maxBytes) return refuse(FileError::Kind::Input, tooLarge(maxBytes, maxBytes, true));
  return out;
}

std::vector<std::string> requiredModulesOf(const std::string& file, std::uintmax_t maxBytes, std::vector<char>& buffer) {
  struct stat status;
  if (::stat(file.c_str(), &status) != 0 || !S_ISREG(status.st_mode) ||
      static_cast<std::uintmax_t>(status.st_size) > maxBytes)
    return {};
  const OpenFile in(file);
  if (in.fd < 0 || ::fstat(in.fd, &status) != 0 || !S_ISREG(status.st_mode) ||
      static_cast<std::uintmax_t>(status.st_size) > maxBytes)
    return {};
  const auto size = static_cast<std::size_t>(status.st_size);
  if (buffer.size() < size) buffer.resize(size);
  std::size_t have = 0;
  while (have < size) {
    const ssize_t got = ::read(in.fd, buffer.data() + have, size - have);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    have += static_cast<std::size_t>(got);
  }
  return requiredModules(std::string_view(buffer.data(), have));
}

}  // namespace ljcheck
