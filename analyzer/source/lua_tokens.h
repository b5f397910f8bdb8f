// Lua source as LuaJIT's lexer (lj_lex.c) sees it: tokens with their
// positions, comments and white space dropped. A source map needs no more
// than the tokens and their nesting: one pass at lexer speed, where a full
// tree-sitter parse of every linted file would cost more than the analysis.
#pragma once

#include <string_view>
#include <vector>

#include "ljcheck/prediction.h"

namespace ljcheck {

struct LuaToken {
  enum class Kind { Name, Keyword, String, Number, Symbol };
  Kind kind = Kind::Symbol;
  std::string_view text;  // a string with its quotes or brackets
  SourcePosition start;   // the first byte
  SourcePosition end;     // just after the last byte; a long string ends on a later line

  bool is(Kind k, std::string_view t) const { return kind == k && text == t; }
  bool keyword(std::string_view t) const { return is(Kind::Keyword, t); }
  bool symbol(std::string_view t) const { return is(Kind::Symbol, t); }
  SourceRange range() const { return {start, end}; }
};

// Lines count '\n' as the source map does. Source that LuaJIT compiled
// lexes without error; anything else is cut where it stops making sense
// (an unterminated string or comment runs to the end).
std::vector<LuaToken> tokenizeLua(std::string_view source);

}  // namespace ljcheck
