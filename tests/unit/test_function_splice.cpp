// The language server's splice of one recompiled function into the last
// dump (source/function_splice.h): whenever it applies, its dump is the one a
// full compile of the new text gives, byte for byte; it declines what it
// cannot show. Real files, real LuaJIT, edits of the kinds users make.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "ljcheck/analyzer.h"
#include "ljcheck/bytecode.h"
#include "ljcheck/compile.h"
#include "ljcheck/dump_reread.h"
#include "ljcheck/profile.h"
#include "source/function_splice.h"
#include "../support/opcodes.h"
#include "../support/text_edits.h"

namespace fs = std::filesystem;
using ljcheck::FunctionSplicer;
using ljcheck::SpliceOutcome;
using ljcheck::testing::profileOpcodes;
using ljcheck::testing::replaced;
namespace bytecode = ljcheck::bytecode;

namespace {

// A dump as text, each template table's hash part in key order.
std::string canonical(const std::string& dump) {
  const bytecode::Chunk chunk = bytecode::readDump(dump, profileOpcodes(), "dump");
  std::ostringstream out;
  auto value = [&](const bytecode::TableValue& v) {
    out << v.index() << ':';
    std::visit([&](const auto& x) {
      using T = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<T, std::monostate>) out << "nil";
      else if constexpr (std::is_same_v<T, double>) out << std::hexfloat << x << std::defaultfloat;
      else out << x;
    }, v);
    out << ' ';
  };
  for (const auto& p : chunk.prototypes) {
    out << "proto " << int(p.flags) << ' ' << int(p.numparams) << ' ' << int(p.framesize) << ' ' << p.firstline << ' '
        << p.numline << '\n';
    for (const auto& i : p.code)
      out << int(i.raw) << ' ' << int(i.a) << ' ' << int(i.b) << ' ' << int(i.c) << ' ' << i.d << ' ' << i.line << '\n';
    for (const auto& u : p.upvalues) out << "uv " << u.parentLocal << u.immutable << ' ' << u.index << '\n';
    for (const auto& n : p.upvalueNames) out << "uvname " << n << '\n';
    for (const auto& v : p.vars) out << "var " << v.name << ' ' << v.startpc << ' ' << v.endpc << '\n';
    for (const auto& n : p.num) out << "num " << n.isInteger << ' ' << n.integer << ' ' << std::hexfloat << n.number << std::defaultfloat << '\n';
    for (const auto& k : p.gc) {
      out << "gc " << int(k.kind) << ' ' << k.str << ' ' << k.child << ' ' << k.bits << ' ' << k.re << ' ' << k.im << ' ';
      for (const auto& v : k.table.array) value(v);
      auto hash = k.table.hash;
      std::sort(hash.begin(), hash.end());
      for (const auto& [key, v] : hash) value(key), value(v);
      out << '\n';
    }
  }
  return out.str();
}

bool hasHashTemplate(const std::string& dump) {
  for (const auto& p : bytecode::readDump(dump, profileOpcodes(), "dump").prototypes)
    for (const auto& k : p.gc)
      if (k.kind == bytecode::GcConstant::Kind::Table && k.table.hash.size() > 1) return true;
  return false;
}

// A document as the analyzer keeps it: one VM, the last dump read and kept,
// the splicer told its text.
class Document {
 public:
  explicit Document(const std::string& text, std::string path = "doc.lua") : path_(std::move(path)) {
    auto compiled = compiler_.compile(text, path_);
    REQUIRE(compiled.ok());
    take(text, compiled.dump, false);
  }

  // Edits the document to `text`: when the splice applies, its dump must be
  // the full compile's. A text that does not compile leaves the last dump.
  SpliceOutcome edit(const std::string& text) {
    std::optional<std::string> spliced = splicer_.splice(text, dumps_.last(), profileOpcodes(), compiler_, path_);
    auto full = compiler_.compile(text, path_);
    if (spliced) {
      INFO("splice of:\n" << text);
      REQUIRE(full.ok());
      if (*spliced != full.dump) {
        // Only where LuaJIT's own compiles differ: a template table's hash order.
        REQUIRE(hasHashTemplate(full.dump));
        REQUIRE(canonical(*spliced) == canonical(full.dump));
        ++reordered;
      }
    }
    if (full.ok()) take(text, spliced ? *spliced : full.dump, spliced.has_value());
    return splicer_.outcome();
  }

  const bytecode::Chunk& chunk() const { return dumps_.last().chunk; }
  int reordered = 0;  // splices equal to the full compile but for a template table's hash order
  const std::string& text() const { return text_; }

