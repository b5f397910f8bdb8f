// `-- ljcheck: allow(ID, ...)` comments (see source_map.h); an ID is a
// reasonId, its code alone (NYIBC) or its subject alone (FNEW). A comment after
// code covers its own line; a comment on a line of its own covers the next
// statement, all its lines; `allow-file(...)` covers the whole file.
#include "source/suppressions.h"

#include <cctype>
#include <cstring>

namespace ljcheck {
namespace {

struct Directive {
  bool wholeFile = false;
  std::vector<std::string> ids;
};

// Parses "ljcheck: allow(A, B)" or "ljcheck: allow-file(A)" in a comment.
bool parseDirective(std::string_view comment, Directive& out) {
  std::size_t at = comment.find("ljcheck:");
  if (at == std::string_view::npos) return false;
  std::string_view rest = comment.substr(at + 8);
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
  if (rest.rfind("allow-file(", 0) == 0) {
    out.wholeFile = true;
    rest.remove_prefix(11);
  } else if (rest.rfind("allow(", 0) == 0) {
    rest.remove_prefix(6);
  } else {
    return false;
  }
  std::size_t close = rest.find(')');
  if (close == std::string_view::npos) return false;
  std::string_view list = rest.substr(0, close);
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string_view id = list.substr(0, comma);
    while (!id.empty() && std::isspace(static_cast<unsigned char>(id.front()))) id.remove_prefix(1);
    while (!id.empty() && std::isspace(static_cast<unsigned char>(id.back()))) id.remove_suffix(1);
    if (!id.empty()) out.ids.emplace_back(id);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return !out.ids.empty();
}

bool codeBefore(std::string_view source, std::size_t offset) {
  for (std::size_t i = offset; i > 0; --i) {
    char c = source[i - 1];
    if (c == '\n') return false;
    if (!std::isspace(static_cast<unsigned char>(c))) return true;
  }
  return false;
}

int row(TSPoint p) { return static_cast<int>(p.row) + 1; }

// The suppression a comment node holds, if any.
void readComment(TSNode comment, std::string_view source, std::vector<SourceMap::Allow>& out) {
  uint32_t start = ts_node_start_byte(comment), end = ts_node_end_byte(comment);
  Directive d;
  if (end > source.size() || !parseDirective(source.substr(start, end - start), d)) return;
  SourceMap::Allow allow;
  allow.ids = std::move(d.ids);
  if (!d.wholeFile) {
    allow.firstLine = allow.lastLine = row(ts_node_start_point(comment));
    if (!codeBefore(source, start)) {
      // The next statement: the next sibling that is not a comment.
      for (TSNode next = ts_node_next_named_sibling(comment); !ts_node_is_null(next);
           next = ts_node_next_named_sibling(next)) {
        if (std::strcmp(ts_node_type(next), "comment") == 0) continue;
        // A comment before a block's first statement is the block's sibling.
        while (std::strcmp(ts_node_type(next), "block") == 0 && ts_node_named_child_count(next) > 0)
          next = ts_node_named_child(next, 0);
        allow.firstLine = row(ts_node_start_point(next));
        allow.lastLine = row(ts_node_end_point(next));
        break;
      }
    }
  }
  out.push_back(std::move(allow));
}

}  // namespace

// Walks the tree in document order with a cursor, not by recursion: an
// expression nested tens of thousands deep must not exhaust the stack.
std::vector<SourceMap::Allow> allowComments(TSNode root, std::string_view source) {
  std::vector<SourceMap::Allow> out;
  if (source.find("ljcheck:") == std::string_view::npos) return out;  // no comment can hold one
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  for (bool more = true; more;) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    if (std::strcmp(ts_node_type(node), "comment") == 0) readComment(node, source, out);
    else if (ts_tree_cursor_goto_first_child(&cursor)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        more = false;
        break;
      }
    }
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

bool SourceMap::suppressed(int line, const ReasonId& reasonId) const {
  const std::string text = reasonId.str();
  const std::string& code = reasonId.code();
  // The short form names the subject alone: allow(FNEW) is allow(NYIBC:FNEW).
  const std::string subject(reasonId.subject());
  for (const auto& a : allows_) {
    bool covers = a.firstLine == 0 || (line >= a.firstLine && line <= a.lastLine);
    if (!covers) continue;
    for (const auto& id : a.ids)
      if (id == text || id == code || id == "*" || (!subject.empty() && id == subject)) return true;
  }
  return false;
}

}  // namespace ljcheck
