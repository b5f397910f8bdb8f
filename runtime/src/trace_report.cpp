// The report model's own behaviour: site order, locations, writing a file.
#include "ljcheck/system_error_text.h"
#include "ljcheck/trace_report.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <stdexcept>

namespace ljcheck {

std::string AbortSite::location() const {
  return path.empty() ? std::string("?") : path + ":" + std::to_string(line);
}

std::string AbortSite::startLocation() const {
  return startPath.empty() ? std::string() : startPath + ":" + std::to_string(startLine);
}

void sortSites(std::vector<AbortSite>& sites) {
  std::stable_sort(sites.begin(), sites.end(), [](const AbortSite& a, const AbortSite& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    if (a.count != b.count) return a.count > b.count;
    if (a.path != b.path) return a.path < b.path;
    if (a.line != b.line) return a.line < b.line;
    if (a.reasonId != b.reasonId) return a.reasonId < b.reasonId;
    return a.zonePath < b.zonePath;
  });
}

void writeReportFile(const std::string& filename, const std::string& text) {
  std::ofstream out(filename, std::ios::binary | std::ios::trunc);
  if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (out) out.close();
  if (!out) {
    int err = errno;
    throw std::runtime_error("cannot write report file '" + filename + "': " +
                             (err ? systemErrorText(err) : "write failed"));
  }
}

std::string reportFileProblem(const std::string& filename) {
  struct stat st {};
  if (::stat(filename.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "cannot write report file '" + filename + "': it is a directory";
    if (::access(filename.c_str(), W_OK) != 0)
      return "cannot write report file '" + filename + "': " + systemErrorText(errno);
    return "";
  }
  std::string::size_type slash = filename.find_last_of('/');
  std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : filename.substr(0, slash);
  if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return "cannot write report file '" + filename + "': no directory '" + folder + "'";
  if (::access(folder.c_str(), W_OK) != 0)
    return "cannot write report file '" + filename + "': " + systemErrorText(errno);
  return "";
}

}  // namespace ljcheck
