// Locates the files of a LuaJIT source tree and stands in for the headers
// buildvm would generate.
#include "source_tree.h"

#include <fstream>
#include <sstream>
#include <system_error>

#include "ljcheck/extractor.h"

namespace ljcheck::extractor {
namespace fs = std::filesystem;

namespace {

// buildvm writes these from the lib_*.c annotations, lj_bc.h and
// lj_opt_fold.c; the sources include them. Empty stand-ins keep the parser
// quiet; lj_ffdef.h gets real contents once the fast functions are known.
const char* const kGeneratedHeaders[] = {"lj_bcdef.h", "lj_ffdef.h", "lj_folddef.h", "lj_libdef.h", "lj_recdef.h"};

}  // namespace

SourceTree::SourceTree(const std::string& dir) {
  std::error_code ec;
  const fs::path root(dir);
  if (!fs::is_directory(root, ec))
    throw ExtractError(dir, "not a directory: expected a LuaJIT source tree or its src/ folder");
  src_ = fs::is_directory(root / "src", ec) ? root / "src" : root;
  for (const char* header : kGeneratedHeaders) generated_[path(header)] = "";
}

void SourceTree::require(const std::string& file) const {
  std::error_code ec;
  if (!fs::is_regular_file(src_ / file, ec)) throw ExtractError(file, "file not found in " + src_.string());
}

std::string SourceTree::read(const std::string& file) const {
  require(file);
  std::ifstream in(src_ / file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw ExtractError(file, "cannot be read");
  return text.str();
}

void SourceTree::setGeneratedHeader(const std::string& file, std::string contents) {
  generated_[path(file)] = std::move(contents);
}

}  // namespace ljcheck::extractor
