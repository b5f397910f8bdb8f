// Parses ffi.cdef strings (see c_declarations.h): tokens, then declarations
// one `;` at a time, each a list of specifiers and declarators.
#include "flow/c_declarations.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

namespace ljcheck::flow {

namespace {

struct Token {
  enum class Kind { Ident, Number, String, Punct, End };
  Kind kind = Kind::End;
  std::string_view text;
};

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  auto isIdent = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (s.compare(i, 2, "/*") == 0) {
      std::size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
    } else if (s.compare(i, 2, "//") == 0 || c == '#') {  // comments and preprocessor lines
      std::size_t end = s.find('\n', i);
      i = end == std::string_view::npos ? s.size() : end + 1;
    } else if (isIdent(c)) {
      std::size_t start = i;
      while (i < s.size() && (isIdent(s[i]) || (std::isdigit(static_cast<unsigned char>(s[start])) && s[i] == '.')))
        ++i;
      bool number = std::isdigit(static_cast<unsigned char>(s[start]));
      out.push_back({number ? Token::Kind::Number : Token::Kind::Ident, s.substr(start, i - start)});
    } else if (c == '"' || c == '\'') {
      std::size_t start = i++;
      while (i < s.size() && s[i] != c) i += s[i] == '\\' ? 2 : 1;
      i = std::min(i + 1, s.size());
      out.push_back({Token::Kind::String, s.substr(start, i - start)});
    } else if (s.compare(i, 3, "...") == 0) {
      out.push_back({Token::Kind::Punct, s.substr(i, 3)});
      i += 3;
    } else {
      out.push_back({Token::Kind::Punct, s.substr(i, 1)});
      ++i;
    }
  }
  return out;
}

CType scalar(std::size_t size, std::string spelling) {
  CType t;
  t.pass = CPass::Scalar;
  t.shape = CShape::Number;
  t.size = t.align = size;
  t.spelling = std::move(spelling);
  return t;
}

CType pointerTo(const CType& target) {
  CType p = scalar(8, target.spelling + " *");
  p.shape = CShape::Pointer;
  return p;
}

std::optional<CType> builtinTypedef(std::string_view name) {
  static const std::map<std::string_view, std::size_t> sizes = {
      {"int8_t", 1},   {"uint8_t", 1},   {"int16_t", 2},   {"uint16_t", 2},   {"int32_t", 4},
      {"uint32_t", 4}, {"int64_t", 8},   {"uint64_t", 8},  {"intptr_t", 8},   {"uintptr_t", 8},
      {"ptrdiff_t", 8}, {"size_t", 8},   {"ssize_t", 8},   {"wchar_t", 4},    {"va_list", 8},
      {"__builtin_va_list", 8}, {"__gnuc_va_list", 8}};
  auto it = sizes.find(name);
  if (it == sizes.end()) return std::nullopt;
  return scalar(it->second, std::string(name));
}

bool isQualifier(std::string_view w) {
  static const std::vector<std::string_view> words = {
      "const",    "volatile", "static",     "extern",    "inline",   "__inline", "__inline__", "register",
      "restrict", "__restrict", "__restrict__", "__const", "__const__", "__volatile__", "__extension__", "auto",
      "__cdecl",  "__stdcall", "__fastcall", "__thiscall", "__ptr32", "__ptr64", "_Alignas"};
  return std::find(words.begin(), words.end(), w) != words.end();
}

bool isAttribute(std::string_view w) {
  return w == "__attribute__" || w == "__attribute" || w == "__declspec" || w == "__asm__" || w == "__asm" ||
         w == "asm" || w == "__alignof__";
}

}  // namespace

// Recursive-descent over one token list; fills a CDeclarations.
class CParser {
 public:
  CParser(std::vector<Token> tokens, CDeclarations& out) : t_(std::move(tokens)), out_(out) {}

  void declarations() {
    while (!atEnd()) {
      std::size_t start = pos_;
      if (!declaration()) {
        pos_ = start;
        skipPast(";");
      }
    }
  }

  std::optional<CType> abstractType() {
    Specifiers spec;
    if (!specifiers(spec) || !spec.type) return std::nullopt;
    Declarator d = declarator();
    if (!d.ok || !atEnd()) return std::nullopt;
    return apply(*spec.type, d);
  }

