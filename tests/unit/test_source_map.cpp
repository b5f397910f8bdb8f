// Ranges of predicted constructs and `-- ljcheck: allow(...)` comments.
#include <catch2/catch.hpp>

#include "ljcheck/source_map.h"

using namespace ljcheck;

TEST_CASE("columns point at the construct, not at strings or comments", "[source]") {
  SourceMap map("local s = 'function' -- function\n"
                "local f = function() end\n"
                "x = gsub(s, 'a', 'b') -- string.gsub\n"
                "y = string.gsub(s, 'gsub', '')\n"
                "z = s:gsub('a', 'b')\n"
                "t = {...}\n");
  CHECK(map.locate({1, "closure", ""}).start.column == 0);
  auto f = map.locate({2, "closure", ""});
  CHECK(f.start.column == 11);
  CHECK(f.end.column == 19);
  CHECK(map.locate({3, "call", "string.gsub"}).start.column == 5);
  auto whole = map.locate({4, "call", "string.gsub"});
  CHECK(whole.start.column == 5);
  CHECK(whole.end.column == 16);
  CHECK(map.locate({5, "call", "string.gsub"}).start.column == 7);
  CHECK(map.locate({6, "vararg", ""}).start.column == 6);
  CHECK(map.locate({99, "closure", ""}).start.column == 0);
}

TEST_CASE("a LuaJIT-only literal does not hide the constructs around it", "[source]") {
  // 64-bit integer literals are not Lua 5.x: the tree has an error there (else the line is scanned).
  SourceMap map("for i = 1, 10 do local n = 1ULL; f(function() return n end) end\n");
  auto r = map.locate({1, "closure", ""});
  CHECK(r.start.line == 1);
  CHECK(r.start.column == 36);
}

TEST_CASE("an allow comment covers its own line, the next statement, or the file", "[source]") {
  SourceMap map("-- ljcheck: allow-file(STITCH:print)\n"
                "for i = 1, 10 do\n"
                "  -- ljcheck: allow(NYIBC)\n"
                "  local f = function()\n"
                "    return i\n"
                "  end\n"
                "  local g = function() end -- ljcheck: allow(NYIBC:FNEW, RETURN)\n"
                "  local h = function() end\n"
                "end\n");
  CHECK(map.suppressed(5, ReasonId::parse("STITCH:print")));
  CHECK_FALSE(map.suppressed(5, ReasonId::parse("STITCH:string.gsub")));
  CHECK(map.suppressed(4, ReasonId::parse("NYIBC:FNEW")));
  CHECK(map.suppressed(6, ReasonId::parse("NYIBC:UCLO")));
  CHECK(map.suppressed(7, ReasonId::parse("NYIBC:FNEW")));
  CHECK(map.suppressed(7, ReasonId::parse("RETURN:error")));
  CHECK_FALSE(map.suppressed(7, ReasonId::parse("NYIBC:UCLO")));
  CHECK_FALSE(map.suppressed(8, ReasonId::parse("NYIBC:FNEW")));
  CHECK(map.allows().size() == 3);
}

TEST_CASE("malformed allow comments are ignored", "[source]") {
  SourceMap map("x = 1 -- ljcheck: allow(\n"
                "y = 2 -- ljcheck: deny(NYIBC)\n"
                "z = 3 -- ljcheck: allow()\n");
  CHECK(map.allows().empty());
  CHECK_FALSE(map.suppressed(1, ReasonId::parse("NYIBC:FNEW")));
}

TEST_CASE("push allow blocks run to the matching pop and nest", "[source][suppressions]") {
  SourceMap map("-- ljcheck: push allow(FNEW)\n"       // 1
                "local a = function() end\n"           // 2
                "-- ljcheck: push allow(STITCH)\n"     // 3
                "print(1)\n"                           // 4
                "-- ljcheck: pop\n"                    // 5
                "print(2)\n"                           // 6
                "-- ljcheck: pop\n"                    // 7
                "local b = function() end\n");         // 8
  CHECK(map.suppressed(2, ReasonId::parse("NYIBC:FNEW")));
  CHECK(map.suppressed(4, ReasonId::parse("STITCH:print")));
  CHECK(map.suppressed(6, ReasonId::parse("NYIBC:FNEW")));
  CHECK_FALSE(map.suppressed(6, ReasonId::parse("STITCH:print")));
  CHECK_FALSE(map.suppressed(8, ReasonId::parse("NYIBC:FNEW")));
  CHECK(map.directiveProblems("a.lua").size() == 2);  // neither allow was used by suppress()
}

TEST_CASE("unpaired push and pop are reported where they are", "[source][suppressions]") {
  SourceMap map("x = 1\n"
                "  -- ljcheck: pop\n"
                "-- ljcheck: push allow(FNEW)\n"
                "local f = function() end\n");
  CHECK(map.suppressed(4, ReasonId::parse("NYIBC:FNEW")));  // an open push runs to the end
  CHECK(map.suppress(4, ReasonId::parse("NYIBC:FNEW")));
  auto problems = map.directiveProblems("a.lua");
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].kind == DirectiveProblem::Kind::UnpairedPop);
  CHECK(problems[0].line == 2);
  CHECK(problems[0].column == 3);
  CHECK(problems[0].path == "a.lua");
  CHECK(problems[1].kind == DirectiveProblem::Kind::UnpairedPush);
  CHECK(problems[1].line == 3);
}

TEST_CASE("an allow ID that covers no suppressed prediction is unused", "[source][suppressions]") {
  SourceMap map("local f = function() end -- ljcheck: allow(FNEW, STITCH:print)\n"
                "-- ljcheck: allow-file(UCLO)\n");
  CHECK(map.suppress(1, ReasonId::parse("NYIBC:FNEW")));
  CHECK_FALSE(map.suppress(1, ReasonId::parse("STITCH:string.gsub")));
  auto problems = map.directiveProblems("a.lua");
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].kind == DirectiveProblem::Kind::UnusedAllow);
  CHECK(problems[0].message == "allow(STITCH:print) suppresses nothing: no prediction of STITCH:print on line 1");
  CHECK(problems[1].message == "allow-file(UCLO) suppresses nothing: no prediction of UCLO in this file");
}

TEST_CASE("a file whose allows are all used has no directive problems", "[source][suppressions]") {
  SourceMap map("-- ljcheck: push allow(FNEW)\nlocal f = function() end\n-- ljcheck: pop\n");
  CHECK(map.suppress(2, ReasonId::parse("NYIBC:FNEW")));
  CHECK(map.directiveProblems("a.lua").empty());
}

TEST_CASE("each allow ID knows where it stands, also on a later line of a long comment", "[source][suppressions]") {
  SourceMap map("x = 1 -- ljcheck: allow(FNEW,  STITCH:print)\n"  // 1
                "--[[ see below\n"                                 // 2
                "  ljcheck: allow(\n"                              // 3
                "    NYBIC:UCLO) ]]\n"                             // 4
                "local f = function() end\n");                     // 5
  REQUIRE(map.allows().size() == 2);
  const auto& line = map.allows()[0];
  REQUIRE(line.idStarts.size() == 2);
  CHECK(line.idStarts[0].line == 1);
  CHECK(line.idStarts[0].column == 25);  // F of FNEW
  CHECK(line.idStarts[1].column == 32);  // S of STITCH, after two blanks
  const auto& block = map.allows()[1];
  CHECK(block.commentLine == 2);
  REQUIRE(block.idStarts.size() == 1);
  CHECK(block.idStarts[0].line == 4);
  CHECK(block.idStarts[0].column == 5);
}
