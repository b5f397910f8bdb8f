// Library functions that return another fast function: the C function of
// LJLIB_CF(string_gmatch) ends in lj_lib_pushcc(L, ..., FF_string_gmatch_aux, n),
// which creates the closure it returns. Read from the tokens of each library
// function's definition, since FF_ names only exist once lj_ffdef.h does.
#include "scans.h"

namespace ljcheck::extractor {
namespace {

// The arguments of each `callee(...)` call among `toks`, as token texts.
std::vector<std::vector<std::string>> callArguments(const std::vector<std::string>& toks, const std::string& callee) {
  std::vector<std::vector<std::string>> calls;
  for (std::size_t i = 0; i + 1 < toks.size(); ++i) {
    if (toks[i] != callee || toks[i + 1] != "(") continue;
    std::vector<std::string> args(1);
    int depth = 0;
    for (std::size_t j = i + 2; j < toks.size(); ++j) {
      if (toks[j] == ")" && depth == 0) break;
      if (toks[j] == "," && depth == 0) {
        args.emplace_back();
        continue;
      }
      if (toks[j] == "(") ++depth;
      if (toks[j] == ")") --depth;
      args.back() += args.back().empty() ? toks[j] : " " + toks[j];
    }
    calls.push_back(args);
  }
  return calls;
}

}  // namespace

std::vector<ReturnedFunction> scanReturnedFastFunctions(const TranslationUnit& unit) {
  std::vector<ReturnedFunction> found;
  for (CXCursor c : unit.mainFileCursors()) {
    if (clang_getCursorKind(c) != CXCursor_FunctionDecl || !clang_isCursorDefinition(c)) continue;
    const std::string name = spelling(c);  // lj_cf_<name> (LJLIB_CF) or lj_ffh_<name> (LJLIB_ASM)
    std::string cName;
    for (const char* prefix : {"lj_cf_", "lj_ffh_"})
      if (name.rfind(prefix, 0) == 0) cName = name.substr(std::string(prefix).size());
    if (cName.empty()) continue;
    for (const auto& args : callArguments(unit.tokens(c), "lj_lib_pushcc"))
      if (args.size() == 4 && args[2].rfind("FF_", 0) == 0) found.push_back({cName, args[2].substr(3)});
  }
  return found;
}

}  // namespace ljcheck::extractor
