// The order buildvm numbers fast functions in: src/Makefile passes the
// library sources as $(LJLIB_C), i.e. LJLIB_O with .o -> .c, and buildvm
// reads them one after the other (src/host/buildvm_lib.c: emit_lib).
#include <sstream>

#include "scans.h"

namespace ljcheck::extractor {
namespace {

// The value of `NAME= ...` with its backslash-continued lines joined.
std::optional<std::string> makeVariable(const std::string& makefile, const std::string& name) {
  std::istringstream in(makefile);
  std::string line;
  std::optional<std::string> value;
  bool continued = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!continued) {
      std::size_t start = line.find_first_not_of(" \t");
      if (start == std::string::npos || line.compare(start, name.size(), name) != 0) continue;
      std::size_t eq = line.find_first_not_of(" \t", start + name.size());
      if (eq == std::string::npos || line[eq] != '=') continue;
      value = std::string();
      line = line.substr(eq + 1);
    }
    continued = !line.empty() && line.back() == '\\';
    if (continued) line.pop_back();
    *value += ' ' + line;
    if (!continued) break;
  }
  return value;
}

}  // namespace

std::vector<std::string> libraryFiles(const SourceTree& tree) {
  const std::string makefile = "Makefile";
  std::optional<std::string> objects = makeVariable(tree.read(makefile), "LJLIB_O");
  if (!objects) throw ExtractError(makefile, "no LJLIB_O list of library objects (buildvm's input order)");
  std::vector<std::string> files;
  std::istringstream words(*objects);
  for (std::string word; words >> word;) {
    if (word.size() < 3 || word.compare(word.size() - 2, 2, ".o") != 0)
      throw ExtractError(makefile, "LJLIB_O holds '" + word + "', not an object file name");
    files.push_back(word.substr(0, word.size() - 2) + ".c");
  }
  if (files.empty()) throw ExtractError(makefile, "LJLIB_O is empty");
  return files;
}

}  // namespace ljcheck::extractor
