// The workspace as it is on disk (see disk_view.h).
#include "disk_view.h"

#include <system_error>
#include <utility>

namespace ljcheck::lsp {

DiskView::DiskView(std::string root, InputFilter filter) : root_(std::move(root)), filter_(std::move(filter)) {
  look(written_);
}

void DiskView::look(std::map<std::string, std::filesystem::file_time_type>& into) const {
  for (auto& file : collectInputs({root_}, filter_).files) {
    std::error_code ec;
    auto time = std::filesystem::last_write_time(file, ec);  // a file gone since the listing: no time
    into.emplace(std::move(file), ec ? std::filesystem::file_time_type::min() : time);
  }
}

DiskChanges DiskView::refresh() {
  std::map<std::string, std::filesystem::file_time_type> now;
  look(now);
  DiskChanges changes;
  for (const auto& [file, time] : now) {
    auto was = written_.find(file);
    if (was == written_.end()) changes.created.push_back(file);
    else if (was->second != time) changes.written.push_back(file);
  }
  for (const auto& [file, time] : written_)
    if (!now.count(file)) changes.deleted.push_back(file);
  written_ = std::move(now);
  return changes;
}

std::vector<std::string> DiskView::files() const {
  std::vector<std::string> out;
  out.reserve(written_.size());
  for (const auto& [file, time] : written_) out.push_back(file);
  return out;
}

}  // namespace ljcheck::lsp