 private:
  struct Specifiers {
    std::optional<CType> type;
    bool isTypedef = false;
  };
  struct Declarator {
    bool ok = true;
    std::string name;
    int pointers = 0;
    bool grouped = false;          // (*name)(...) or (*name)[n]: a pointer whatever follows
    std::vector<long long> dims;   // -1: [?], -2: []
    bool function = false;
    std::vector<CType> params;
    bool vararg = false;
    int bits = -1;                 // a bit field
  };

  static Declarator failed() {
    Declarator d;
    d.ok = false;
    return d;
  }
  bool atEnd() const { return pos_ >= t_.size(); }
  std::string_view peek(std::size_t ahead = 0) const {
    return pos_ + ahead < t_.size() ? t_[pos_ + ahead].text : std::string_view();
  }
  bool accept(std::string_view text) {
    if (peek() != text) return false;
    ++pos_;
    return true;
  }
  bool isIdent() const { return !atEnd() && t_[pos_].kind == Token::Kind::Ident; }

  // Skips a balanced (...) group starting at the current token.
  void skipGroup() {
    int depth = 0;
    do {
      if (peek() == "(") ++depth;
      else if (peek() == ")") --depth;
      ++pos_;
    } while (!atEnd() && depth > 0);
  }
  void skipPast(std::string_view text) {
    int depth = 0;
    while (!atEnd()) {
      std::string_view w = peek();
      ++pos_;
      if (w == "{" || w == "(") ++depth;
      else if (w == "}" || w == ")") depth = std::max(0, depth - 1);
      else if (w == text && depth == 0) return;
    }
  }
  void skipAttributes() {
    while (isIdent() && isAttribute(peek())) {
      ++pos_;
      if (peek() == "(") skipGroup();
    }
  }

  bool declaration() {
    if (accept(";")) return true;
    Specifiers spec;
    if (!specifiers(spec) || !spec.type) return false;
    if (accept(";")) return true;  // struct foo { ... }; or enum { ... };
    do {
      Declarator d = declarator();
      if (!d.ok || d.name.empty()) return false;
      if (spec.isTypedef) {
        CType t = apply(*spec.type, d);
        t.spelling = d.name;  // what declarations that use it say
        out_.typedefs_[d.name] = t;
      } else if (d.function && !d.grouped) {
        CFunction f;
        f.name = d.name;
        Declarator result = d;
        result.function = false;
        f.result = apply(*spec.type, result);
        f.params = d.params;
        f.vararg = d.vararg;
        out_.functions_[d.name] = std::move(f);
      }
    } while (accept(","));
    return accept(";");
  }

  bool specifiers(Specifiers& spec) {
    int longs = 0;
    bool sawScalarWord = false, isUnsigned = false, isComplex = false;
    std::string words;
    std::optional<CType> base;
    while (!atEnd() && isIdent()) {
      std::string_view w = peek();
      if (isQualifier(w)) {
        ++pos_;
      } else if (isAttribute(w)) {
        skipAttributes();
      } else if (w == "typedef") {
        spec.isTypedef = true;
        ++pos_;
      } else if (w == "struct" || w == "union") {
        ++pos_;
        base = record(w == "union");
        if (!base) return false;
      } else if (w == "enum") {
        ++pos_;
        base = enumeration();
        if (!base) return false;
      } else if (w == "void" || w == "char" || w == "short" || w == "int" || w == "long" || w == "float" ||
                 w == "double" || w == "signed" || w == "unsigned" || w == "bool" || w == "_Bool" ||
                 w == "complex" || w == "_Complex" || w == "__complex__") {
        ++pos_;
        sawScalarWord = true;
        if (w == "long") ++longs;
        if (w == "unsigned") isUnsigned = true;
        if (w == "complex" || w == "_Complex" || w == "__complex__") isComplex = true;
        else if (w != "long" && w != "signed" && w != "unsigned") words = std::string(w);
      } else if (!base && !sawScalarWord) {
        ++pos_;  // a typedef name
        auto own = out_.typedefs_.find(w);
        if (own != out_.typedefs_.end()) base = own->second;
        else if (auto builtin = builtinTypedef(w)) base = *builtin;
        else {
          CType unknown;
          unknown.spelling = std::string(w);
          base = unknown;
        }
      } else {
        break;  // the declarator's name
      }
    }
    if (sawScalarWord && !base) {
      std::size_t size = 4;
      if (words == "void") {
        CType v;
        v.pass = CPass::Void;
        v.spelling = "void";
        base = v;
      } else {
        if (words == "char" || words == "bool" || words == "_Bool") size = 1;
        else if (words == "short") size = 2;
        else if (words == "float") size = 4;
        else if (words == "double") size = longs > 0 ? 16 : 8;
        else if (longs > 0) size = 8;
        std::string spelling = (isUnsigned ? "unsigned " : "") + std::string(longs ? "long " : "") +
                               (words.empty() ? "int" : words);
        base = scalar(size, spelling);
        if (isComplex) {
          base->pass = CPass::Complex;
          base->shape = CShape::Unknown;
          base->size *= 2;
          base->spelling = "complex " + spelling;
        }
      }
    }
    spec.type = base;
    return true;
  }

