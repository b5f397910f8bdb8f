// Fast functions from the LJLIB_* annotations of the library sources, read
// as macro expansions and numbered as buildvm numbers them
// (src/host/buildvm_lib.c): every LJLIB_CF, LJLIB_ASM and LJLIB_ASM_ takes
// the next ffid, LJLIB_REC names the recorder of the function before it, and
// LJLIB_MODULE_<name> (a #define) sets the module its names are dotted by.
#include <algorithm>
#include <cctype>

#include "scans.h"

namespace ljcheck::extractor {
namespace {

const std::string kPrefix = "LJLIB_";
const std::string kModulePrefix = "LJLIB_MODULE_";

bool isIdentifier(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
  });
}

// jit.vmdef's spelling (buildvm_lib.c: libdef_func, BUILD_vmdef): within the
// first strlen(module) characters after the first, '_' becomes '.', so
// string_gmatch_aux in module string is string.gmatch_aux and
// buffer_method___gc in buffer_method is buffer.method.__gc.
std::string vmdefName(std::string name, const std::string& module) {
  for (std::size_t i = 1; i < name.size() && i - 1 < module.size(); ++i)
    if (name[i] == '_') name[i] = '.';
  return name;
}

}  // namespace

std::size_t FastFunctionScan::scan(const TranslationUnit& unit) {
  const std::string& file = unit.file();
  // A tag lj_lib.h does not define is no macro expansion, just an
  // undeclared name to the parser; buildvm would stop on it, and so do we.
  for (const std::string& error : unit.mainFileErrors())
    if (error.find("'" + kPrefix) != std::string::npos)
      throw ExtractError(file, "unknown library definition tag: " + error);
  const std::size_t firstOfFile = functions_.size();
  std::size_t annotations = 0;
  for (CXCursor c : unit.mainFileCursors()) {
    const CXCursorKind kind = clang_getCursorKind(c);
    const std::string name = spelling(c);
    if (kind == CXCursor_MacroDefinition && name.rfind(kModulePrefix, 0) == 0) {
      module_ = name.substr(kModulePrefix.size());
      ++annotations;
      continue;
    }
    if (kind != CXCursor_MacroExpansion || name.rfind(kPrefix, 0) != 0) continue;
    ++annotations;
    const std::string tag = name.substr(kPrefix.size());
    const unsigned line = lineOf(c);
    const std::string where = "line " + std::to_string(line) + ": ";
    if (tag == "CF" || tag == "ASM" || tag == "ASM_") {
      const std::vector<std::string> args = unit.argumentTexts(c);
      if (args.size() != 1 || !isIdentifier(args[0]))
        throw ExtractError(file, where + name + " does not name one function");
      functions_.push_back({args[0], vmdefName(args[0], module_), "", file, line});
    } else if (tag == "REC") {
      const std::vector<std::string> args = unit.argumentTexts(c);
      if (functions_.size() == firstOfFile)
        throw ExtractError(file, where + "LJLIB_REC before any LJLIB_CF/LJLIB_ASM function");
      LibraryFunction& function = functions_.back();
      if (!function.recorder.empty()) throw ExtractError(file, where + "a second LJLIB_REC for " + function.cName);
      // "handler aux" or "." for recff_<function>; the aux value is the recorder's business.
      std::string handler = args.size() == 1 ? args[0].substr(0, args[0].find(' ')) : "";
      if (handler == ".") handler = function.cName;
      if (!isIdentifier(handler)) throw ExtractError(file, where + "LJLIB_REC does not name a recorder");
      function.recorder = handler;
    } else if (tag != "LUA" && tag != "PUSH" && tag != "SET" && tag != "NOREG" && tag != "NOREGUV") {
      throw ExtractError(file, where + "unknown library definition tag " + name);
    }
  }
  return annotations;
}

std::string FastFunctionScan::ffdefHeader() const {
  std::string header = "/* Written by ljcheck's extractor as buildvm would write it. */\n";
  for (const auto& f : functions_) header += "FFDEF(" + f.cName + ")\n";
  return header;
}

}  // namespace ljcheck::extractor
