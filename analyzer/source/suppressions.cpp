// `-- ljcheck:` suppression comments (see source_map.h). An ID is a
// reasonId, its code alone (NYIBC) or its subject alone (FNEW).
//   allow(ID, ...)       after code: its own line; on a line of its own: the
//                        next statement, all its lines
//   allow-file(ID, ...)  the whole file
//   push allow(ID, ...)  every line up to the matching `pop`; blocks nest,
//   pop                  as luacheck's `-- luacheck: push ignore` / `pop`
// A push never popped runs to the end of the file and a pop with no push is
// ignored; both are reported (unpaired-push, unpaired-pop), as luacheck
// reports its own (warnings 022 and 023).
#include "source/suppressions.h"

#include <cctype>
#include <cstring>

namespace ljcheck {
namespace {

struct Directive {
  enum class Verb { Allow, AllowFile, Push, Pop } verb = Verb::Allow;
  std::vector<std::string_view> ids;  // views into the comment's text
};

void skipSpace(std::string_view& text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
}

bool startsWord(std::string_view text, std::string_view word) {
  if (text.substr(0, word.size()) != word) return false;
  return text.size() == word.size() || !std::isalnum(static_cast<unsigned char>(text[word.size()]));
}

// "A, B)" -> {A, B}; false without the closing parenthesis.
bool parseIds(std::string_view rest, std::vector<std::string_view>& out) {
  std::size_t close = rest.find(')');
  if (close == std::string_view::npos) return false;
  std::string_view list = rest.substr(0, close);
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string_view id = list.substr(0, comma);
    skipSpace(id);
    while (!id.empty() && std::isspace(static_cast<unsigned char>(id.back()))) id.remove_suffix(1);
    if (!id.empty()) out.emplace_back(id);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return true;
}

// Parses "ljcheck: allow(A, B)", "allow-file(A)", "push allow(A)", "push" or
// "pop" in a comment.
bool parseDirective(std::string_view comment, Directive& out) {
  std::size_t at = comment.find("ljcheck:");
  if (at == std::string_view::npos) return false;
  std::string_view rest = comment.substr(at + 8);
  skipSpace(rest);
  if (startsWord(rest, "pop")) {
    out.verb = Directive::Verb::Pop;
    return true;
  }
  if (startsWord(rest, "push")) {
    out.verb = Directive::Verb::Push;
    rest.remove_prefix(4);
    skipSpace(rest);
    if (rest.rfind("allow(", 0) != 0) return true;  // a bare push: an empty block
    return parseIds(rest.substr(6), out.ids);
  }
  if (rest.rfind("allow-file(", 0) == 0) {
    out.verb = Directive::Verb::AllowFile;
    return parseIds(rest.substr(11), out.ids) && !out.ids.empty();
  }
  if (rest.rfind("allow(", 0) == 0) return parseIds(rest.substr(6), out.ids) && !out.ids.empty();
  return false;
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

// The position after `passed`, which starts at `from`: columns in bytes.
SourcePosition after(SourcePosition from, std::string_view passed) {
  for (char c : passed) {
    if (c == '\n') from = {from.line + 1, 1};
    else ++from.column;
  }
  return from;
}

// The lines of the statement after a comment on a line of its own: the next
// sibling that is not a comment; the comment's line when there is none.
void nextStatement(TSNode comment, SourceMap::Allow& allow) {
  for (TSNode next = ts_node_next_named_sibling(comment); !ts_node_is_null(next);
       next = ts_node_next_named_sibling(next)) {
    if (std::strcmp(ts_node_type(next), "comment") == 0) continue;
    // A comment before a block's first statement is the block's sibling.
    while (std::strcmp(ts_node_type(next), "block") == 0 && ts_node_named_child_count(next) > 0)
      next = ts_node_named_child(next, 0);
    allow.firstLine = row(ts_node_start_point(next));
    allow.lastLine = row(ts_node_end_point(next));
    return;
  }
}

// Reads comments in document order, keeping the open push blocks.
class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}

