// Recorded fast functions called in a form their recorder refuses: the
// same STITCH/RETURN identities as unrecorded calls.
#include <catch2/catch.hpp>

#include "../../analyzer/rules/format_spec.h"
#include "../../analyzer/rules/pattern_arguments.h"
#include "test_rules_support.h"

using namespace ljcheck;
using ljcheck::testing::find;
using ljcheck::testing::listed;
using ljcheck::testing::predict;

TEST_CASE("string.format specifiers as the recorder parses them", "[rules][variants]") {
  using T = rules::FormatSpec::Type;
  auto specs = rules::parseFormat("%d items, %-8.3s|%5.2f%% %x %q %c %p");
  REQUIRE(specs.size() == 7);
  REQUIRE(specs[0].type == T::Int);
  REQUIRE(specs[1].type == T::Str);
  REQUIRE(specs[1].text == "%-8.3s");
  REQUIRE(specs[2].type == T::Num);
  REQUIRE(specs[3].type == T::Uint);
  REQUIRE(specs[4].type == T::Str);
  REQUIRE(specs[5].type == T::Char);
  REQUIRE(specs[6].type == T::Ptr);
  auto bad = rules::parseFormat("%d %y %s");
  REQUIRE(bad.size() == 2);
  REQUIRE(bad[1].type == T::Error);
}

