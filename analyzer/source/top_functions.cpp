// Finds the main chunk's child functions in the source (top_functions.h):
// one pass over LuaJIT's tokens with a stack of the blocks they open
// (function, do, if, repeat) and close (end, until). Every `do` opens a
// block, whether of `while`, `for` or its own.
#include "source/top_functions.h"

#include "source/lua_tokens.h"

namespace ljcheck {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

class HeaderReader {
 public:
  HeaderReader(const std::vector<LuaToken>& tokens, std::string_view source) : tokens_(tokens), source_(source) {}

  // The function whose `function` is tokens_[at]: `local function f(`,
  // `function a.b:c(`, or a function expression `function(`.
  std::optional<TopFunction> read(std::size_t at, std::size_t blocks) const {
    TopFunction f;
    f.keyword = offset(at);
    f.blocks = blocks;
    std::size_t i = at + 1;
    if (at > 0 && tokens_[at - 1].keyword("local")) {
      if (!is(i++, LuaToken::Kind::Name)) return std::nullopt;
      f.form = TopFunction::Form::Local;
    } else if (is(i, LuaToken::Kind::Name)) {
      for (++i; (symbol(i, ".") || symbol(i, ":")) && is(i + 1, LuaToken::Kind::Name);) i += 2;
    } else {
      f.form = TopFunction::Form::Expression;
    }
    if (!symbol(i, "(")) return std::nullopt;
    f.open = offset(i);
    return f;
  }

 private:
  bool is(std::size_t i, LuaToken::Kind kind) const { return i < tokens_.size() && tokens_[i].kind == kind; }
  bool symbol(std::size_t i, std::string_view text) const { return i < tokens_.size() && tokens_[i].symbol(text); }
  std::size_t offset(std::size_t i) const { return static_cast<std::size_t>(tokens_[i].text.data() - source_.data()); }

  const std::vector<LuaToken>& tokens_;
  std::string_view source_;
};

}  // namespace

std::optional<TopFunctions> topFunctions(std::string_view source) {
  const std::vector<LuaToken> tokens = tokenizeLua(source);
  const HeaderReader headers(tokens, source);
  TopFunctions out;
  struct Block {
    bool function = false;
    std::size_t top = kNone;  // index into out.functions of a function outside every function
  };
  std::vector<Block> open;
  std::size_t functionDepth = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const LuaToken& t = tokens[i];
    if (t.kind == LuaToken::Kind::Keyword) {
      if (t.text == "function") {
        Block block{true, kNone};
        if (functionDepth == 0) {
          std::optional<TopFunction> f = headers.read(i, open.size());
          if (!f) return std::nullopt;
          block.top = out.functions.size();
          out.functions.push_back(std::move(*f));
        }
        open.push_back(block);
        ++functionDepth;
      } else if (t.text == "do" || t.text == "if" || t.text == "repeat") {
        open.push_back({});
      } else if (t.text == "end" || t.text == "until") {
        if (open.empty()) return std::nullopt;
        const Block block = open.back();
        open.pop_back();
        if (block.function) {
          --functionDepth;
          if (t.text != "end") return std::nullopt;
          if (block.top != kNone) out.functions[block.top].end = static_cast<std::size_t>(t.text.data() - source.data());
        }
      } else if (functionDepth == 0 && (t.text == "goto" || t.text == "break")) {
        ++out.mainJumps;
      }
    } else if (functionDepth == 0 && t.symbol("::")) {
      ++out.mainJumps;
    }
  }
  if (!open.empty()) return std::nullopt;
  return out;
}

bool endsAt(std::string_view function, std::size_t end) {
  const std::vector<LuaToken> tokens = tokenizeLua(function);
  std::size_t depth = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const LuaToken& t = tokens[i];
    if (t.kind != LuaToken::Kind::Keyword) continue;
    if (t.text == "function" || t.text == "do" || t.text == "if" || t.text == "repeat") {
      ++depth;
    } else if ((t.text == "end" || t.text == "until") && depth > 0 && --depth == 0) {
      return i + 1 == tokens.size() && t.text == "end" &&
             static_cast<std::size_t>(t.text.data() - function.data()) == end;
    }
  }
  return false;
}

}  // namespace ljcheck