  // Every directive of the comment: `-- ljcheck: allow(A) -- ljcheck:
  // allow(B)` (what an editor's quickfix leaves on a line that had one)
  // holds two. The first is placed at the comment's start, a later one at
  // its own `ljcheck:`.
  void comment(TSNode node) {
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    if (end > source_.size()) return;
    const std::string_view text = source_.substr(start, end - start);
    const SourcePosition commentStart{row(ts_node_start_point(node)),
                                      static_cast<int>(ts_node_start_point(node).column) + 1};
    bool first = true;
    for (std::size_t at = text.find("ljcheck:"); at != std::string_view::npos; at = text.find("ljcheck:", at + 8)) {
      const SourcePosition here = after(commentStart, text.substr(0, at));
      directive(node, text.substr(at), start, first ? commentStart : here, here);
      first = false;
    }
  }

  // `text` starts at the directive's `ljcheck:`, at `textStart`; the
  // directive is placed at `place`.
  void directive(TSNode node, std::string_view text, uint32_t start, SourcePosition place, SourcePosition textStart) {
    Directive d;
    if (!parseDirective(text, d)) return;
    SourceMap::Allow allow;
    allow.commentLine = place.line;
    allow.commentColumn = place.column;
    switch (d.verb) {
      case Directive::Verb::Pop:
        if (open_.empty()) {
          out_.unpaired.push_back(
              {DirectiveProblem::Kind::UnpairedPop, "", allow.commentLine, allow.commentColumn, Severity::Warn,
               "'ljcheck: pop' with no open 'push': ignored", {}, {}, {}});
        } else {
          out_.allows[open_.back()].lastLine = allow.commentLine;
          open_.pop_back();
        }
        return;
      case Directive::Verb::Push:
        allow.form = SourceMap::AllowForm::Block;
        allow.firstLine = allow.commentLine;
        open_.push_back(out_.allows.size());
        break;
      case Directive::Verb::AllowFile:
        allow.form = SourceMap::AllowForm::File;
        break;
      case Directive::Verb::Allow:
        allow.firstLine = allow.lastLine = allow.commentLine;
        if (!codeBefore(source_, start)) {
          allow.form = SourceMap::AllowForm::NextStatement;
          nextStatement(node, allow);
        }
        break;
    }
    for (std::string_view id : d.ids) {
      allow.ids.emplace_back(id);
      allow.idStarts.push_back(after(textStart, text.substr(0, static_cast<std::size_t>(id.data() - text.data()))));
    }
    allow.used.assign(allow.ids.size(), false);
    out_.allows.push_back(std::move(allow));
  }

  // Blocks still open run to the end of the file.
  SuppressionComments finish() {
    int lastLine = 1;
    for (char c : source_) lastLine += c == '\n';
    if (!source_.empty() && source_.back() == '\n') --lastLine;
    for (std::size_t i : open_) {
      auto& a = out_.allows[i];
      a.lastLine = lastLine;
      out_.unpaired.push_back({DirectiveProblem::Kind::UnpairedPush, "", a.commentLine, a.commentColumn,
                               Severity::Warn,
                               "'ljcheck: push' is never popped: its allows run to the end of the file", {}, {}, {}});
    }
    open_.clear();
    return std::move(out_);
  }

 private:
  std::string_view source_;
  SuppressionComments out_;
  std::vector<std::size_t> open_;  // indices into out_.allows of the open push blocks
};

}  // namespace

// Walks the tree in document order with a cursor, not by recursion: an
// expression nested tens of thousands deep must not exhaust the stack.
SuppressionComments suppressionComments(TSNode root, std::string_view source) {
  Reader reader(source);
  if (source.find("ljcheck:") == std::string_view::npos) return reader.finish();  // no comment can hold one
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  for (bool more = true; more;) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    if (std::strcmp(ts_node_type(node), "comment") == 0) reader.comment(node);
    else if (ts_tree_cursor_goto_first_child(&cursor)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        more = false;
        break;
      }
    }
  }
  ts_tree_cursor_delete(&cursor);
  return reader.finish();
}

}  // namespace ljcheck