  std::optional<CType> record(bool isUnion) {
    skipAttributes();
    std::string tag;
    if (isIdent()) tag = std::string(isUnion ? "union " : "struct ") + std::string(t_[pos_++].text);
    CType r;
    r.pass = CPass::Aggregate;
    r.shape = CShape::Record;
    r.isUnion = isUnion;
    r.spelling = tag.empty() ? (isUnion ? "union {...}" : "struct {...}") : tag;
    if (!accept("{")) {
      auto known = out_.tags_.find(tag);
      return known != out_.tags_.end() ? known->second : r;  // opaque until defined
    }
    std::size_t size = 0, align = 1;
    bool layoutKnown = true;
    r.membersKnown = true;
    while (!atEnd() && !accept("}")) {
      Specifiers field;
      if (!specifiers(field) || !field.type) return std::nullopt;
      if (accept(";")) {  // an anonymous struct/union member: crec_alloc passes over unnamed ones
        layoutKnown &= place(*field.type, isUnion, size, align);
        continue;
      }
      do {
        Declarator d = declarator();
        if (!d.ok) return std::nullopt;
        CType ft = apply(*field.type, d);
        if (d.bits >= 0) layoutKnown = false;
        noteMember(r, ft, d);
        if (ft.variableLength) r.variableLength = true;
        layoutKnown &= place(ft, isUnion, size, align);
      } while (accept(","));
      if (!accept(";")) return std::nullopt;
    }
    skipAttributes();
    if (layoutKnown) {
      r.align = align;
      r.size = (size + align - 1) / align * align;
    }
    if (!tag.empty()) out_.tags_[tag] = r;
    return r;
  }

  // What crec_alloc makes of a named member `d` of type `t` of record `r`.
  static void noteMember(CType& r, const CType& t, const Declarator& d) {
    if (!r.uninitializableMember.empty()) return;
    if (d.bits >= 0) {
      r.uninitializableMember = "the bit field " + d.name;
      return;
    }
    if (t.shape == CShape::Unknown) r.membersKnown = false;
    else if (t.shape == CShape::Array || t.shape == CShape::Record)
      r.uninitializableMember = d.name + " (" + t.spelling + ")";
  }

  // Lays out one member; false when its size is not known.
  static bool place(const CType& t, bool isUnion, std::size_t& size, std::size_t& align) {
    if (t.variableLength) return true;  // a trailing [?] adds nothing to the fixed part
    if (t.size == 0 || t.align == 0) return false;
    align = std::max(align, t.align);
    if (isUnion) {
      size = std::max(size, t.size);
    } else {
      size = (size + t.align - 1) / t.align * t.align + t.size;
    }
    return true;
  }

  std::optional<CType> enumeration() {
    skipAttributes();
    std::string tag;
    if (isIdent()) tag = "enum " + std::string(t_[pos_++].text);
    if (peek() == "{") {
      int depth = 0;
      do {
        if (peek() == "{") ++depth;
        else if (peek() == "}") --depth;
        ++pos_;
      } while (!atEnd() && depth > 0);
    }
    CType e = scalar(4, tag.empty() ? "enum" : tag);
    e.shape = CShape::Enum;
    if (!tag.empty()) out_.tags_[tag] = e;
    return e;
  }

