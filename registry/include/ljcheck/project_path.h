// Paths as every report shows them: relative to the project root (with '/'
// separators) when the file is inside it, absolute and normalized when it is
// not. The analyzer, the runtime collector and the CLI all show paths through
// this one class, so a site lint predicts and a site the collector observes
// carry the same path, and `ljcheck verify` can rebase reports written under
// different roots.
#pragma once

#include <string>
#include <string_view>

namespace ljcheck {

class ProjectRoot {
 public:
  // `root` absolute or relative to `cwd`; empty: `cwd` itself. An empty
  // `cwd` is the process's working directory.
  explicit ProjectRoot(std::string_view root, std::string_view cwd = {});

  const std::string& path() const { return root_; }  // absolute, normalized, no trailing '/'
  // A file path (absolute, or relative to cwd) as reports show it.
  std::string show(std::string_view file) const;
  // A path shown under `other` (relative to it, or absolute), as this root shows it.
  std::string rebase(std::string_view shown, const ProjectRoot& other) const;

 private:
  std::string cwd_;
  std::string root_;
};

}  // namespace ljcheck