 private:
  void take(const std::string& text, const std::string& dump, bool spliced) {
    dumps_.keep(dumps_.read(dump, profileOpcodes(), path_));
    splicer_.remember(text, spliced);
    text_ = text;
  }

  std::string path_;
  ljcheck::LuaCompiler compiler_;
  bytecode::DumpRereader dumps_;
  FunctionSplicer splicer_;
  std::string text_;
};

const char* const kSplicedModule = R"(local M = {}
local count = 0
local limit = 10
local total = 0
function M.a(t, n)
  local s = 0
  return s + limit + t[n]
end
function M.b(x)
  count = count + 1
  return x
end
function M.b2()
  total = total + 1
  return total
end
function M.b3()
  total = total * 2
end
local function c(y)
  return y * 2
end
M.d = function(...)
  return select('#', ...)
end
function M:e(z)
  return self, z
end
function M.h(a) return a end
for i = 1, 2 do
  M[i] = function(v) return v + i end
end
local function g
  (w) return w end
return M
)";

}  // namespace

TEST_CASE("function splice: an edit inside a function's body is spliced, byte for byte", "[function_splice]") {
  Document doc(kSplicedModule);
  CHECK(doc.edit(replaced(doc.text(), "local s = 0", "local s = 1")) == SpliceOutcome::Spliced);
  CHECK(doc.edit(replaced(doc.text(), "local s = 1", "local s, u = 1, t.x")) == SpliceOutcome::Spliced);
  CHECK(doc.edit(doc.text()) == SpliceOutcome::Unchanged);
  CHECK(doc.edit(replaced(doc.text(), "return y * 2", "return y * 3 + #'abc'")) == SpliceOutcome::Spliced);
  CHECK(doc.edit(replaced(doc.text(), "return self, z", "return self, z, {a = 1, b = 'x'}")) ==
        SpliceOutcome::Spliced);
  CHECK(doc.edit(replaced(doc.text(), "select('#', ...)", "select(2, ...)")) == SpliceOutcome::Spliced);
  CHECK(doc.edit(replaced(doc.text(), "return v + i", "return v - i")) == SpliceOutcome::Spliced);
  CHECK(doc.edit(replaced(doc.text(), "return x", "return function() return x end")) == SpliceOutcome::Spliced);
  CHECK(doc.edit(replaced(doc.text(), "function M:e(z)", "function M:e(z, q)")) == SpliceOutcome::Spliced);
  CHECK(doc.edit(replaced(doc.text(), "total = total * 2", "total = total * 3")) == SpliceOutcome::Spliced);
  CHECK(doc.edit(replaced(doc.text(), "return x", "return x end")) == SpliceOutcome::NotInOneFunction);
}

TEST_CASE("function splice: declines what it cannot show", "[function_splice]") {
  Document doc(kSplicedModule);
  const std::string text = doc.text();
  auto outcome = [&](const std::string& from, const std::string& to) {
    Document fresh(text);
    return fresh.edit(replaced(text, from, to));
  };
  CHECK(outcome("local s = 0", "local s = 0\n") == SpliceOutcome::LinesChanged);
  // Alone, `function M.h(a) return b end local q = 1 do end` compiles to one
  // function on the same line, but the main chunk gained a local.
  CHECK(outcome("return a end", "return b end local q = 1 do end") == SpliceOutcome::NotInOneFunction);
  CHECK(outcome("local limit = 10", "local limit = 11") == SpliceOutcome::NotInOneFunction);
  CHECK(outcome("function M.a(", "function M.aa(") == SpliceOutcome::NotInOneFunction);
  CHECK(outcome("local s = 0", "local s = count") == SpliceOutcome::UpvaluesChanged);
  CHECK(outcome("return y * 2", "return c(y)") == SpliceOutcome::UpvaluesChanged);
  CHECK(outcome("local s = 0", "limit = 0") == SpliceOutcome::MutabilityChanged);
  CHECK(outcome("count = count + 1", "local _ = count + 1") == SpliceOutcome::MutabilityChanged);
  // Another function assigns `total` too, which the function alone cannot see.
  CHECK(outcome("total = total * 2", "local _ = total * 2") == SpliceOutcome::MutabilityChanged);
  CHECK(outcome("  return x\nend", "  return x\nxend") == SpliceOutcome::NotInOneFunction);
  CHECK(outcome("local s = 0", "local s = 0LL") == SpliceOutcome::FfiChanged);
  CHECK(outcome("local s = 0", "local s = = 0") == SpliceOutcome::DoesNotCompile);
  CHECK(outcome("local s = 0", "local s = ...") == SpliceOutcome::DoesNotCompile);
  // A stray `end` or `function`: the function would no longer end at its `end`.
  CHECK(outcome("local s = 0", "local s = 0 end") == SpliceOutcome::NotInOneFunction);
  CHECK(outcome("local s = 0", "local s = function() 0") == SpliceOutcome::NotInOneFunction);
  // Its first line is that of `(`, not of `function`.
  CHECK(outcome("(w) return w end", "(w) return w + 1 end") == SpliceOutcome::NotValidated);
  CHECK(outcome("local s = 0", "local s = 0") == SpliceOutcome::Unchanged);  // and the last dump is returned
}

