// Parsing with libclang and reading what it found: the C API only, one index
// per translation unit so that units can be parsed on several threads.
#include "translation_unit.h"

#include <filesystem>

#include "ljcheck/extractor.h"
#include "source_tree.h"

namespace ljcheck::extractor {
namespace {

constexpr unsigned kParseOptions = CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_KeepGoing;

std::string baseName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

}  // namespace

std::string toString(CXString text) {
  const char* chars = clang_getCString(text);
  std::string result = chars ? chars : "";
  clang_disposeString(text);
  return result;
}

std::string spelling(CXCursor cursor) { return toString(clang_getCursorSpelling(cursor)); }

unsigned lineOf(CXCursor cursor) {
  unsigned line = 0;
  clang_getSpellingLocation(clang_getCursorLocation(cursor), nullptr, &line, nullptr, nullptr);
  return line;
}

std::vector<CXCursor> childrenOf(CXCursor cursor) {
  std::vector<CXCursor> result;
  clang_visitChildren(
      cursor,
      [](CXCursor child, CXCursor, CXClientData data) {
        static_cast<std::vector<CXCursor>*>(data)->push_back(child);
        return CXChildVisit_Continue;
      },
      &result);
  return result;
}

void walk(CXCursor cursor, const std::function<bool(CXCursor)>& visit) {
  for (CXCursor child : childrenOf(cursor))
    if (visit(child)) walk(child, visit);
}

CXCursor firstReferenced(CXCursor cursor) {
  if (clang_getCursorKind(cursor) == CXCursor_DeclRefExpr) return clang_getCursorReferenced(cursor);
  CXCursor found = clang_getNullCursor();
  walk(cursor, [&found](CXCursor c) {
    if (!clang_Cursor_isNull(found)) return false;
    if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return true;
    found = clang_getCursorReferenced(c);
    return false;
  });
  return found;
}

std::string firstReferencedName(CXCursor cursor) {
  CXCursor referenced = firstReferenced(cursor);
  return clang_Cursor_isNull(referenced) ? "" : spelling(referenced);
}

std::optional<std::string> evaluateString(CXCursor cursor) {
  CXEvalResult result = clang_Cursor_Evaluate(cursor);
  if (!result) return std::nullopt;
  std::optional<std::string> text;
  if (clang_EvalResult_getKind(result) == CXEval_StrLiteral) text = clang_EvalResult_getAsStr(result);
  clang_EvalResult_dispose(result);
  return text;
}

std::optional<std::int64_t> evaluateInt(CXCursor cursor) {
  CXEvalResult result = clang_Cursor_Evaluate(cursor);
  if (!result) return std::nullopt;
  std::optional<std::int64_t> value;
  if (clang_EvalResult_getKind(result) == CXEval_Int) value = clang_EvalResult_getAsLongLong(result);
  clang_EvalResult_dispose(result);
  return value;
}

std::vector<CXCursor> initializerItems(CXCursor variable) {
  for (CXCursor child : childrenOf(variable))
    if (clang_getCursorKind(child) == CXCursor_InitListExpr) return childrenOf(child);
  return {};
}

TranslationUnit TranslationUnit::parseFile(const SourceTree& tree, const std::string& file) {
  tree.require(file);
  TranslationUnit unit(tree, tree.path(file), nullptr, file, kParseOptions);
  unit.throwOnFatalDiagnostic(tree);
  return unit;
}

TranslationUnit TranslationUnit::parseCode(const SourceTree& tree, const std::string& wrapper, const std::string& code,
                                           const std::string& blame) {
  TranslationUnit unit(tree, tree.path(wrapper), &code, blame, kParseOptions | CXTranslationUnit_SkipFunctionBodies);
  unit.throwOnFatalDiagnostic(tree);
  return unit;
}

TranslationUnit::TranslationUnit(const SourceTree& tree, const std::string& mainPath, const std::string* code,
                                 std::string blame, unsigned options)
    : index_(clang_createIndex(0, 0)), file_(std::move(blame)), mainPath_(mainPath) {
  const std::string include = "-I" + tree.srcDir().string();
  // As LuaJIT's Makefile builds it for the host: C, GNU extensions, no
  // extra defines. Warnings are noise here; errors stay visible.
  const char* args[] = {"-x", "c", "-std=gnu99", include.c_str(), "-w", "-ferror-limit=0"};
  std::vector<CXUnsavedFile> unsaved;
  for (const auto& [path, contents] : tree.generatedHeaders())
    unsaved.push_back({path.c_str(), contents.c_str(), static_cast<unsigned long>(contents.size())});
  if (code) unsaved.push_back({mainPath.c_str(), code->c_str(), static_cast<unsigned long>(code->size())});
  CXErrorCode error = clang_parseTranslationUnit2(index_, mainPath.c_str(), args, static_cast<int>(std::size(args)),
                                                  unsaved.data(), static_cast<unsigned>(unsaved.size()), options, &tu_);
  if (error != CXError_Success || !tu_) {
    clang_disposeIndex(index_);
    throw ExtractError(file_, "libclang could not parse it (error " + std::to_string(static_cast<int>(error)) + ")");
  }
}

TranslationUnit::TranslationUnit(TranslationUnit&& other) noexcept
    : index_(other.index_), tu_(other.tu_), file_(std::move(other.file_)), mainPath_(std::move(other.mainPath_)) {
  other.index_ = nullptr;
  other.tu_ = nullptr;
}

TranslationUnit::~TranslationUnit() {
  if (tu_) clang_disposeTranslationUnit(tu_);
  if (index_) clang_disposeIndex(index_);
}

void TranslationUnit::throwOnFatalDiagnostic(const SourceTree& tree) const {
  const unsigned count = clang_getNumDiagnostics(tu_);
  for (unsigned i = 0; i < count; ++i) {
    CXDiagnostic diagnostic = clang_getDiagnostic(tu_, i);
    const bool fatal = clang_getDiagnosticSeverity(diagnostic) >= CXDiagnostic_Fatal;
    std::string message = toString(clang_getDiagnosticSpelling(diagnostic));
    CXFile where = nullptr;
    unsigned line = 0;
    clang_getSpellingLocation(clang_getDiagnosticLocation(diagnostic), &where, &line, nullptr, nullptr);
    std::string whereName = where ? baseName(toString(clang_getFileName(where))) : "";
    clang_disposeDiagnostic(diagnostic);
    if (!fatal) continue;
    // Name the file that holds the broken include when it is in the tree.
    std::string file = file_;
    std::error_code ec;
    if (!whereName.empty() && std::filesystem::is_regular_file(tree.srcDir() / whereName, ec)) file = whereName;
    std::string what = "cannot be parsed: " + message;
    if (line) what += " (line " + std::to_string(line) + ")";
    if (file != file_) what += " while reading " + file_;
    throw ExtractError(file, what);
  }
}

std::vector<std::string> TranslationUnit::mainFileErrors() const {
  std::vector<std::string> errors;
  const CXFile main = clang_getFile(tu_, mainPath_.c_str());
  const unsigned count = clang_getNumDiagnostics(tu_);
  for (unsigned i = 0; i < count; ++i) {
    CXDiagnostic diagnostic = clang_getDiagnostic(tu_, i);
    CXFile where = nullptr;
    unsigned line = 0;
    clang_getExpansionLocation(clang_getDiagnosticLocation(diagnostic), &where, &line, nullptr, nullptr);
    if (clang_getDiagnosticSeverity(diagnostic) >= CXDiagnostic_Error && where && main &&
        clang_File_isEqual(where, main))
      errors.push_back("line " + std::to_string(line) + ": " + toString(clang_getDiagnosticSpelling(diagnostic)));
    clang_disposeDiagnostic(diagnostic);
  }
  return errors;
}

std::vector<CXCursor> TranslationUnit::mainFileCursors() const {
  // By expansion location: LJLIB_CF(name) declares lj_cf_name with a name
  // pasted in scratch space, expanded in the main file.
  std::vector<CXCursor> result;
  const CXFile main = clang_getFile(tu_, mainPath_.c_str());
  for (CXCursor c : childrenOf(root())) {
    CXFile file = nullptr;
    clang_getExpansionLocation(clang_getCursorLocation(c), &file, nullptr, nullptr, nullptr);
    if (file && main && clang_File_isEqual(file, main)) result.push_back(c);
  }
  return result;
}

std::vector<CXCursor> TranslationUnit::variables(std::string_view prefix) const {
  std::vector<CXCursor> result;  // rows of an X-macro header are spelled in that header
  for (CXCursor c : childrenOf(root()))
    if (clang_getCursorKind(c) == CXCursor_VarDecl && spelling(c).rfind(prefix, 0) == 0) result.push_back(c);
  return result;
}

std::optional<CXCursor> TranslationUnit::variable(std::string_view name) const {
  for (CXCursor c : variables(name))
    if (spelling(c) == name) return c;
  return std::nullopt;
}

std::optional<CXCursor> TranslationUnit::functionDefinition(std::string_view name) const {
  for (CXCursor c : mainFileCursors())
    if (clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_isCursorDefinition(c) && spelling(c) == name) return c;
  return std::nullopt;
}

std::vector<std::string> TranslationUnit::tokens(CXCursor cursor) const {
  // A declaration made by a macro (LJLIB_CF) starts at a macro location,
  // which clang_tokenize does not take: use the file range it expands from.
  const CXSourceRange extent = clang_getCursorExtent(cursor);
  CXFile startFile = nullptr, endFile = nullptr;
  unsigned start = 0, end = 0;
  clang_getExpansionLocation(clang_getRangeStart(extent), &startFile, nullptr, nullptr, &start);
  clang_getExpansionLocation(clang_getRangeEnd(extent), &endFile, nullptr, nullptr, &end);
  if (!startFile || !clang_File_isEqual(startFile, endFile)) return {};
  const CXSourceRange range =
      clang_getRange(clang_getLocationForOffset(tu_, startFile, start), clang_getLocationForOffset(tu_, endFile, end));
  CXToken* tokens = nullptr;
  unsigned count = 0;
  clang_tokenize(tu_, range, &tokens, &count);
  std::vector<std::string> result;
  result.reserve(count);
  for (unsigned i = 0; i < count; ++i) result.push_back(toString(clang_getTokenSpelling(tu_, tokens[i])));
  if (tokens) clang_disposeTokens(tu_, tokens, count);
  return result;
}

std::vector<std::string> TranslationUnit::argumentTexts(CXCursor invocation) const {
  const std::vector<std::string> toks = tokens(invocation);
  std::vector<std::string> args;
  if (toks.size() < 3 || toks[1] != "(") return args;  // object-like, or not an invocation
  std::string current;
  int depth = 0;
  for (std::size_t i = 2; i < toks.size(); ++i) {
    const std::string& t = toks[i];
    if (depth == 0 && (t == "," || t == ")")) {
      args.push_back(current);
      current.clear();
      if (t == ")") break;
      continue;
    }
    if (t == "(") ++depth;
    if (t == ")") --depth;
    if (!current.empty()) current += ' ';
    current += t;
  }
  return args;
}

}  // namespace ljcheck::extractor
