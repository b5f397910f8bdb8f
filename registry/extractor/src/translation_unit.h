// libclang helpers: parse one LuaJIT source file, or an in-memory wrapper that
// expands one of its X-macro lists into declarations, and read cursors,
// macro arguments, tokens and constants from the result.
#pragma once

#include <clang-c/Index.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ljcheck::extractor {

class SourceTree;

class TranslationUnit {
 public:
  // Parses src/<file>. Throws ExtractError naming the file when it is missing
  // or a fatal diagnostic (an include not found) stops the parser.
  static TranslationUnit parseFile(const SourceTree& tree, const std::string& file);
  // Parses `code` as if it were src/<wrapper>, skipping function bodies;
  // errors blame `blame`.
  static TranslationUnit parseCode(const SourceTree& tree, const std::string& wrapper, const std::string& code,
                                   const std::string& blame);

  TranslationUnit(TranslationUnit&& other) noexcept;
  TranslationUnit& operator=(TranslationUnit&&) = delete;
  TranslationUnit(const TranslationUnit&) = delete;
  TranslationUnit& operator=(const TranslationUnit&) = delete;
  ~TranslationUnit();

  const std::string& file() const { return file_; }  // the file errors name
  CXCursor root() const { return clang_getTranslationUnitCursor(tu_); }

  // The parser's errors located in the main file: "line N: message".
  std::vector<std::string> mainFileErrors() const;
  // The top-level cursors spelled in the main file (declarations, macro
  // definitions and expansions), in source order.
  std::vector<CXCursor> mainFileCursors() const;
  // The file-scope variables whose names start with `prefix`, in order.
  std::vector<CXCursor> variables(std::string_view prefix) const;
  // The file-scope variable called `name`, if any.
  std::optional<CXCursor> variable(std::string_view name) const;
  // The definition of function `name` in the main file, if any.
  std::optional<CXCursor> functionDefinition(std::string_view name) const;
  // The token spellings over a cursor's extent.
  std::vector<std::string> tokens(CXCursor cursor) const;
  // The arguments of a function-like macro expansion or of a call as
  // written, each argument's tokens joined by single spaces:
  // LJLIB_REC(string_range 0) -> {"string_range 0"}; f(L, NULL) -> {"L", "NULL"}.
  std::vector<std::string> argumentTexts(CXCursor invocation) const;

 private:
  TranslationUnit(const SourceTree& tree, const std::string& mainPath, const std::string* code, std::string blame,
                  unsigned options);
  void throwOnFatalDiagnostic(const SourceTree& tree) const;

  CXIndex index_ = nullptr;
  CXTranslationUnit tu_ = nullptr;
  std::string file_;
  std::string mainPath_;
};

std::string toString(CXString text);
std::string spelling(CXCursor cursor);
unsigned lineOf(CXCursor cursor);
std::vector<CXCursor> childrenOf(CXCursor cursor);
// Pre-order walk; `visit` returns false to skip a cursor's children.
void walk(CXCursor cursor, const std::function<bool(CXCursor)>& visit);
// The referenced declaration's name of the first DeclRefExpr in the subtree
// (a case label, a call argument); "" when there is none.
std::string firstReferencedName(CXCursor cursor);
// The declaration that first DeclRefExpr refers to; a null cursor when none.
CXCursor firstReferenced(CXCursor cursor);
std::optional<std::string> evaluateString(CXCursor cursor);
std::optional<std::int64_t> evaluateInt(CXCursor cursor);
// The items of a variable's initializer list: `x[] = {a, b}` -> {a, b}.
std::vector<CXCursor> initializerItems(CXCursor variable);

}  // namespace ljcheck::extractor
