// One pass over a file's tokens that indexes what predictions point at (see
// syntax_index.h), with a stack of the open blocks and one of the open
// brackets. Calls are numbered as they close: a call's instruction comes
// after its arguments', so closing order is evaluation order.
#include "source/syntax_index.h"

#include <algorithm>

#include "source/lua_tokens.h"

namespace ljcheck {
namespace {

using Kind = LuaToken::Kind;

bool binaryOperator(const LuaToken& t) {
  if (t.kind == Kind::Keyword) return t.text == "and" || t.text == "or";
  if (t.kind != Kind::Symbol) return false;
  for (std::string_view op : {"+", "-", "*", "/", "%", "^", "..", "==", "~=", "<", "<=", ">", ">="})
    if (t.text == op) return true;
  return false;
}

class Builder {
 public:
  Builder(SyntaxIndex& out, std::string_view source) : out_(out), t_(tokenizeLua(source)) {}

  void run() {
    out_.functions.emplace_back();  // the chunk
    for (std::size_t i = 0; i < t_.size(); ++i) {
      const LuaToken& t = t_[i];
      if (t.kind == Kind::Keyword) keyword(i);
      else if (t.kind == Kind::Symbol) symbol(i);
      else if (t.kind == Kind::String && opensArguments(i)) closeCall(openCall(i, t.end.line), i);
    }
    closeReturns(t_.size(), 0);
    finish();
  }

 private:
  struct Open {
    enum class What { Function, While, For, Repeat, Do, If } what;
    int function = 0;  // the function its body belongs to
    int loop = -1;     // into out_.loops
    int block = -1;    // into out_.blockEnds: its block being read
    bool awaiting = false;  // a loop's head before `do`, an if's condition before `then`
    bool headInLoop = false, bodyInLoop = false;
  };
  struct Bracket {
    int call = -1;  // into calls_, for the arguments of a call
    bool parameters = false;
  };
  struct PendingReturn {
    std::size_t exit, depth, brackets;  // the open blocks and brackets around it
    std::size_t token;                  // the `return`
  };

  int function() const { return stack_.empty() ? 0 : stack_.back().function; }
  bool inLoop() const {
    if (stack_.empty()) return false;
    return stack_.back().awaiting ? stack_.back().headInLoop : stack_.back().bodyInLoop;
  }
  int lineAfter(std::size_t i) const { return i + 1 < t_.size() ? t_[i + 1].start.line : t_[i].end.line; }
  int lineBefore(std::size_t i) const { return i > 0 ? t_[i - 1].end.line : 1; }

  void keyword(std::size_t i) {
    const std::string_view k = t_[i].text;
    using W = Open::What;
    if (k == "function") return openFunction(i);
    if (k == "while" || k == "for" || k == "repeat") {
      SyntaxIndex::Loop loop;
      loop.keyword = t_[i].range();
      loop.firstLine = t_[i].start.line;
      Open open{k == "while" ? W::While : k == "for" ? W::For : W::Repeat, function()};
      open.loop = static_cast<int>(out_.loops.size());
      open.awaiting = k != "repeat";
      open.headInLoop = k == "for" ? inLoop() : true;  // a for's head runs once, a while's condition each time
      open.bodyInLoop = true;
      if (k == "repeat") {
        loop.bodyLine = lineAfter(i);
        open.block = openBlock(false);
      }
      out_.loops.push_back(loop);
      stack_.push_back(open);
    } else if (k == "do") {
      if (!stack_.empty() && stack_.back().awaiting && stack_.back().loop >= 0) {
        stack_.back().awaiting = false;
        out_.loops[static_cast<std::size_t>(stack_.back().loop)].bodyLine = lineAfter(i);
        stack_.back().block = openBlock(true);
      } else {
        Open open{W::Do, function()};
        open.headInLoop = open.bodyInLoop = inLoop();
        open.block = openBlock(false);
        stack_.push_back(open);
      }
    } else if (k == "if") {
      Open open{W::If, function()};
      open.awaiting = true;
      open.headInLoop = open.bodyInLoop = inLoop();
      stack_.push_back(open);
    } else if (k == "then" || k == "elseif" || k == "else") {
      if (stack_.empty() || stack_.back().what != W::If) return;
      Open& open = stack_.back();
      if (k != "then") {
        closeReturns(i, stack_.size());
        closeBlock(open.block, i, lineBefore(i));
      }
      open.awaiting = k == "elseif";
      open.block = k == "elseif" ? -1 : openBlock(false);
    } else if (k == "end" || k == "until") {
      closeEnd(i);
    } else if (k == "return" || k == "break" || k == "goto") {
      SyntaxIndex::Exit exit;
      exit.firstLine = t_[i].start.line;
      exit.lastLine = k == "goto" ? lineAfter(i) : t_[i].end.line;
      exit.function = function();
      exit.isReturn = k == "return";
      exit.keyword = t_[i].range();
      if (exit.isReturn) returns_.push_back({out_.exits.size(), stack_.size(), brackets_.size(), i});
      exitLoops_.push_back(exit.isReturn ? -1 : innermostLoop());
      out_.exits.push_back(exit);
    }
  }