  Declarator declarator() {
    Declarator d;
    skipAttributes();
    for (;;) {
      if (accept("*") || accept("&")) ++d.pointers;
      else if (isIdent() && isQualifier(peek())) ++pos_;  // const, volatile, restrict: consumed
      else break;
      skipAttributes();
    }
    if (peek() == "(" && (peek(1) == "*" || peek(1) == "(" || peek(1) == "^" || isAttribute(peek(1)))) {
      ++pos_;
      Declarator inner = declarator();
      if (!inner.ok || !accept(")")) return failed();
      d.name = inner.name;
      d.grouped = inner.pointers > 0 || inner.grouped;
    } else if (isIdent() && !isAttribute(peek())) {
      d.name = std::string(t_[pos_++].text);
    }
    for (;;) {
      skipAttributes();
      if (accept("[")) {
        long long dim = -2;
        if (accept("?")) {
          dim = -1;
        } else if (!atEnd() && t_[pos_].kind == Token::Kind::Number) {
          dim = std::strtoll(std::string(t_[pos_].text).c_str(), nullptr, 0);
          ++pos_;
        }
        while (!atEnd() && peek() != "]") ++pos_;  // expressions: size unknown
        if (!accept("]")) return failed();
        d.dims.push_back(dim);
      } else if (accept("(")) {
        d.function = true;
        if (!parameters(d)) return failed();
      } else {
        break;
      }
    }
    if (accept(":")) {
      d.bits = !atEnd() ? std::atoi(std::string(t_[pos_].text).c_str()) : 0;
      if (!atEnd()) ++pos_;
    }
    skipAttributes();
    return d;
  }

  bool parameters(Declarator& d) {
    if (accept(")")) return true;
    do {
      if (accept("...")) {
        d.vararg = true;
        continue;
      }
      Specifiers spec;
      if (!specifiers(spec) || !spec.type) return false;
      Declarator p = declarator();
      if (!p.ok) return false;
      if (spec.type->pass == CPass::Void && p.pointers == 0 && p.dims.empty() && !p.function && !p.grouped) continue;
      // Arrays and functions decay to pointers in a parameter list.
      if (!p.dims.empty() || p.function || p.grouped) {
        d.params.push_back(pointerTo(*spec.type));
      } else {
        d.params.push_back(apply(*spec.type, p));
      }
    } while (accept(","));
    return accept(")");
  }

  static CType apply(const CType& base, const Declarator& d) {
    if (d.grouped || d.function) return pointerTo(base);  // function pointers, pointers to arrays
    CType t = base;
    for (int i = 0; i < d.pointers; ++i) t = pointerTo(t);
    for (auto it = d.dims.rbegin(); it != d.dims.rend(); ++it) {
      CType a = t;
      a.shape = CShape::Array;
      a.elementShape = t.shape;
      a.elementSize = t.size;
      a.isUnion = a.membersKnown = false;
      a.uninitializableMember.clear();
      a.spelling = t.spelling + "[" + (*it == -1 ? "?" : *it == -2 ? "" : std::to_string(*it)) + "]";
      if (*it == -1) a.variableLength = true;
      a.size = *it >= 0 && t.size > 0 ? t.size * static_cast<std::size_t>(*it) : 0;
      if (*it < 0) a.size = 0;
      // An array passes like its element when (as a struct field) it is copied.
      t = a;
    }
    return t;
  }

  std::vector<Token> t_;
  std::size_t pos_ = 0;
  CDeclarations& out_;
};

void CDeclarations::add(std::string_view cdef) {
  CParser parser(tokenize(cdef), *this);
  parser.declarations();
}

const CFunction* CDeclarations::function(std::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

CType CDeclarations::typeOf(std::string_view ctype) const {
  CDeclarations scratch = *this;  // parsing may register tags; keep this one unchanged
  CParser parser(tokenize(ctype), scratch);
  return parser.abstractType().value_or(CType{});
}

bool definesNewType(std::string_view ctype) {
  std::vector<Token> tokens = tokenize(ctype);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    std::string_view w = tokens[i].text;
    if (tokens[i].kind != Token::Kind::Ident || (w != "struct" && w != "union" && w != "enum")) continue;
    std::size_t next = i + 1;
    if (next < tokens.size() && tokens[next].kind == Token::Kind::Ident) ++next;
    if (next < tokens.size() && tokens[next].text == "{") return true;
  }
  return false;
}

}  // namespace ljcheck::flow