TEST_CASE("function splice: after a syntax error, an edit splices into the last dump", "[function_splice]") {
  Document doc(kSplicedModule);
  const std::string good = doc.text();
  CHECK(doc.edit(replaced(good, "local s = 0", "local s = ")) == SpliceOutcome::DoesNotCompile);
  CHECK(doc.edit(replaced(good, "local s = 0", "local s = 5")) == SpliceOutcome::Spliced);
}

TEST_CASE("function splice: a function nested as deep as the document allows", "[function_splice]") {
  // In 190 parentheses: alone it is as deep or deeper, so a deeper edit
  // that the document refuses fails alone too.
  std::string open(190, '('), close(190, ')');
  std::string text = "local x = " + open + "function(a)\n  return a\nend" + close + "\nreturn x\n";
  Document expression(text);
  CHECK(expression.edit(replaced(text, "return a", "return 7")) == SpliceOutcome::Spliced);
  CHECK(expression.edit(replaced(text, "return a", "return ((((((((((a))))))))))")) == SpliceOutcome::DoesNotCompile);
  // In 190 blocks: a statement alone is exactly as deep.
  std::string blocks, ends;
  for (int i = 0; i < 190; ++i) blocks += "do ", ends += " end";
  text = "local M = {}\n" + blocks + "function M.g(a)\n  return a\nend" + ends + "\nreturn M\n";
  Document statement(text);
  CHECK(statement.edit(replaced(text, "return a", "return (((a)))")) == SpliceOutcome::Spliced);
  CHECK(statement.edit(replaced(text, "return a", "return ((((((((a))))))))")) == SpliceOutcome::DoesNotCompile);
}

namespace {

std::vector<std::string> realLuaFiles() {
  std::vector<std::string> files;
  for (const char* dir : {"fixtures", "examples", "bench/corpus"}) {
    fs::path root = fs::path(LJCHECK_SOURCE_DIR) / dir;
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root))
      if (entry.is_regular_file() && entry.path().extension() == ".lua") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// One random edit on a line strictly inside one of the main chunk's child
// functions: the kinds of change a user makes while typing.
std::string randomEdit(const std::string& text, const bytecode::Chunk& chunk, std::mt19937& rng) {
  const auto& main = chunk.main();
  if (main.children.empty()) return text;
  const auto& f = chunk.prototypes[main.children[rng() % main.children.size()]];
  if (f.numline < 2) return text;
  const int line = f.firstline + 1 + static_cast<int>(rng() % static_cast<unsigned>(f.numline - 1));
  std::size_t begin = 0;
  for (int l = 1; l < line && begin != std::string::npos; ++l) begin = text.find('\n', begin) + 1;
  std::size_t end = text.find('\n', begin);
  if (begin == std::string::npos || begin == 0 || end == std::string::npos) return text;
  std::string out = text;
  std::string outer = main.vars.empty() ? "M" : main.vars[rng() % main.vars.size()].name;
  std::string upvalue = f.upvalueNames.empty() ? "x" : f.upvalueNames[rng() % f.upvalueNames.size()];
  switch (rng() % 12) {
    case 0:
    case 1: {  // a digit
      auto at = out.find_first_of("0123456789", begin);
      if (at < end) out[at] = static_cast<char>('0' + rng() % 10);
      return out;
    }
    case 2: {  // a letter of a name
      for (std::size_t at = begin + rng() % (end - begin + 1); at < end; ++at)
        if (std::isalpha(static_cast<unsigned char>(out[at]))) {
          out[at] = static_cast<char>('a' + rng() % 26);
          break;
        }
      return out;
    }
    case 3: return out.insert(end, " local _z = 1");
    case 4: return out.insert(end, " local _r = " + outer);
    case 5: return out.insert(end, " " + upvalue + " = " + upvalue);
    case 6: return out.insert(end, " local _f = function(q) return q + 1 end");
    case 7: return out.insert(end, " local _v = ...");
    case 8: return out.insert(end, " local _c = 1LL");
    case 9: return out.insert(end, " local = ");
    case 10: return out.insert(end, rng() % 2 ? " end" : " function");
    default: return out.insert(end, " do local _s = 's' .. 1 end");
  }
}

}  // namespace

