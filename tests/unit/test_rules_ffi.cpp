// The FFI rules and the ffi.cdef parser they read signatures from.
#include <catch2/catch.hpp>

#include "../../analyzer/flow/c_declarations.h"
#include "test_rules_support.h"

using namespace ljcheck;
using flow::CDeclarations;
using flow::CPass;
using ljcheck::testing::find;
using ljcheck::testing::listed;
using ljcheck::testing::predict;

TEST_CASE("cdef parser: how declared functions pass arguments and results", "[rules][ffi][cdef]") {
  CDeclarations d;
  d.add(R"(
    /* a comment */ typedef struct { long quot; long rem; } ldiv_t;
    struct in_addr { uint32_t s_addr; };
    typedef struct in_addr in_addr_t;
    typedef struct opaque_s opaque_t;
    typedef int (*callback_t)(void *ud, int n);
    typedef double complex cplx;
    enum color { RED, GREEN };
    ldiv_t ldiv(long numer, long denom);
    char *inet_ntoa(struct in_addr in);
    int use_alias(in_addr_t a);
    int use_pointer(const opaque_t *p, struct in_addr *q, size_t n);
    void with_callback(callback_t cb, int (*inline_cb)(int));
    cplx cexp_like(cplx z);
    enum color paint(enum color c, ...);
    int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
    static const int LIMIT = 4;
  )");
  REQUIRE(d.function("ldiv")->result.pass == CPass::Aggregate);
  REQUIRE(d.function("inet_ntoa")->result.pass == CPass::Scalar);
  REQUIRE(d.function("inet_ntoa")->params.at(0).pass == CPass::Aggregate);
  REQUIRE(d.function("use_alias")->params.at(0).pass == CPass::Aggregate);
  for (const auto& p : d.function("use_pointer")->params) CHECK(p.pass == CPass::Scalar);
  for (const auto& p : d.function("with_callback")->params) CHECK(p.pass == CPass::Scalar);
  REQUIRE(d.function("with_callback")->result.pass == CPass::Void);
  REQUIRE(d.function("cexp_like")->result.pass == CPass::Complex);
  REQUIRE(d.function("paint")->vararg);
  REQUIRE(d.function("paint")->params.at(0).pass == CPass::Scalar);
  REQUIRE(d.function("printf")->vararg);
  REQUIRE_FALSE(d.function("LIMIT"));
  REQUIRE_FALSE(d.function("undeclared"));
}

TEST_CASE("cdef parser: sizes and variable length of ctypes", "[rules][ffi][cdef]") {
  CDeclarations d;
  d.add("typedef struct { int n; int d[?]; } samples_t; typedef struct { double x, y; char tag[8]; } point_t;");
  REQUIRE(d.typeOf("int[64]").size == 256);
  REQUIRE(d.typeOf("uint8_t[100]").size == 100);
  REQUIRE(d.typeOf("point_t").size == 24);
  REQUIRE(d.typeOf("point_t[8]").size == 192);
  REQUIRE(d.typeOf("int[?]").variableLength);
  REQUIRE(d.typeOf("samples_t").variableLength);
  REQUIRE(d.typeOf("double *").size == 8);
  REQUIRE(d.typeOf("unknown_t[4]").size == 0);  // declared elsewhere: unknown
  REQUIRE(flow::definesNewType("struct { int a; }"));
  REQUIRE(flow::definesNewType("union u { int a; double b; } *"));
  REQUIRE_FALSE(flow::definesNewType("struct foo *"));
  REQUIRE_FALSE(flow::definesNewType("int[?]"));
}