  void openFunction(std::size_t i) {
    SyntaxIndex::Function fn;
    fn.keyword = t_[i].range();
    // The prototype's first line is the token after `function` (lj_parse.c
    // passes ls->linenumber to parse_body); a `function a.b()` statement's
    // is its `function`.
    bool local = i > 0 && t_[i - 1].keyword("local");
    bool expression = i + 1 < t_.size() && t_[i + 1].symbol("(");
    fn.firstLine = local || expression ? lineAfter(i) : t_[i].start.line;
    SourcePosition& first = out_.functions[static_cast<std::size_t>(function())].firstClosure;
    if (first.line == 0) first = fn.keyword.start;
    // Every open loop and block now holds a closure: its locals may be captured.
    for (const Open& open : stack_) {
      if (open.loop >= 0) out_.loops[static_cast<std::size_t>(open.loop)].holdsClosure = true;
      if (open.block >= 0) out_.blockEnds[static_cast<std::size_t>(open.block)].holdsClosure = true;
    }
    Open open{Open::What::Function, static_cast<int>(out_.functions.size())};
    out_.functions.push_back(fn);
    stack_.push_back(open);
    parametersNext_ = true;
  }

  // `end` or `until`: the innermost open block ends.
  void closeEnd(std::size_t i) {
    if (stack_.empty()) return;
    closeReturns(i, stack_.size());
    Open open = stack_.back();
    stack_.pop_back();
    // A repeat loop's block ends after its condition: its locals are visible there.
    int line = open.what == Open::What::Repeat ? conditionLastLine(i + 1) : lineBefore(i);
    closeBlock(open.block, i, line);
    if (open.loop >= 0)
      out_.loops[static_cast<std::size_t>(open.loop)].lastLine = open.what == Open::What::Repeat ? line : t_[i].start.line;
    if (open.what == Open::What::Function) {
      auto& fn = out_.functions[static_cast<std::size_t>(open.function)];
      fn.end = t_[i].range();
      fn.lastLine = t_[i].start.line;
    }
  }

  int openBlock(bool loopBody) {
    SyntaxIndex::BlockEnd block;
    block.loopBody = loopBody;
    out_.blockEnds.push_back(block);
    return static_cast<int>(out_.blockEnds.size()) - 1;
  }

  void closeBlock(int block, std::size_t keyword, int line) {
    if (block < 0) return;
    auto& end = out_.blockEnds[static_cast<std::size_t>(block)];
    end.line = line;
    end.keyword = t_[keyword].range();
  }

  // A return's RET comes after its values: at the end of its block.
  void closeReturns(std::size_t i, std::size_t depth) {
    while (!returns_.empty() && returns_.back().depth >= depth) {
      out_.exits[returns_.back().exit].lastLine = lineBefore(i);
      returns_.pop_back();
    }
  }

  int innermostLoop() const {
    for (auto it = stack_.rbegin(); it != stack_.rend() && it->what != Open::What::Function; ++it)
      if (it->loop >= 0) return it->loop;
    return -1;
  }

