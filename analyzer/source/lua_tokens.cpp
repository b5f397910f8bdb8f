// Lua tokens (see lua_tokens.h), by lj_lex.c's rules: identifiers take any
// byte from 0x80 up, a number runs over identifier characters, dots and an
// exponent's sign, long brackets may carry '=' levels, a first line that
// starts with '#' is skipped.
#include "source/lua_tokens.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace ljcheck {
namespace {

// Identifier bytes, by table: the lexer looks at every byte of every file linted.
constexpr std::array<bool, 256> kIdent = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c)
    table[static_cast<std::size_t>(c)] =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9') || c >= 0x80;
  return table;
}();
bool isIdent(unsigned char c) { return kIdent[c]; }
bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }

// Lua 5.1's keywords and goto, by first letter: every name is looked up.
bool isKeyword(std::string_view w) {
  switch (w[0]) {
    case 'a': return w == "and";
    case 'b': return w == "break";
    case 'd': return w == "do";
    case 'e': return w == "else" || w == "elseif" || w == "end";
    case 'f': return w == "false" || w == "for" || w == "function";
    case 'g': return w == "goto";
    case 'i': return w == "if" || w == "in";
    case 'l': return w == "local";
    case 'n': return w == "nil" || w == "not";
    case 'o': return w == "or";
    case 'r': return w == "repeat" || w == "return";
    case 't': return w == "then" || w == "true";
    case 'u': return w == "until";
    case 'w': return w == "while";
    default: return false;
  }
}

// The length of the operator at the start of `rest`: `...`, `..`, `==`, `~=`, `<=`, `>=`, `::`, else 1.
std::size_t symbolLength(std::string_view rest) {
  char c = rest[0], next = rest.size() > 1 ? rest[1] : 0;
  if (c == '.' && next == '.') return rest.size() > 2 && rest[2] == '.' ? 3 : 2;
  if ((c == '=' || c == '~' || c == '<' || c == '>') && next == '=') return 2;
  return c == ':' && next == ':' ? 2 : 1;
}

// Blanks other than the newline, which also starts a line.
constexpr std::array<bool, 256> kBlank = [] {
  std::array<bool, 256> table{};
  for (unsigned char c : {' ', '\t', '\r', '\v', '\f'}) table[c] = true;
  return table;
}();

// The lexer looks at every byte of every file linted: runs of blanks, name
// bytes and the insides of long brackets are skipped in tight loops, and
// lines are counted with memchr where no token can start.
class Lexer {
 public:
  explicit Lexer(std::string_view source) : s_(source), n_(source.size()) {}

  std::vector<LuaToken> run() {
    std::vector<LuaToken> out;
    out.reserve(s_.size() / 5);  // about one token in five bytes of code
    if (!s_.empty() && s_[0] == '#') skipLine();
    while (skipSpaceAndComments()) {
      LuaToken t;
      t.start = here();
      std::size_t from = i_;
      t.kind = scan();
      t.text = s_.substr(from, i_ - from);
      t.end = here();
      out.push_back(t);
    }
    return out;
  }

 private:
  SourcePosition here() const { return {line_, static_cast<int>(i_ - lineStart_) + 1}; }
  unsigned char at(std::size_t k) const { return k < n_ ? static_cast<unsigned char>(s_[k]) : 0; }
  void advance() {
    if (s_[i_] == '\n') {
      ++line_;
      lineStart_ = i_ + 1;
    }
    ++i_;
  }
  void skipLine() { i_ = std::min(s_.find('\n', i_), n_); }
  // Counts the lines that end in [i_, upTo) and moves to upTo.
  void skipTo(std::size_t upTo) {
    const char* base = s_.data();
    for (const void* nl = std::memchr(base + i_, '\n', upTo - i_); nl;
         nl = std::memchr(base + lineStart_, '\n', upTo - lineStart_)) {
      ++line_;
      lineStart_ = static_cast<std::size_t>(static_cast<const char*>(nl) - base) + 1;
    }
    i_ = upTo;
  }

  // False at the end of the source.
  bool skipSpaceAndComments() {
    while (i_ < n_) {
      unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (kBlank[c]) {
        ++i_;
      } else if (c == '\n') {
        ++line_;
        lineStart_ = ++i_;
      } else if (c == '-' && at(i_ + 1) == '-') {
        i_ += 2;
        if (int level = longBracket(); level >= 0) skipLong(level);
        else skipLine();
      } else {
        return true;
      }
    }
    return false;
  }

  // At `[` `=`* `[`: the level (the count of '='), else -1.
  int longBracket() const {
    if (at(i_) != '[') return -1;
    std::size_t k = i_ + 1;
    while (at(k) == '=') ++k;
    return at(k) == '[' ? static_cast<int>(k - i_ - 1) : -1;
  }

  // From a long bracket's opening to just after its closing one.
  void skipLong(int level) {
    skipTo(std::min(i_ + static_cast<std::size_t>(level) + 2, n_));
    while (i_ < n_) {
      const void* close = std::memchr(s_.data() + i_, ']', n_ - i_);
      if (!close) {
        skipTo(n_);
        return;
      }
      skipTo(static_cast<std::size_t>(static_cast<const char*>(close) - s_.data()));
      std::size_t k = i_ + 1;
      while (at(k) == '=') ++k;
      if (at(k) == ']' && static_cast<int>(k - i_ - 1) == level) {
        i_ = k + 1;
        return;
      }
      ++i_;  // a ']' that closes nothing
    }
  }

  LuaToken::Kind scan() {
    unsigned char c = at(i_);
    if (isIdent(c) && !isDigit(c)) {
      std::size_t from = i_;
      const char* p = s_.data() + i_;
      const char* end = s_.data() + n_;
      while (p < end && isIdent(static_cast<unsigned char>(*p))) ++p;
      i_ = static_cast<std::size_t>(p - s_.data());
      return isKeyword(s_.substr(from, i_ - from)) ? LuaToken::Kind::Keyword : LuaToken::Kind::Name;
    }
    if (isDigit(c) || (c == '.' && isDigit(at(i_ + 1)))) {
      unsigned char prev = 0;
      while (isIdent(at(i_)) || at(i_) == '.' ||
             ((at(i_) == '+' || at(i_) == '-') && (prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P'))) {
        prev = at(i_);
        ++i_;
      }
      return LuaToken::Kind::Number;
    }
    if (c == '"' || c == '\'') {
      advance();
      while (i_ < n_ && at(i_) != c) {
        if (at(i_) == '\\' && i_ + 1 < n_) advance();
        advance();
      }
      if (i_ < n_) advance();
      return LuaToken::Kind::String;
    }
    if (int level = longBracket(); level >= 0) {
      skipLong(level);
      return LuaToken::Kind::String;
    }
    i_ += symbolLength(s_.substr(i_));
    return LuaToken::Kind::Symbol;
  }

  std::string_view s_;
  std::size_t n_;
  std::size_t i_ = 0;
  std::size_t lineStart_ = 0;
  int line_ = 1;
};

}  // namespace

std::vector<LuaToken> tokenizeLua(std::string_view source) { return Lexer(source).run(); }

}  // namespace ljcheck
