// Chunk names to report paths: "@file" as the project root shows it
// (ljcheck/project_path.h: relative inside the root, absolute outside; a
// relative name that is no file in the working directory but one under the
// root, the root's),
// "=name" kept as is, source text as [string "..."].
#pragma once

#include <string>
#include <string_view>

#include "ljcheck/project_path.h"

namespace ljcheck {

class LocationResolver {
 public:
  // root: the directory paths are made relative to; "" = the working directory.
  explicit LocationResolver(const std::string& root) : root_(root) {}
  const ProjectRoot& root() const { return root_; }
  std::string displayPath(std::string_view chunkName) const;

 private:
  ProjectRoot root_;
};

}  // namespace ljcheck
