// A LuaJIT source tree as the extractor reads it: its src/ folder, the files
// it must hold, and the headers buildvm generates at build time, which the
// parser is shown in their place.
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace ljcheck::extractor {

class SourceTree {
 public:
  // `dir` is a LuaJIT tree (holding src/) or its src/ folder. Throws
  // ExtractError when it is neither.
  explicit SourceTree(const std::string& dir);

  const std::filesystem::path& srcDir() const { return src_; }
  std::string path(const std::string& file) const { return (src_ / file).string(); }
  // Throws ExtractError naming `file` when src/ does not hold it.
  void require(const std::string& file) const;
  // The whole file; throws ExtractError when it cannot be read.
  std::string read(const std::string& file) const;

  // Full path -> contents of the generated headers (lj_libdef.h, lj_ffdef.h,
  // lj_recdef.h, ...). The source tree does not hold them; an #include of one
  // must resolve to exactly this path to be replaced.
  const std::map<std::string, std::string>& generatedHeaders() const { return generated_; }
  void setGeneratedHeader(const std::string& file, std::string contents);

 private:
  std::filesystem::path src_;
  std::map<std::string, std::string> generated_;
};

}  // namespace ljcheck::extractor
