// A document's token index taken over after an edit of digits only
// (ljcheck/syntax_cache.h) equals a fresh index of the new text, field by
// field and name by name; any other edit builds a new one.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "ljcheck/syntax_cache.h"
#include "source/syntax_index.h"
#include "../support/text_edits.h"

using ljcheck::SyntaxCache;
using ljcheck::SyntaxIndex;

using ljcheck::testing::replaced;

namespace {

std::ostream& operator<<(std::ostream& out, const ljcheck::SourceRange& r) {
  return out << r.start.line << ':' << r.start.column << '-' << r.end.line << ':' << r.end.column;
}

std::string describe(const SyntaxIndex& index) {
  std::ostringstream out;
  for (const auto& f : index.functions)
    out << "function " << f.firstLine << '-' << f.lastLine << ' ' << f.keyword << ' ' << f.end << ' '
        << f.firstClosure.line << ':' << f.firstClosure.column << '\n';
  for (int l : index.functionsByFirstLine) out << l << ' ';
  for (int l : index.functionsByLastLine) out << l << ' ';
  for (const auto& c : index.calls)
    out << "\ncall " << c.line << ' ' << c.function << ' ' << c.order << ' ' << c.name << ' ' << c.spelling << ' '
        << c.callee << ' ' << c.inLoop << ' ' << c.opener;
  for (const auto& l : index.loops)
    out << "\nloop " << l.firstLine << '-' << l.lastLine << ' ' << l.bodyLine << ' ' << l.keyword << ' ' << l.holdsClosure;
  for (const auto& b : index.blockEnds)
    out << "\nblock end " << b.line << ' ' << b.loopBody << ' ' << b.holdsClosure << ' ' << b.keyword;
  for (const auto& e : index.exits)
    out << "\nexit " << e.firstLine << '-' << e.lastLine << ' ' << e.function << ' ' << e.isReturn << ' ' << e.closes
        << ' ' << e.keyword;
  for (const auto& v : index.varargs) out << "\nvararg " << v.line << ' ' << v.range;
  return out.str();
}

const std::string kSource =
    "local M = {}\n"
    "local f1 = string.gsub\n"
    "function M.a(t, n) -- 10 times\n"
    "  local s = 0x10\n"
    "  for i = 1, n do s = s + f1(t[i], '%d+', \"7\") * 2.5e3 end\n"
    "  return s, function(...) return ... end\n"
    "end\n"
    "return M\n";

}  // namespace

TEST_CASE("the token index is taken over after an edit of digits only and equals a fresh one", "[source]") {
  SyntaxCache cache;
  CHECK(describe(*cache.indexOf(kSource)) == describe(SyntaxIndex(kSource)));
  CHECK_FALSE(cache.tookOver());
  const std::pair<const char*, const char*> digitEdits[] = {
      {"s = 0x10", "s = 0x19"},   // a number
      {"2.5e3", "7.5e9"},         // two digits of one number
      {"f1(t[i]", "f9(t[i]"},     // a callee's name: the index keeps its text
      {"'%d+', \"7\"", "'%d+', \"0\""},  // a string
      {"-- 10 times", "-- 99 times"},    // a comment
  };
  for (const auto& [from, to] : digitEdits) {
    CAPTURE(from, to);
    const std::string edited = replaced(kSource, from, to);
    CHECK(describe(*cache.indexOf(edited)) == describe(SyntaxIndex(edited)));
    CHECK(cache.tookOver());
    CHECK(describe(*cache.indexOf(kSource)) == describe(SyntaxIndex(kSource)));
    CHECK(cache.tookOver());
  }
  const std::pair<const char*, const char*> otherEdits[] = {
      {"s = 0x10", "s = 0x1f"},        // a letter for a digit
      {"s = 0x10", "s = 0x100"},       // one byte more
      {"* 2.5e3", "- 2.5e3"},          // an operator
      {"local f1", "local fx"},        // a name
      {"-- 10 times", "--[10 times"},  // not a digit
  };
  for (const auto& [from, to] : otherEdits) {
    CAPTURE(from, to);
    const std::string edited = replaced(kSource, from, to);
    CHECK(describe(*cache.indexOf(edited)) == describe(SyntaxIndex(edited)));
    CHECK_FALSE(cache.tookOver());
    CHECK(describe(*cache.indexOf(kSource)) == describe(SyntaxIndex(kSource)));
    CHECK_FALSE(cache.tookOver());
  }
}
