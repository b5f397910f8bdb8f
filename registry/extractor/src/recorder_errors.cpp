// Which trace errors each recorder can raise: the lj_trace_err and
// lj_trace_err_info calls in a recff_* function and in every function it
// reaches among the parsed units (their own helpers, lj_ir.c's conversions,
// lj_opt_narrow.c). Calls into other files are not followed: the generic
// recording machinery would add every error to every recorder.
#include "scans.h"

namespace ljcheck::extractor {
namespace {

struct FunctionFacts {
  std::string name;
  std::set<std::string> errors;
  std::set<std::string> callees;  // USRs
};

void readFunction(CXCursor function, FunctionFacts& facts) {
  walk(function, [&facts](CXCursor c) {
    if (clang_getCursorKind(c) != CXCursor_CallExpr) return true;
    if (std::string code = traceErrorRaised(c); !code.empty()) {
      facts.errors.insert(code);
    } else {
      CXCursor callee = clang_getCursorReferenced(c);
      if (!clang_Cursor_isNull(callee)) facts.callees.insert(toString(clang_getCursorUSR(callee)));
    }
    return true;
  });
}

}  // namespace

std::map<std::string, std::set<std::string>> scanRecorderErrors(const std::vector<const TranslationUnit*>& units) {
  // By USR, which tells static functions of different files apart.
  std::map<std::string, FunctionFacts> functions;
  for (const TranslationUnit* unit : units)
    for (CXCursor c : unit->mainFileCursors())
      if (clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_isCursorDefinition(c)) {
        FunctionFacts& facts = functions[toString(clang_getCursorUSR(c))];
        facts.name = spelling(c);
        readFunction(c, facts);
      }
  for (bool grew = true; grew;) {  // propagate along calls until nothing changes
    grew = false;
    for (auto& [usr, facts] : functions)
      for (const std::string& callee : facts.callees) {
        auto it = functions.find(callee);
        if (it == functions.end() || &it->second == &facts) continue;
        for (const std::string& code : it->second.errors) grew |= facts.errors.insert(code).second;
      }
  }
  std::map<std::string, std::set<std::string>> recorders;
  for (const auto& [usr, facts] : functions)
    if (facts.name.rfind("recff_", 0) == 0) recorders[facts.name].insert(facts.errors.begin(), facts.errors.end());
  return recorders;
}

}  // namespace ljcheck::extractor
