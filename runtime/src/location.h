// Chunk names to report paths: "@file" relative to the report root (absolute
// when outside it), "=name" kept as is, source text as [string "..."].
#pragma once

#include <string>
#include <string_view>

namespace ljcheck {

class LocationResolver {
 public:
  // root: the directory paths are made relative to; "" = the working directory.
  explicit LocationResolver(const std::string& root);
  const std::string& root() const { return root_; }  // absolute, normalized
  std::string displayPath(std::string_view chunkName) const;
  // A file path (not a chunk name) made relative to the root when inside it.
  std::string relativePath(std::string_view path) const;

 private:
  std::string cwd_;
  std::string root_;
};

}  // namespace ljcheck
