// The language server's view of a workspace on disk: the files lint would
// list under the root, and when each was last written. Looking again says
// what changed since: files created, deleted or written. Used after a
// client reports watched files, and, for clients that watch nothing, when a
// document is opened or saved.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ljcheck/analyzer.h"

namespace ljcheck::lsp {

struct DiskChanges {
  std::vector<std::string> created, deleted, written;
  bool empty() const { return created.empty() && deleted.empty() && written.empty(); }
};

class DiskView {
 public:
  DiskView() = default;
  // Lists the root now, as collectInputs does with `filter`.
  DiskView(std::string root, InputFilter filter);
  // Lists again and compares with the last look.
  DiskChanges refresh();
  // The files of the last look, sorted.
  std::vector<std::string> files() const;

 private:
  std::string root_;
  InputFilter filter_;
  std::map<std::string, std::filesystem::file_time_type> written_;  // by file
  void look(std::map<std::string, std::filesystem::file_time_type>& into) const;
};

}  // namespace ljcheck::lsp