TEST_CASE("FFI refusals at the calling line", "[rules][ffi]") {
  auto ps = predict(
      "local ffi = require('ffi')\n"
      "ffi.cdef[[ typedef struct { int q, r; } div_t; div_t div(int, int); int abs(int); ]]\n"
      "local C = ffi.C\n"
      "local T = ffi.typeof('int[?]')\n"
      "for i = 1, 3000 do\n"
      "  local a = ffi.typeof('int')\n"
      "  local b = ffi.new('struct { int a; }')\n"
      "  local c = C.div(i, 7)\n"
      "  local d = T(4, 1)\n"
      "  local e = ffi.new('int[64]', 1)\n"
      "  local f = C.abs(i) + ffi.sizeof('int') + T(4)[0]\n"
      "end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 6, "NYIFFU:ffi.typeof"));
  REQUIRE(find(ps, 7, "BADTYPE"));
  REQUIRE(find(ps, 8, "NYICALL"));
  REQUIRE(find(ps, 9, "NYICONV"));
  REQUIRE(find(ps, 10, "NYICONV"));
  REQUIRE(find(ps, 6, "NYIFFU:ffi.typeof")->confidence == Confidence::Certain);
  REQUIRE(find(ps, 8, "NYICALL")->reasoning.find("div_t") != std::string::npos);
  for (const auto& p : ps) CHECK(p.line != 11);
}

TEST_CASE("ffi.new with a table initializer in a hot loop is BADTYPE, with numbers or cdata it is not",
          "[rules][ffi]") {
  auto ps = predict(
      "local ffi = require('ffi')\n"
      "local P = ffi.typeof('struct { int x, y; }')\n"
      "local first = ffi.new(P, {x = 1, y = 2})\n"
      "for i = 1, 3000 do\n"
      "  local a = ffi.new('int[3]', {i, 2, 3})\n"
      "  local b = ffi.new(P, {x = i})\n"
      "  local c = ffi.new(P, first)\n"
      "  local d = ffi.new('int[3]', i, 2, 3)\n"
      "  local e = ffi.new(Unresolved, {i})\n"
      "  local f = ffi.new('int[64]', {i})\n"
      "end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 5, "BADTYPE"));
  REQUIRE(find(ps, 6, "BADTYPE"));
  REQUIRE(find(ps, 5, "BADTYPE")->reasoning.find("int[3]") != std::string::npos);
  REQUIRE(find(ps, 9, "BADTYPE"));
  CHECK(find(ps, 9, "BADTYPE")->confidence == Confidence::Possible);
  CHECK(find(ps, 5, "BADTYPE")->confidence != Confidence::Possible);
  // In a hot loop, but possible because the ctype is unresolved: a note.
  CHECK(find(ps, 9, "BADTYPE")->severity == Severity::Info);
  CHECK(find(ps, 5, "BADTYPE")->severity != Severity::Info);
  REQUIRE(find(ps, 10, "NYICONV"));
  CHECK_FALSE(find(ps, 10, "BADTYPE"));
  for (const auto& p : ps) CHECK((p.line != 3 && p.line != 7 && p.line != 8));
}

TEST_CASE("cdef parser: qualifiers after a pointer star are consumed (a fuzzer found a hang here)",
          "[rules][ffi][cdef]") {
  CDeclarations d;
  d.add("int * const limit; char * volatile * restrict names;\n"
        "struct s { short __thiscall; int * const __restrict p; };\n"
        "void *const take(int * const a, char * __restrict b);\n");
  REQUIRE(d.function("take"));
  CHECK(d.function("take")->params.size() == 2);
  CHECK(d.function("take")->result.pass == CPass::Scalar);
}

TEST_CASE("a ctype with __new: its calls, its first parameter and the heat its calls give it", "[rules][ffi][metatype]") {
  const std::string source =
      "local ffi = require('ffi')\n"                                                   // 1
      "ffi.cdef[[ struct sn_list { int count; int item[?]; }; struct sn_pt { int x; }; ]]\n"  // 2
      "local list = ffi.metatype('struct sn_list', {\n"                                 // 3
      "  __new = function(ct, n) local v = ffi.new(ct, n, n) return v end })\n"        // 4
      "local pt = ffi.metatype('struct sn_pt', {\n"                                     // 5
      "  __new = function(ct, init) return ffi.new(ct, init) end })\n"                  // 6
      "local n = 0\n"                                                                   // 7
      "for i = 1, 3000 do\n"                                                            // 8
      "  n = n + list(3).count + pt(i).x + pt(...).x\n"                                 // 9
      "  n = n + ffi.new('struct sn_pt', {7}, ...).x\n"                                 // 10
      "end\n";
  auto ps = predict(source);
  INFO(listed(ps));
  // __new is called from the loop at line 8: as hot as that loop.
  const Prediction* vla = find(ps, 4, "NYICONV");
  REQUIRE(vla);
  CHECK(vla->confidence == Confidence::Certain);
  CHECK(vla->reasoning.find("this function is the `__new` metamethod that the ffi.metatype call at line 3 gives its "
                             "ctype, so its first parameter is that ctype") != std::string::npos);
  CHECK(vla->reasoning.find("called from the loop at line 8") != std::string::npos);
  // pt(i) passes a number, pt(...) something the analyzer cannot type: one
  // `possible` BADTYPE on line 9 and nothing certain.
  const Prediction* arg = find(ps, 9, "BADTYPE");
  REQUIRE(arg);
  CHECK(arg->confidence == Confidence::Possible);
  // A table followed by more initializers (CALLM) is not the one initializer.
  CHECK_FALSE(find(ps, 10, "BADTYPE"));
}

TEST_CASE("ctypes a helper registers by name: calls through the name, and what does not count as registering",
          "[rules][ffi][metatype]") {
  const std::string source =
      "local ffi = require('ffi')\n"                                                       // 1
      "ffi.cdef[[ struct rg_a { int x; }; struct rg_b { int x; }; ]]\n"                    // 2
      "local function addtype(types, name, ct, mt) types.t[name] = ffi.metatype(ct, mt) end\n"  // 3
      "local function renamed(types, name, ct, mt) name = name .. '_'\n"                   // 4
      "  types.t[name] = ffi.metatype(ct, mt) end\n"                                       // 5
      "local types = {t = {}}\n"                                                           // 6
      "local t = types.t\n"                                                                // 7
      "local mt = {new = {__new = function(ct, x) return ffi.new(ct, {x}) end}}\n"         // 8
      "addtype(types, 'a', 'struct rg_a', mt.new)\n"                                       // 9
      "renamed(types, 'b', 'struct rg_b', mt.new)\n"                                       // 10
      "addtype(types, 'twice', 'struct rg_a', mt.new)\n"                                   // 11
      "addtype(types, 'twice', 'struct rg_b', mt.new)\n"                                   // 12
      "local function run(n)\n"                                                            // 13
      "  local s = 0\n"                                                                    // 14
      "  for i = 1, n do\n"                                                                // 15
      "    s = s + t.a(i).x\n"                                                             // 16
      "    s = s + t.b(i).x + t.b_(i).x\n"                                                 // 17
      "    s = s + t.twice(i).x + t.other(i).x\n"                                          // 18
      "  end\n"                                                                            // 19
      "  return s\n"                                                                       // 20
      "end\n"                                                                              // 21
      "return run(3000)\n";                                                                // 22
  auto ps = predict(source);
  INFO(listed(ps));
  const Prediction* a = find(ps, 16, "BADTYPE");
  REQUIRE(a);
  CHECK(a->confidence == Confidence::Likely);  // looked up by name at run time: never certain
  CHECK(a->reasoning.find("line 9 registers it under the name \"a\"") != std::string::npos);
  CHECK(a->reasoning.find("(line 3)") != std::string::npos);
  // A helper that rewrites the name registers under a name the call site does not show.
  CHECK_FALSE(find(ps, 17, "BADTYPE"));
  // A name registered twice may hold either ctype; a name never registered holds none.
  CHECK_FALSE(find(ps, 18, "BADTYPE"));
}

TEST_CASE("a ctype a helper registers by name: its calls make its __new as hot as they are", "[rules][ffi][metatype]") {
  const std::string source =
      "local ffi = require('ffi')\n"                                                       // 1
      "ffi.cdef[[ struct rg_list { int count; int item[?]; }; ]]\n"                        // 2
      "local function addtype(types, name, ct, mt) types.t[name] = ffi.metatype(ct, mt) end\n"  // 3
      "local types = {t = {}}\n"                                                           // 4
      "local t = types.t\n"                                                                // 5
      "local mt = {list = {__new = function(ct, n)\n"                                      // 6
      "  local v = ffi.new(ct, n, n) return v end}}\n"                                     // 7
      "addtype(types, 'list', 'struct rg_list', mt.list)\n"                                // 8
      "local function run(n)\n"                                                            // 9
      "  local s = 0\n"                                                                    // 10
      "  for i = 1, n do s = s + t.list(i).count end\n"                                    // 11
      "  return s\n"                                                                       // 12
      "end\n"                                                                              // 13
      "return run(3000)\n";                                                                // 14
  auto ps = predict(source);
  INFO(listed(ps));
  const Prediction* vla = find(ps, 7, "NYICONV");
  REQUIRE(vla);
  CHECK(vla->reasoning.find("first parameter is that ctype") != std::string::npos);
  CHECK(vla->reasoning.find("called from the loop at line 11") != std::string::npos);
}

TEST_CASE("a helper's FFI blocker behind another helper whose every trace aborts on an FFI call is a warning",
          "[rules][ffi][blacklist]") {
  // Audit 75: the loop's trace aborts in read's ffi.typeof of a string on
  // every pass, so bucket's C call aborts only bucket's own entry trace,
  // which 60,000 calls do not blacklist (-jv: 10 aborts).
  const std::string helpers =
      "local ffi = require('ffi')\n"                                                          // 1
      "ffi.cdef[[ typedef struct { long quot; long rem; } ldiv_t; ldiv_t ldiv(long, long); ]]\n"  // 2
      "local function read(p) return ffi.cast(ffi.typeof('uint32_t *'), p)[0] end\n"           // 3
      "local function bucket(v) local r = ffi.C.ldiv(v, 1000) return r.rem end\n";            // 4
  auto behind = predict(helpers + "local buf = ffi.new('uint8_t[8]')\n"
                                  "for i = 1, 60000 do bucket(read(buf) + i) end\n");
  INFO(listed(behind));
  const Prediction* first = find(behind, 3, "NYIFFU:ffi.typeof");
  const Prediction* second = find(behind, 4, "NYICALL");
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->severity == Severity::Blacklist);
  CHECK(second->severity == Severity::Warn);
  CHECK(second->reasoning.find("abort first at the call of read") != std::string::npos);
  // Alone in the loop, the C call blacklists it.
  auto alone = predict(helpers + "for i = 1, 60000 do bucket(i) end\n");
  INFO(listed(alone));
  const Prediction* only = find(alone, 4, "NYICALL");
  REQUIRE(only);
  CHECK(only->severity == Severity::Blacklist);
}

TEST_CASE("ffi.new with a table initializer on every pass of a loop that runs enough blacklists it",
          "[rules][ffi][blacklist]") {
  // Audit 75: BADTYPE is a risk in general, but this one aborts every
  // trace through it (-jv: 11 aborts, then the start is no longer tried).
  const std::string head = "local ffi = require('ffi')\n"                         // 1
                           "ffi.cdef[[ typedef struct { double x, y; } v2; ]]\n"  // 2
                           "local v2 = ffi.typeof('v2')\n"                         // 3
                           "local t = 0\n";                                       // 4
  auto many = predict(head + "for i = 1, 100000 do local v = ffi.new(v2, { i, i }) t = t + v.x end\n");
  INFO(listed(many));
  REQUIRE(find(many, 5, "BADTYPE"));
  CHECK(find(many, 5, "BADTYPE")->severity == Severity::Blacklist);
  auto few = predict(head + "for i = 1, 3000 do local v = ffi.new(v2, { i, i }) t = t + v.x end\n");
  INFO(listed(few));
  REQUIRE(find(few, 5, "BADTYPE"));
  CHECK(find(few, 5, "BADTYPE")->severity == Severity::Warn);
}

TEST_CASE("cdef parser: the shapes crec_alloc tells apart when it initializes a ctype", "[rules][ffi][cdef]") {
  CDeclarations d;
  d.add(R"(
    typedef struct { int id; char name[16]; } tag_t;
    typedef struct { float x, y; } v2_t;
    typedef struct { v2_t pos; int layer; } sprite_t;
    typedef struct { int a; unsigned flags : 3; } bits_t;
    typedef struct { int n; foreign_t f; } foreign_holder_t;
    enum mode { OFF, ON };
  )");
  CHECK(d.typeOf("tag_t").shape == flow::CShape::Record);
  CHECK(d.typeOf("tag_t").uninitializableMember == "name (char[16])");
  CHECK(d.typeOf("v2_t").uninitializableMember.empty());
  CHECK(d.typeOf("v2_t").membersKnown);
  CHECK(d.typeOf("sprite_t").uninitializableMember == "pos (v2_t)");
  CHECK(d.typeOf("bits_t").uninitializableMember == "the bit field flags");
  CHECK_FALSE(d.typeOf("foreign_holder_t").membersKnown);  // a type from elsewhere: not judged
  const flow::CType bytes = d.typeOf("uint8_t[32]");
  CHECK(bytes.shape == flow::CShape::Array);
  CHECK(bytes.elementShape == flow::CShape::Number);
  CHECK(bytes.elementSize == 1);
  CHECK(d.typeOf("enum mode[4]").elementShape == flow::CShape::Enum);
  CHECK(d.typeOf("const char *[4]").elementShape == flow::CShape::Pointer);
}

TEST_CASE("a certain FFI abort that every pass reaches through a likely one is likely, not an error",
          "[rules][ffi][blacklist]") {
  // Audit 91, `-jv` on both builds: `ffi.new("char[32]", s)` with s a
  // string blacklists the loop (bad argument type, 11 aborts); the VLA
  // after it is never recorded.
  const std::string head = "local ffi = require('ffi')\n"                                        // 1
                           "local words = {}\n"                                                  // 2
                           "for i = 1, 100 do words[i] = 'word' .. i end\n"                      // 3
                           "local n = 0\n"                                                       // 4
                           "for i = 1, 100000 do\n"                                              // 5
                           "  local s = words[i % 100 + 1]\n";                                   // 6
  auto ps = predict(head + "  local fixed = ffi.new('char[32]', s)\n"                            // 7
                           "  local dyn = ffi.new('char[?]', #s + 1, s)\n"                       // 8
                           "  n = n + fixed[0] + dyn[0]\nend\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 7, "BADTYPE"));
  CHECK(find(ps, 7, "BADTYPE")->confidence == Confidence::Likely);
  const Prediction* vla = find(ps, 8, "NYICONV");
  REQUIRE(vla);
  CHECK(vla->confidence == Confidence::Likely);
  CHECK(vla->severity == Severity::Warn);
  CHECK(vla->reasoning.find("every pass reaches it through line 7, where BADTYPE likely aborts the trace first") !=
        std::string::npos);
  // A number fills the byte array element by element (32 of them: more than
  // the 16 the recorder unrolls), a certain NYICONV.
  auto filled = predict(head + "  local fixed = ffi.new('char[32]', 0)\n  n = n + fixed[0] + #s\nend\n");
  INFO(listed(filled));
  REQUIRE(find(filled, 7, "NYICONV"));
  CHECK(find(filled, 7, "NYICONV")->confidence == Confidence::Certain);
  // Sixteen ints from numbers compile.
  auto small = predict(head + "  local v = ffi.new('int[16]', i, 2)\n  n = n + v[0] + #s\nend\n");
  INFO(listed(small));
  CHECK_FALSE(find(small, 7, "NYICONV"));
}

TEST_CASE("a helper whose tail call of ffi.new is refused aborts at its entry, not LLEAVE", "[rules][ffi][blacklist]") {
  // Audit 91, `-jv` on both builds: NYICONV at the helper's entry, 11 times.
  auto ps = predict("local ffi = require('ffi')\nlocal function row(w)\n  return ffi.new('float[?]', w, 0)\nend\n"
                    "local acc = 0\nfor y = 1, 100000 do\n  local r = row(64)\n  acc = acc + r[y % 64]\nend\n");
  INFO(listed(ps));
  const Prediction* conv = find(ps, 7, "NYICONV");
  REQUIRE(conv);
  CHECK(conv->reasoning.find("whose every trace from its entry aborts at its tail call of ffi.new") != std::string::npos);
  CHECK(conv->reasoning.find("LLEAVE") == std::string::npos);
}