TEST_CASE("function splice: random edits of real files give the full compile's dump", "[function_splice]") {
  std::mt19937 rng(20261202);
  std::map<SpliceOutcome, int> outcomes;
  int edits = 0, reordered = 0;
  for (const auto& file : realLuaFiles()) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    ljcheck::LuaCompiler probe;
    if (!probe.compile(content.str(), "doc.lua").ok()) continue;  // fixtures of syntax errors
    Document doc(content.str());
    for (int i = 0; i < 12; ++i) {
      std::string edited = randomEdit(doc.text(), doc.chunk(), rng);
      if (edited == doc.text()) continue;
      INFO(file << " edit " << i);
      ++outcomes[doc.edit(edited)];
      ++edits;
    }
    reordered += doc.reordered;
  }
  std::ostringstream counts;
  counts << "equal but for a template table's hash order: " << reordered << "\n";
  for (const auto& [outcome, n] : outcomes) counts << ljcheck::describe(outcome) << ": " << n << "\n";
  INFO(counts.str());
  REQUIRE(edits > 500);
  CHECK(outcomes[SpliceOutcome::Spliced] * 3 > edits);  // a good share applies
  for (auto must : {SpliceOutcome::UpvaluesChanged, SpliceOutcome::DoesNotCompile, SpliceOutcome::FfiChanged})
    CHECK(outcomes[must] > 0);
}

TEST_CASE("function splice: a re-lint through AnalysisReuse splices and finds what a fresh analysis finds",
          "[function_splice]") {
  std::string text = std::string(kSplicedModule) + "function M.hot(t)\n  for i = 1, #t do t[i] = string.gsub(t[i], 'a', 'b') end\nend\n";
  text = replaced(text, "return M\n", "") + "return M\n";
  ljcheck::AnalysisReuse reuse;
  auto first = ljcheck::analyzeSource(text, "doc.lua", ljcheck::defaultProfile(), ljcheck::Confidence::Possible, {},
                                      nullptr, &reuse);
  CHECK_FALSE(reuse.functionSpliced());
  std::string edited = replaced(text, "'a', 'b'", "'a', 'c'");
  auto again = ljcheck::analyzeSource(edited, "doc.lua", ljcheck::defaultProfile(), ljcheck::Confidence::Possible,
                                      {}, nullptr, &reuse);
  CHECK(reuse.functionSpliced());
  auto fresh = ljcheck::analyzeSource(edited, "doc.lua", ljcheck::defaultProfile(), ljcheck::Confidence::Possible);
  REQUIRE(again.predictions.size() == fresh.predictions.size());
  REQUIRE_FALSE(fresh.predictions.empty());
  for (std::size_t i = 0; i < fresh.predictions.size(); ++i) {
    CHECK(again.predictions[i].reasonId == fresh.predictions[i].reasonId);
    CHECK(again.predictions[i].line == fresh.predictions[i].line);
    CHECK(again.predictions[i].message == fresh.predictions[i].message);
  }
}

TEST_CASE("function splice: the last text again after a syntax error, in a file without functions",
          "[function_splice]") {
  // Found by fuzz/fuzz_lsp: the syntax error kept the (empty) list of the
  // last text's functions, the unchanged text then "spliced", and
  // remember() shifted the offsets of a function that does not exist.
  const std::string text = "local t = {}\nfor i = 1, 100 do\n  t[i] = i\nend\nreturn t\n";
  const std::string broken = replaced(text, "100 do", "100 dm");
  ljcheck::AnalysisReuse reuse;
  auto analyze = [&](const std::string& source) {
    return ljcheck::analyzeSource(source, "doc.lua", ljcheck::defaultProfile(), ljcheck::Confidence::Possible, {},
                                  nullptr, &reuse);
  };
  auto first = analyze(text);
  REQUIRE(first.errors.empty());
  auto failed = analyze(broken);
  REQUIRE(failed.errors.size() == 1);
  auto again = analyze(text);
  CHECK(again.errors.empty());
  CHECK(again.predictions.size() == first.predictions.size());
  auto edited = analyze(replaced(text, "t[i] = i", "t[i] = 2 * i"));  // and the next edit still works
  auto fresh = ljcheck::analyzeSource(replaced(text, "t[i] = i", "t[i] = 2 * i"), "doc.lua", ljcheck::defaultProfile(),
                                      ljcheck::Confidence::Possible);
  CHECK(edited.errors.empty());
  CHECK(edited.predictions.size() == fresh.predictions.size());
}
