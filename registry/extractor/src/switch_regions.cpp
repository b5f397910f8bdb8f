// Reading a switch statement as the recorder's dispatch tables are written:
// each case label runs the statements after it, falling through later
// labels, until a top-level break or return.
#include "scans.h"

namespace ljcheck::extractor {
namespace {

struct Item {
  bool isLabel = false;
  std::string label;
  CXCursor stmt = clang_getNullCursor();
};

bool isLabel(CXCursor c) {
  const CXCursorKind kind = clang_getCursorKind(c);
  return kind == CXCursor_CaseStmt || kind == CXCursor_DefaultStmt;
}

// case A: case B: stmt  ->  label A, label B, stmt.
void flatten(CXCursor c, std::vector<Item>& items) {
  while (isLabel(c)) {
    const std::vector<CXCursor> parts = childrenOf(c);
    const bool isDefault = clang_getCursorKind(c) == CXCursor_DefaultStmt;
    items.push_back({true, isDefault ? "default" : firstReferencedName(parts.empty() ? c : parts.front()), {}});
    if (parts.empty()) return;
    c = parts.back();
  }
  items.push_back({false, {}, c});
}

// A statement after which control never reaches the next one.
bool endsRegion(CXCursor c) {
  const CXCursorKind kind = clang_getCursorKind(c);
  if (kind == CXCursor_BreakStmt || kind == CXCursor_ReturnStmt || kind == CXCursor_GotoStmt) return true;
  if (kind != CXCursor_CompoundStmt) return false;
  const std::vector<CXCursor> parts = childrenOf(c);
  return !parts.empty() && endsRegion(parts.back());
}

bool contains(CXCursor c, const std::function<bool(CXCursor)>& isMatch) {
  if (isMatch(c)) return true;
  bool found = false;
  walk(c, [&](CXCursor child) {
    if (found) return false;
    found = isMatch(child);
    return !found;
  });
  return found;
}

}  // namespace

std::vector<SwitchLabel> switchLabels(CXCursor switchStmt, const std::function<bool(CXCursor)>& isMatch) {
  const std::vector<CXCursor> parts = childrenOf(switchStmt);
  if (parts.empty() || clang_getCursorKind(parts.back()) != CXCursor_CompoundStmt) return {};
  std::vector<Item> items;
  for (CXCursor c : childrenOf(parts.back())) flatten(c, items);
  std::vector<SwitchLabel> labels;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!items[i].isLabel) continue;
    SwitchLabel label{items[i].label, false};
    for (std::size_t j = i + 1; j < items.size() && !label.matches; ++j) {
      if (items[j].isLabel) continue;
      label.matches = contains(items[j].stmt, isMatch);
      if (endsRegion(items[j].stmt)) break;
    }
    labels.push_back(label);
  }
  return labels;
}

std::vector<CXCursor> switchStatements(CXCursor function) {
  std::vector<CXCursor> result;
  walk(function, [&result](CXCursor c) {
    if (clang_getCursorKind(c) == CXCursor_SwitchStmt) result.push_back(c);
    return true;
  });
  return result;
}

std::string traceErrorRaised(CXCursor call) {
  if (clang_getCursorKind(call) != CXCursor_CallExpr) return "";
  const std::string callee = spelling(call);
  if (callee != "lj_trace_err" && callee != "lj_trace_err_info") return "";
  if (clang_Cursor_getNumArguments(call) < 2) return "";
  const std::string code = firstReferencedName(clang_Cursor_getArgument(call, 1));
  const std::string prefix = "LJ_TRERR_";
  return code.rfind(prefix, 0) == 0 ? code.substr(prefix.size()) : "";
}

}  // namespace ljcheck::extractor