  // The line of an `until` condition's last token: it goes on while a
  // bracket is open or an operator joins the next token to it.
  int conditionLastLine(std::size_t from) const {
    int depth = 0;
    std::size_t k = from;
    for (; k + 1 < t_.size(); ++k) {
      const LuaToken& t = t_[k];
      if (t.symbol("(") || t.symbol("[") || t.symbol("{")) ++depth;
      if (t.symbol(")") || t.symbol("]") || t.symbol("}")) --depth;
      const LuaToken& next = t_[k + 1];
      bool joined = depth > 0 || binaryOperator(t) || t.keyword("not") || t.symbol("#") || t.symbol(".") ||
                    t.symbol(":") || binaryOperator(next) || next.symbol(".") || next.symbol(":") ||
                    next.symbol("[") || next.symbol("(") || next.symbol("{") || next.kind == Kind::String;
      if (!joined) break;
    }
    return k < t_.size() ? t_[k].end.line : lineBefore(k);
  }

  void symbol(std::size_t i) {
    const LuaToken& t = t_[i];
    if (t.symbol("(") || t.symbol("{")) {
      bool parameters = t.symbol("(") && parametersNext_;
      if (parameters) parametersNext_ = false;
      int call = !parameters && opensArguments(i) ? openCall(i, t.start.line) : -1;
      brackets_.push_back({call, parameters});
    } else if (t.symbol("[")) {
      brackets_.push_back({});
    } else if (t.symbol(")") || t.symbol("}") || t.symbol("]")) {
      if (brackets_.empty()) return;
      int call = brackets_.back().call;
      if (brackets_.back().parameters) parametersEnd_ = i;
      brackets_.pop_back();
      if (call >= 0) closeCall(call, i);
    } else if (t.symbol("...")) {
      out_.varargs.push_back({t.start.line, t.range()});
    } else if (t.symbol(";") && !returns_.empty() && returns_.back().brackets == brackets_.size()) {
      closeReturns(i, stack_.size());  // not a table's field separator
    }
  }

  // Arguments follow a name, a call or an index: f(x), f(x)(y), t[k] "s",
  // require "m" ().
  bool opensArguments(std::size_t i) const {
    if (i == 0) return false;
    const LuaToken& p = t_[i - 1];
    return p.kind == Kind::Name || (p.symbol(")") && parametersEnd_ + 1 != i) || p.symbol("]") ||
           lastCloser_ + 1 == i;
  }

  // `line`: where LuaJIT's parse_args stands at the opening token (a string
  // argument is one token: it stands on its last line).
  int openCall(std::size_t i, int line) {
    SyntaxIndex::Call call;
    call.opener = i;
    call.line = line;
    call.function = function();
    call.inLoop = inLoop();
    const LuaToken& p = t_[i - 1];
    call.callee = p.range();
    if (p.kind == Kind::Name) {
      call.name = p.text;
      // A chain of plain names is the callee as written: string.gsub, M.util.trim.
      std::size_t k = i - 1;
      while (k >= 2 && t_[k - 1].symbol(".") && t_[k - 2].kind == Kind::Name) k -= 2;
      bool plain = k == 0 || !(t_[k - 1].symbol(".") || t_[k - 1].symbol(":"));
      if (plain) {
        call.callee.start = t_[k].start;
        const char* from = t_[k].text.data();
        call.spelling = std::string_view(from, static_cast<std::size_t>(p.text.data() + p.text.size() - from));
      }
    }
    calls_.push_back(call);
    return static_cast<int>(calls_.size()) - 1;
  }

  // `closer`: the call's last token. A tail call's CALLT replaces its CALL
  // after the return's values are read (lj_parse.c parse_return): it is on
  // the line of the return's last token.
  void closeCall(int index, std::size_t closer) {
    SyntaxIndex::Call call = calls_[static_cast<std::size_t>(index)];
    if (tailCall(call, closer)) call.line = t_[closer].end.line;
    out_.calls.push_back(call);
    lastCloser_ = closer;
  }

