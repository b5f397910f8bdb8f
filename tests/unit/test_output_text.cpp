// The writers' byte handling (ljcheck/safe_text.h): what reaches a
// terminal, a URI and a column count from file names and source text.
#include <catch2/catch.hpp>

#include "ljcheck/lint_report.h"
#include "ljcheck/safe_text.h"

using namespace ljcheck;

TEST_CASE("escapeControls shows what could steer a terminal as hex escapes and keeps the rest", "[output][format]") {
  CHECK(escapeControls("plain/path, with \"quotes\" and \\ backslash.lua") ==
        "plain/path, with \"quotes\" and \\ backslash.lua");
  CHECK(escapeControls("a\nb\rc\td\x1b[2Je\x7f") == "a\\x0ab\\x0dc\\x09d\\x1b[2Je\\x7f");
  CHECK(escapeControls("caf\xc3\xa9 \xf0\x9f\x98\x80") == "caf\xc3\xa9 \xf0\x9f\x98\x80");  // UTF-8 is text
  CHECK(escapeControls("bad\xff\xfe") == "bad\\xff\\xfe");                                     // not UTF-8
  CHECK(escapeControls("c1\xc2\x9b" "31m") == "c1\\xc2\\x9b31m");                               // C1 CSI
  CHECK(escapeControls("rlo\xe2\x80\xae" "x") == "rlo\\xe2\\x80\\xaex");                        // bidi override
  CHECK(escapeControls("cut\xc3") == "cut\\xc3");                                               // truncated sequence
}

TEST_CASE("percentEncodePath keeps a URI path's characters and encodes every other byte", "[output][format]") {
  CHECK(percentEncodePath("src/a-b_c.d~/x.lua") == "src/a-b_c.d~/x.lua");
  CHECK(percentEncodePath("with space,comma#1%.lua") == "with%20space,comma%231%25.lua");
  CHECK(percentEncodePath("bad\xff\n\"q\".lua") == "bad%FF%0A%22q%22.lua");
  CHECK(percentEncodePath("caf\xc3\xa9") == "caf%C3%A9");
}

TEST_CASE("utf16Column counts UTF-16 code units before a byte column", "[output][format]") {
  CHECK(utf16Column("local x = 1", 7) == 7);              // ASCII: the same
  CHECK(utf16Column("x = \"\xc3\xa9\" .. f()", 12) == 11);  // é: 2 bytes, 1 unit
  CHECK(utf16Column("\xf0\x9f\x98\x80 f()", 6) == 4);       // 😀: 4 bytes, 2 units
  CHECK(utf16Column("\xff\xfe f()", 4) == 4);               // not UTF-8: a unit per byte
  CHECK(utf16Column("short", 9) == 9);                      // past the end: bytes
  CHECK(utf16Column("anything", 0) == 0);                   // unknown stays unknown
}

TEST_CASE("one severity vocabulary: the catalog's words and the printed ones", "[output][format]") {
  for (Severity s : {Severity::Info, Severity::Warn, Severity::Blacklist}) {
    CHECK(parseSeverityName(toString(s)) == s);
    CHECK(parseSeverityName(diagnosticLevel(s)) == s);
  }
  CHECK(diagnosticLevel(Severity::Blacklist) == "error");
  CHECK(diagnosticLevel(Severity::Warn) == "warning");
  CHECK(diagnosticLevel(Severity::Info) == "note");
  CHECK(!parseSeverityName("none"));
  CHECK(!parseSeverityName("fatal"));
  for (LintFormat f : kLintFormats) CHECK(parseLintFormat(toString(f)) == f);
  CHECK(!parseLintFormat("xml"));
}
