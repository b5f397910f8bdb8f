// A source the extractor reads must compile as LuaJIT's own build compiles
// it; otherwise its facts may be silently incomplete (a library file cut
// short loses fast functions and shifts every later ffid). The only errors
// allowed are names that buildvm's generated headers would declare, which
// the parser sees as stand-ins.
#include "scans.h"

namespace ljcheck::extractor {
namespace {

const std::string kUndeclared = "use of undeclared identifier '";

bool startsWith(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// The undeclared name in "line N: use of undeclared identifier 'X'"; "" for other errors.
std::string undeclaredName(const std::string& error) {
  const std::size_t at = error.find(kUndeclared);
  if (at == std::string::npos) return "";
  const std::size_t start = at + kUndeclared.size();
  const std::size_t end = error.find('\'', start);
  return end == std::string::npos ? "" : error.substr(start, end - start);
}

}  // namespace

void requireCompiles(const TranslationUnit& unit, const std::set<std::string>& fastFunctions) {
  for (const std::string& error : unit.mainFileErrors()) {
    const std::string name = undeclaredName(error);
    if (startsWith(name, "FF_")) {  // lj_ffdef.h: FFDEF(name) per fast function
      if (fastFunctions.count(name.substr(3))) continue;
      throw ExtractError(unit.file(), error + ", which no LJLIB_ annotation of the library files defines");
    }
    if (startsWith(name, "lj_lib_init_") || startsWith(name, "lj_lib_cf_")) continue;  // lj_libdef.h
    if (name == "recff_idmap" || name == "recff_func") continue;                       // lj_recdef.h
    throw ExtractError(unit.file(), "does not compile: " + error);
  }
}

}  // namespace ljcheck::extractor