  // A call that is the whole of a return's values: `return a.b:c(x)`.
  bool tailCall(const SyntaxIndex::Call& call, std::size_t closer) const {
    if (returns_.empty() || returns_.back().depth != stack_.size() || returns_.back().brackets != brackets_.size())
      return false;
    if (closer + 1 < t_.size()) {
      const LuaToken& next = t_[closer + 1];
      bool ends = next.keyword("end") || next.keyword("else") || next.keyword("elseif") || next.keyword("until") ||
                  next.symbol(";");
      if (!ends) return false;
    }
    // From the return to the call's arguments: a prefix expression, no operator or comma.
    int depth = 0;
    for (std::size_t k = returns_.back().token + 1; k < call.opener; ++k) {
      const LuaToken& t = t_[k];
      if (t.symbol("(") || t.symbol("[") || t.symbol("{")) ++depth;
      else if (t.symbol(")") || t.symbol("]") || t.symbol("}")) --depth;
      else if (depth == 0 && !(t.kind == Kind::Name || t.kind == Kind::String || t.symbol(".") || t.symbol(":")))
        return false;
    }
    return depth == 0;
  }

  // Calls are in closing order; numbered within their function and line.
  void numberCalls() {
    auto& calls = out_.calls;
    std::stable_sort(calls.begin(), calls.end(), [](const auto& a, const auto& b) { return a.line < b.line; });
    std::vector<std::pair<int, int>> counts;  // function, calls so far: few per line
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (i == 0 || calls[i].line != calls[i - 1].line) counts.clear();
      auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == calls[i].function; });
      if (it == counts.end()) it = counts.insert(counts.end(), {calls[i].function, 0});
      calls[i].order = ++it->second;
    }
  }

  void finish() {
    // A break or goto closes the upvalues of the blocks it leaves: only
    // where a closure was created in its loop (or, outside loops, its
    // function). Every return of a function that creates closures closes
    // them, also one before the first (lj_parse.c: fs_fixup_ret).
    for (std::size_t i = 0; i < out_.exits.size(); ++i) {
      SyntaxIndex::Exit& exit = out_.exits[i];
      int loop = exitLoops_[i];
      bool closures = out_.functions[static_cast<std::size_t>(exit.function)].firstClosure.line > 0;
      exit.closes = loop >= 0 ? out_.loops[static_cast<std::size_t>(loop)].holdsClosure : closures;
    }
    numberCalls();
    auto byLine = [](const auto& a, const auto& b) { return a.line < b.line; };
    std::stable_sort(out_.blockEnds.begin(), out_.blockEnds.end(), byLine);
    std::stable_sort(out_.varargs.begin(), out_.varargs.end(), byLine);
    std::stable_sort(out_.exits.begin(), out_.exits.end(),
                     [](const auto& a, const auto& b) { return a.lastLine < b.lastLine; });
    for (std::size_t i = 1; i < out_.functions.size(); ++i) {
      out_.functionsByFirstLine.push_back(static_cast<int>(i));
      out_.functionsByLastLine.push_back(static_cast<int>(i));
    }
    auto sortBy = [&](std::vector<int>& ids, int SyntaxIndex::Function::*key) {
      std::stable_sort(ids.begin(), ids.end(), [&](int a, int b) {
        return out_.functions[static_cast<std::size_t>(a)].*key < out_.functions[static_cast<std::size_t>(b)].*key;
      });
    };
    sortBy(out_.functionsByFirstLine, &SyntaxIndex::Function::firstLine);
    sortBy(out_.functionsByLastLine, &SyntaxIndex::Function::lastLine);
  }

  SyntaxIndex& out_;
  std::vector<LuaToken> t_;
  std::vector<Open> stack_;
  std::vector<Bracket> brackets_;
  std::vector<SyntaxIndex::Call> calls_;  // by opening; out_.calls takes them as they close
  std::vector<PendingReturn> returns_;
  std::vector<int> exitLoops_;  // parallel to out_.exits until finish()
  bool parametersNext_ = false;  // after `function`: the next `(` opens its parameters
  std::size_t lastCloser_ = SIZE_MAX;     // the last token of the last call
  std::size_t parametersEnd_ = SIZE_MAX;  // the `)` of the last parameter list
};

}  // namespace

SyntaxIndex::SyntaxIndex(std::string_view source) { Builder(*this, source).run(); }

}  // namespace ljcheck