TEST_CASE("string.format of known non-strings, %p and invalid specifiers", "[rules][variants]") {
  auto ps = predict(
      "local t, s = {}, 'x'\n"
      "for i = 1, 3000 do\n"
      "  local a = string.format('%s', i)\n"
      "  local b = ('%5s'):format(t)\n"
      "  local c = string.format('%p', t)\n"
      "  local d = string.format('%d %s %s', i, s, s:upper())\n"
      "  local e = string.format('%s', tostring(i) .. s)\n"
      "end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 3, "STITCH:string.format"));
  REQUIRE(find(ps, 4, "STITCH:string.format"));
  REQUIRE(find(ps, 5, "STITCH:string.format"));
  REQUIRE_FALSE(find(ps, 6, "STITCH:string.format"));
  REQUIRE_FALSE(find(ps, 7, "STITCH:string.format"));
}

TEST_CASE("string.format's %s of another module's value is not taken for a non-string", "[rules][variants]") {
  // A member of another module's table and what its functions return may
  // be strings: neither is evidence of a value '%s' cannot format.
  auto ps = predict(
      "local lib = require('lib')\n"
      "local out = {}\n"
      "for i = 1, 3000 do\n"
      "  local a = string.format('%s', lib.prefix)\n"
      "  out[i] = { string.format('%s.%02d', lib.name(i), i % 100) }\n"
      "  local t = lib.name(i):gsub('n', 'm')\n"
      "end\n");
  INFO(listed(ps));
  CHECK_FALSE(find(ps, 4, "STITCH:string.format"));
  CHECK_FALSE(find(ps, 5, "RETURN:string.format"));
  CHECK(find(ps, 6, "STITCH:string.gsub"));  // a string method, as on a value of unknown type
}

TEST_CASE("tostring, tonumber and getfenv variants", "[rules][variants]") {
  auto ps = predict(
      "local plain, base = {}, 10\n"
      "local meta = setmetatable({}, {__tostring = function() return 'm' end})\n"
      "local function f() end\n"
      "for i = 1, 3000 do\n"
      "  local a = tostring(plain) .. tostring(meta) .. tostring(f) .. tostring(i)\n"
      "  local b = tonumber('ff', 16) + tonumber('1', 10) + tonumber('1', base)\n"
      "  local c = getfenv(0), getfenv(1)\n"
      "end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 5, "STITCH:tostring"));  // plain and f; meta and i are recorded
  REQUIRE(find(ps, 6, "STITCH:tonumber"));
  REQUIRE(find(ps, 7, "STITCH:getfenv"));
}

TEST_CASE("tostring of a table that may get a metatable is not predicted", "[rules][variants]") {
  auto ps = predict(
      "local function wrap(o) return setmetatable(o, {__tostring = function() return 'o' end}) end\n"
      "local t = {}\n"
      "wrap(t)\n"
      "for i = 1, 3000 do\n"
      "  local a = tostring(t)\n"
      "end\n");
  INFO(listed(ps));
  REQUIRE_FALSE(find(ps, 5, "STITCH:tostring"));
}

TEST_CASE("tostring of a parameter every hot call fills with a plain table stitches", "[rules][variants]") {
  // Audit 70: a logging helper's tostring(obj), given request tables by
  // its only caller: `-jv` stitches at it on both builds. A caller that
  // passes a string, or a table that gets a metatable, leaves it alone.
  auto ps = predict("local function log_line(tag, obj)\n"
                    "  return tag .. ' ' .. tostring(obj)\n"
                    "end\n"
                    "local n = 0\n"
                    "for i = 1, 3000 do n = n + #log_line('req', { id = i }) end\n");
  INFO(listed(ps));
  const Prediction* stitch = find(ps, 2, "STITCH:tostring");
  REQUIRE(stitch);
  CHECK(stitch->confidence == Confidence::Likely);
  CHECK(stitch->reasoning.find("the argument is the parameter obj, and the call at line 5 passes a table") !=
        std::string::npos);
  auto strings = predict("local function log_line(tag, obj)\n"
                         "  return tag .. ' ' .. tostring(obj)\n"
                         "end\n"
                         "local n = 0\n"
                         "for i = 1, 3000 do n = n + #log_line('req', { id = i }) + #log_line('id', 'x') end\n");
  INFO(listed(strings));
  CHECK_FALSE(find(strings, 2, "STITCH:tostring"));
  auto classy = predict("local mt = { __tostring = function() return 'o' end }\n"
                        "local function log_line(obj)\n"
                        "  return tostring(obj)\n"
                        "end\n"
                        "local n = 0\n"
                        "for i = 1, 3000 do n = n + #log_line(setmetatable({ id = i }, mt)) end\n");
  INFO(listed(classy));
  CHECK_FALSE(find(classy, 3, "STITCH:tostring"));
}

TEST_CASE("string.find with a pattern built by concatenation", "[rules][variants]") {
  auto ps = predict(
      "local sep = ','\n"
      "for i = 1, 3000 do\n"
      "  local a = string.find('a,b', '[' .. sep .. ']')\n"
      "  local b = string.find('a,b', sep, 1, true)\n"
      "end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 3, "STITCH:string.find"));
  REQUIRE_FALSE(find(ps, 4, "STITCH:string.find"));
}

TEST_CASE("select(i, ...) in a loop of the vararg function is recorded, and inlined it splits", "[rules][variants]") {
  auto ps = predict(
      "local function max(...)\n"
      "  local m = ...\n"
      "  for i = 2, select('#', ...) do\n"
      "    local v = select(i, ...)\n"
      "    if v > m then m = v end\n"
      "  end\n"
      "  return m\n"
      "end\n"
      "local function pick(k, ...)\n"
      "  local v = select(k, ...)\n"
      "  return v\n"
      "end\n"
      "local s = 0\n"
      "for i = 1, 3000 do s = s + max(i, 3, 9) + pick(i % 2 + 1, 4, 5) end\n");
  INFO(listed(ps));
  REQUIRE_FALSE(find(ps, 4, "STITCH:select"));
  REQUIRE(find(ps, 10, "STITCH:select"));
}

TEST_CASE("select with an index computed from select('#', ...) is recorded, and with a table field it splits",
          "[rules][variants]") {
  // Inlined into the loop's trace, the vararg frame's count is a constant
  // (recff_select: lj_ir_kint(J, J->maxslot - 1)), and so is n - 2.
  auto ps = predict(
      "local cfg = {skip = 1}\n"
      "local function from_last(...)\n"
      "  local n = select('#', ...)\n"
      "  local a = select(n - 2, ...)\n"
      "  local b = select(-(n - 1), ...)\n"
      "  local c = select(n - cfg.skip, ...)\n"
      "  return a + b + c\n"
      "end\n"
      "local s = 0\n"
      "for i = 1, 3000 do s = s + from_last(i, 2, 3, 4) end\n");
  INFO(listed(ps));
  REQUIRE_FALSE(find(ps, 4, "STITCH:select"));
  REQUIRE_FALSE(find(ps, 5, "STITCH:select"));
  const Prediction* field = find(ps, 6, "STITCH:select");
  REQUIRE(field);
  REQUIRE(field->confidence == Confidence::Certain);
  REQUIRE(field->reasoning.find("select('#', ...)") != std::string::npos);
  REQUIRE(field->reasoning.find("recff_select") != std::string::npos);
}

TEST_CASE("match and find with a pattern literal on a receiver of unknown type", "[rules][variants]") {
  auto ps = predict(
      "local M = {}\n"
      "function M.handle(req)\n"
      "  local name = req.body:match('name=([%w_]+)')\n"
      "  local at = req.body:find('[,;]')\n"
      "  local same = req.range:match(req.a, req.b)\n"
      "  local plain = req.body:find('abc')\n"
      "  return name, at, same, plain\n"
      "end\n"
      "return M\n");
  INFO(listed(ps));
  const Prediction* match = find(ps, 3, "STITCH:string.match");
  REQUIRE(match);
  // The receiver is inferred from a Lua pattern: as sure as a string where
  // the code is only possibly hot (one step less in a function that
  // escapes), and likely at most anywhere, a guess (audit 62).
  REQUIRE(match->confidence == Confidence::Likely);
  REQUIRE(match->reasoning.find("gets a Lua pattern") != std::string::npos);
  REQUIRE(find(ps, 4, "STITCH:string.find"));
  REQUIRE_FALSE(find(ps, 5, "STITCH:string.match"));
  REQUIRE_FALSE(find(ps, 6, "STITCH:string.find"));
}

TEST_CASE("a string built with other pieces is a sure pattern only with more than a dot", "[rules][variants]") {
  // An lpeg pattern's match takes the subject: "12." .. i looks like one
  // (audit 51), "^" .. prefix .. "(%d+)" does not.
  auto ps = predict(
      "local p = make_pattern()\n"
      "local n = 0\n"
      "for i = 1, 3000 do\n"
      "  local t = p:match('12.' .. i)\n"
      "  local u = p:match('^' .. i .. '(%d+)')\n"
      "  n = n + #t + #u\n"
      "end\n");
  INFO(listed(ps));
  const Prediction* subject = find(ps, 4, "STITCH:string.match");
  REQUIRE(subject);
  CHECK(subject->confidence == Confidence::Likely);
  CHECK(subject->reasoning.find("a string built from literals that may be a pattern") != std::string::npos);
  const Prediction* pattern = find(ps, 5, "STITCH:string.match");
  REQUIRE(pattern);
  CHECK(pattern->confidence == Confidence::Likely);  // still a guess about p (audit 62)
  CHECK(pattern->reasoning.find("gets a Lua pattern") != std::string::npos);
}

TEST_CASE("names given to pattern strings, and names that only look like one", "[rules][variants]") {
  for (const char* name : {"pattern", "pat", "patn", "patt", "trailing_ws_pattern", "Pattern", "pat_sep", "line_pat"})
    REQUIRE(rules::isPatternName(name));
  for (const char* name : {"path", "patch", "spat", "sep", "delimiter", "p", "s"}) REQUIRE_FALSE(rules::isPatternName(name));
}

TEST_CASE("string.find with a pattern the bytecode does not show: callers and names are the evidence",
          "[rules][variants]") {
  auto ps = predict(
      "local function first(s, sep) return (string.find(s, sep)) end\n"
      "local function plain(s, sep) return (string.find(s, sep)) end\n"
      "local function named(s, pattern) return (s.text:find(pattern, 1, false)) end\n"
      "local function flagged(s, pattern) return (string.find(s, pattern, 1, true)) end\n"
      "local function unnamed(s, what) return (string.find(s, what)) end\n"
      "local n = 0\n"
      "for i = 1, 3000 do\n"
      "  n = n + first('a1', '%d') + plain('a,b', ',') + named({text = 'ab'}, P) + flagged('a.b', '.')\n"
      "  n = n + unnamed('ab', 'b')\n"
      "end\n");
  INFO(listed(ps));
  const Prediction* caller = find(ps, 1, "STITCH:string.find");
  REQUIRE(caller);
  REQUIRE(caller->confidence == Confidence::Likely);
  REQUIRE(caller->reasoning.find("the call at line 8 passes the pattern \"%d\"") != std::string::npos);
  REQUIRE_FALSE(find(ps, 2, "STITCH:string.find"));  // every caller passes plain text
  const Prediction* named = find(ps, 3, "STITCH:string.find");
  REQUIRE(named);  // a receiver of unknown type, a literal false plain flag
  REQUIRE(named->confidence == Confidence::Likely);
  REQUIRE(named->reasoning.find("the parameter pattern, named for a pattern") != std::string::npos);
  // The same evidence makes the receiver a string: given once, then referred to.
  const std::string& why = named->reasoning;
  CHECK(why.find("named for a pattern") == why.rfind("named for a pattern"));
  CHECK(why.find("the receiver is taken for a string because the method gets that pattern") != std::string::npos);
  REQUIRE_FALSE(find(ps, 4, "STITCH:string.find"));  // a true plain flag
  REQUIRE_FALSE(find(ps, 5, "STITCH:string.find"));  // nothing says `what` is a pattern
}

TEST_CASE("tonumber whose result is tested: a string argument is likely to split, one of unknown type is not predicted",
          "[rules][variants]") {
  auto ps = predict(
      "local function f(list, other)\n"
      "  local n = 0\n"
      "  for i = 1, #list do\n"
      "    local s = list[i]:lower() if tonumber(s) then n = n + 1 end\n"
      "    local v = tonumber(other[i])\n"
      "    if not v then n = n - 1 end v = tonumber(s) if not v then n = n - 1 end\n"
      "    n = n + tonumber(list[i]:lower()) + (tonumber(i) and 1 or 0)\n"
      "  end\n"
      "  return n\n"
      "end\n"
      "return f({'1'}, {'2'})\n");
  INFO(listed(ps));
  const Prediction* known = find(ps, 4, "STITCH:tonumber");
  REQUIRE(known);
  REQUIRE(known->confidence == Confidence::Likely);
  REQUIRE(known->reasoning.find("tested for nil at line 4") != std::string::npos);
  REQUIRE_FALSE(find(ps, 5, "STITCH:tonumber"));  // it may be a number, which is recorded
  REQUIRE(find(ps, 6, "STITCH:tonumber"));         // the result copied into a local, then tested
  REQUIRE_FALSE(find(ps, 7, "STITCH:tonumber"));  // untested, and of a number
}

TEST_CASE("the iterator io.lines returns is named for it, not 'C'", "[rules][variants]") {
  auto ps = predict(
      "local function count(path)\n"
      "  local n = 0\n"
      "  for l in io.lines(path) do n = n + #l end\n"
      "  local f = io.open(path)\n"
      "  for l in f:lines() do n = n + #l end\n"
      "  return n\n"
      "end\n"
      "return count\n");
  INFO(listed(ps));
  const Prediction* lines = find(ps, 3, "STITCH:C");
  REQUIRE(lines);
  CHECK(lines->message == "call to the iterator of io.lines is not compiled: the trace is stitched around it");
  REQUIRE(find(ps, 5, "STITCH:C"));
  CHECK(find(ps, 5, "STITCH:C")->callee == "the iterator of file:lines");
}

TEST_CASE("a string method on an object the value tracker does not know is likely, not certain", "[rules][variants]") {
  // Audit 62, `-jv` on both builds: one clean trace, no stitch. The object
  // comes in as a parameter and has its own gsub: every call passes the
  // object, so the parameter holds it and o:gsub is its method.
  auto program = [](const char* calls) {
    return std::string("local C = {}\nC.__index = C\nfunction C:gsub(p, r) return 1 end\n"
                       "local function score(o) return o:gsub('%a', '') end\nlocal o = setmetatable({}, C)\n"
                       "local s = 0\nfor i = 1, 100000 do s = s + ") +
           calls + " end\nprint(s)\n";
  };
  auto param = predict(program("score(o)"));
  INFO(listed(param));
  CHECK_FALSE(find(param, 7, "STITCH:string.gsub"));
  // An object at one call and a string at the other: the receiver is a guess.
  auto mixed = predict(program("score(o) + score('ab')"));
  INFO(listed(mixed));
  REQUIRE(find(mixed, 7, "STITCH:string.gsub"));
  CHECK(find(mixed, 7, "STITCH:string.gsub")->confidence == Confidence::Likely);
  // The same function called with strings only: the receiver is known.
  auto strings = predict("local function score(o) return o:gsub('%a', '') end\n"
                         "local s = 0\nfor i = 1, 100000 do s = s + score('ab' .. i) end\nprint(s)\n");
  INFO(listed(strings));
  REQUIRE(find(strings, 3, "STITCH:string.gsub"));
  CHECK(find(strings, 3, "STITCH:string.gsub")->confidence == Confidence::Certain);
}

TEST_CASE("a tail call of a string method on a receiver whose type is a guess is likely at most", "[rules][variants]") {
  // Audit 63, `-jv` on both builds: no stitch (the object's own find).
  auto ps = predict("local function f(o) return o:find('%s+') end\n"
                    "local obj = setmetatable({}, { __index = { find = function() return 1 end } })\n"
                    "local function get() return obj end\nlocal s = 0\n"
                    "for i = 1, 100000 do s = s + f(get()) end\nprint(s)\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 5, "STITCH:string.find"));
  CHECK(find(ps, 5, "STITCH:string.find")->confidence == Confidence::Likely);
}

TEST_CASE("a parameter the function assigns is no proof of a string receiver", "[rules][variants]") {
  // Round the loop, `s` is what the body last stored in it, not what the
  // calls passed: the receiver is a guess again, likely.
  auto ps = predict("local function count(s)\n  local n = 0\n  for i = 1, 3000 do\n"
                    "    n = n + (s:find('%d') or 0)\n    s = tostring(i)\n  end\n  return n\nend\n"
                    "print(count('a1'))\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 4, "STITCH:string.find"));
  CHECK(find(ps, 4, "STITCH:string.find")->confidence == Confidence::Likely);
}

TEST_CASE("what a string method taken by its name returns is a guessed string too", "[rules][variants]") {
  // Audit 68: `doc = doc:gsub(...)` on a Lua object whose gsub and match
  // are its own: the gsub was likely, and the match after it, on what the
  // guessed gsub returned, was certain. `-jv` shows no stitch at all.
  auto ps = predict("local doc = load_document()\n"             // 1
                    "local n = 0\n"                               // 2
                    "for i = 1, 5000 do\n"                        // 3
                    "  doc = doc:gsub('\\t', '    ')\n"           // 4
                    "  if doc:match('# ') then n = i end\n"       // 5
                    "end\n");                                     // 6
  INFO(listed(ps));
  const Prediction* match = find(ps, 5, "STITCH:string.match");
  REQUIRE(match);
  CHECK(match->confidence == Confidence::Likely);
  // On a string the code makes itself, the same chain stays certain.
  auto sure = predict("local s = ''\nfor i = 1, 5000 do\n  local t = ('a' .. i):gsub('a', 'b')\n"
                      "  if t:match('# ') then s = t end\nend\n");
  INFO(listed(sure));
  const Prediction* known = find(sure, 4, "STITCH:string.match");
  REQUIRE(known);
  CHECK(known->confidence == Confidence::Certain);
}

TEST_CASE("a string method name called as a plain function of a table is no string method", "[rules][variants]") {
  // Audit 75: a Lua shim `function lib.str.gmatch(s, re) ... end` called
  // in a loop was a certain STITCH:string.gmatch at its call; the stitches
  // are inside the shim. A method call on an unknown value stays a guess.
  auto shim = predict("local lib = { str = {} }\n"                                              // 1
                      "function lib.str.gmatch(s, re) local it = s:gmatch(re) return it end\n"  // 2
                      "local n = 0\n"                                                           // 3
                      "for i = 1, 3000 do\n"                                                    // 4
                      "  for m in lib.str.gmatch('a;b;c', '([^;]+)') do n = n + #m end\n"       // 5
                      "end\n");
  INFO(listed(shim));
  CHECK_FALSE(find(shim, 5, "STITCH:string.gmatch"));
  CHECK_FALSE(find(shim, 5, "STITCH:string.gmatch_aux"));
  CHECK(find(shim, 2, "STITCH:string.gmatch"));
  auto method = predict("local function count(text)\n"                                   // 1
                        "  local n = 0\n"                                                  // 2
                        "  for w in text.body:gmatch('%a+') do n = n + #w end\n"           // 3
                        "  return n\n"                                                     // 4
                        "end\n"
                        "for i = 1, 3000 do count({ body = 'a b' }) end\n");
  INFO(listed(method));
  CHECK(find(method, 3, "STITCH:string.gmatch"));
}

TEST_CASE("a string parameter read before the function assigns it is still the caller's string", "[rules][variants]") {
  // Audit 80: `s = s:gsub("\n", "\r\n")` reads s before it writes it: the
  // stitch is certain, and the closure after it is an error (-jv: one
  // abort, then the stitched trace links to itself).
  auto ps = predict("local function enc(s)\n"                                                       // 1
                    "  s = s:gsub('\\n', '\\r\\n')\n"                                              // 2
                    "  local f = function() return s end\n"                                         // 3
                    "  return f()\n"                                                                 // 4
                    "end\n"                                                                          // 5
                    "local n = 0\n"                                                                  // 6
                    "for i = 1, 30000 do n = n + #enc('a\\nb') end\n");                              // 7
  INFO(listed(ps));
  const Prediction* gsub = find(ps, 2, "STITCH:string.gsub");
  REQUIRE(gsub);
  CHECK(gsub->confidence == Confidence::Certain);
  CHECK(gsub->reasoning.find("passes a string in") != std::string::npos);
  const Prediction* fnew = find(ps, 3, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->severity == Severity::Blacklist);
}

TEST_CASE("a pattern read from a field of a constant table constructor is a pattern", "[rules][variants]") {
  // Audit 99: a router's `path:match(route.pattern)` with
  // `local route = { pattern = "^/users/([^/]+)$" }` (LuaJIT makes the table
  // with TDUP from a template: no store shows the field); `-jv` shows the
  // stitch on both builds. A placeholder `false` in the template is not a
  // value: the function stored later still resolves.
  auto ps = predict(
      "local route = { pattern = '^/users/([^/]+)$', handler = false }\n"
      "route.handler = function(id) return #id end\n"
      "local function dispatch(path)\n"
      "  local id = path:match(route.pattern)\n"
      "  return route.handler(id)\n"
      "end\n"
      "local n = 0\n"
      "for i = 1, 3000 do n = n + dispatch(next_request().path) end\n");
  INFO(listed(ps));
  const Prediction* match = find(ps, 4, "STITCH:string.match");
  REQUIRE(match);
  CHECK(match->confidence == Confidence::Likely);
  CHECK(match->reasoning.find("gets a Lua pattern") != std::string::npos);
}

TEST_CASE("a pattern read from a field named for a pattern makes the receiver a string", "[rules][variants]") {
  // Audit 99: `path:match(r.pattern)` over a table of routes read in a
  // loop; the field's text is not known, its name is the evidence, as a
  // local's is. Not a field named otherwise.
  auto ps = predict(
      "local routes = load_routes()\n"
      "local function match(path)\n"
      "  for i = 1, #routes do\n"
      "    local r = routes[i]\n"
      "    local a = path:match(r.pattern)\n"
      "    local b = path:match(r.name)\n"
      "    if a or b then return r end\n"
      "  end\n"
      "end\n"
      "local n = 0\n"
      "for i = 1, 3000 do if match(next_path()) then n = n + 1 end end\n");
  INFO(listed(ps));
  const Prediction* pattern = find(ps, 5, "STITCH:string.match");
  REQUIRE(pattern);
  CHECK(pattern->reasoning.find("the field pattern, named for a pattern") != std::string::npos);
  CHECK_FALSE(find(ps, 6, "STITCH:string.match"));
}

TEST_CASE("a tail call behind a RETURN on every path splits no caller's trace", "[rules][variants]") {
  // Audit 101's backends table: `return assert(io.open(name)):lines()`.
  // io.open's results feed assert, so the trace ends there (RETURN), and
  // the tail call of lines is never recorded: `ljcheck run` shows the
  // RETURN at io.open twice and no split at the calling line.
  auto ps = predict("local function open_lines(name)\n"
                    "  return assert(io.open(name)):lines()\n"
                    "end\n"
                    "for i = 1, 300 do\n"
                    "  for line in open_lines('/etc/hostname') do end\n"
                    "end\n",
                    Confidence::Possible);
  INFO(listed(ps));
  REQUIRE(find(ps, 2, "RETURN:io.open"));
  for (const auto& p : ps) CHECK(p.reasonId.str().find("io.method.lines") == std::string::npos);
  // io.open's results kept in a local stitch instead: the trace that
  // resumes after it ends at the tail call, where open_lines was called.
  auto kept = predict("local function open_lines(name)\n"
                      "  local f = io.open(name)\n"
                      "  return f:lines()\n"
                      "end\n"
                      "for i = 1, 300 do\n"
                      "  for line in open_lines('/etc/hostname') do end\n"
                      "end\n",
                      Confidence::Possible);
  INFO(listed(kept));
  bool atCall = false;
  for (const auto& p : kept) atCall = atCall || (p.line == 6 && p.reasonId.str().find("io.method.lines") != std::string::npos);
  CHECK(atCall);
  // The same for a tail call of a builtin in a form the recorder refuses
  // (tonumber with a base): the run shows the RETURN at io.open alone.
  auto refused = predict("local function hex(s)\n"
                         "  local n = select('#', assert(io.open('/etc/hostname')))\n"
                         "  return tonumber(s, 16)\n"
                         "end\n"
                         "local t = 0\n"
                         "for i = 1, 300 do t = t + hex('ff') end\n",
                         Confidence::Possible);
  INFO(listed(refused));
  REQUIRE(find(refused, 2, "RETURN:io.open"));
  CHECK_FALSE(find(refused, 6, "STITCH:tonumber"));
}
