// Library functions that are plain C functions: lib_package.c registers its
// functions with luaL_register(L, libname, luaL_Reg[]) instead of LJLIB_*
// annotations, so they have no ffid and every call to them stitches as "C".
#include "scans.h"

namespace ljcheck::extractor {
namespace {

// luaL_register's library name: a string constant, or NULL for the table on
// the stack (the globals in luaopen_package). nullopt when neither.
std::optional<std::string> libraryName(const TranslationUnit& unit, CXCursor call) {
  if (auto name = evaluateString(clang_Cursor_getArgument(call, 1))) return name;
  const std::vector<std::string> written = unit.argumentTexts(call);
  if (written.size() == 3 && (written[1] == "NULL" || written[1] == "0")) return std::string();
  return std::nullopt;
}

// The names of a luaL_Reg array: {{"loadlib", f}, ..., {NULL, NULL}}.
std::vector<std::string> registeredNames(CXCursor arrayRef) {
  CXCursor declared = firstReferenced(arrayRef);
  if (clang_Cursor_isNull(declared)) return {};
  CXCursor array = clang_getCursorDefinition(declared);
  std::vector<std::string> names;
  if (clang_Cursor_isNull(array)) return names;
  for (CXCursor entry : initializerItems(array)) {
    const std::vector<CXCursor> fields = childrenOf(entry);
    std::optional<std::string> name = fields.empty() ? std::nullopt : evaluateString(fields[0]);
    if (!name) break;  // the {NULL, NULL} end marker
    names.push_back(*name);
  }
  return names;
}

}  // namespace

std::vector<std::string> scanRegisteredCFunctions(const TranslationUnit& unit) {
  std::vector<std::string> functions;
  for (CXCursor top : unit.mainFileCursors()) {
    if (clang_getCursorKind(top) != CXCursor_FunctionDecl || !clang_isCursorDefinition(top)) continue;
    walk(top, [&](CXCursor c) {
      if (clang_getCursorKind(c) != CXCursor_CallExpr || spelling(c) != "luaL_register" ||
          clang_Cursor_getNumArguments(c) != 3)
        return true;
      std::optional<std::string> library = libraryName(unit, c);
      if (!library)
        throw ExtractError(unit.file(),
                           "line " + std::to_string(lineOf(c)) + ": luaL_register's library name is not a constant");
      for (const std::string& name : registeredNames(clang_Cursor_getArgument(c, 2)))
        functions.push_back(library->empty() ? name : *library + "." + name);
      return false;
    });
  }
  return functions;
}

}  // namespace ljcheck::extractor
