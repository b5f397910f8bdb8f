// Traces that start inside a function rather than at its entry: the trace
// that resumes after a stitched call, and a callee's side trace returning
// into a vararg frame (NYIBC:VARG after a call); and string methods taken
// for the string library's by the Lua pattern they get.
#include <catch2/catch.hpp>

#include "test_rules_support.h"

using namespace ljcheck;
using ljcheck::testing::find;
using ljcheck::testing::listed;
using ljcheck::testing::predict;

TEST_CASE("a multi-value vararg after a stitched call is likely refused, as a warning", "[rules][varargs]") {
  auto ps = predict(
      "local function tag(s, ...)\n"
      "  local w = string.match(s, '%a+')\n"
      "  return w, ...\n"
      "end\n"
      "local n = 0\n"
      "for k = 1, 3000 do n = n + #tag('abc', k) end\n");
  INFO(listed(ps));
  const Prediction* p = find(ps, 3, "NYIBC:VARG");
  REQUIRE(p);
  CHECK(p->confidence == Confidence::Likely);
  // The trace that aborts starts after the call: the loop is never blacklisted.
  CHECK(p->severity == Severity::Warn);
  CHECK(p->reasoning.find("string.match at line 2") != std::string::npos);
}

TEST_CASE("a vararg after error, a call through pcall or forwarded results starts no trace", "[rules][varargs]") {
  // None of these calls stitches: error ends the trace and does not return,
  // pcall and a call whose results feed a variable-count operation end the
  // trace too. No trace starts right after them in the vararg frame.
  for (const char* call : {"if not s then error('no string') end", "local ok = pcall(string.match, s, '%a+')",
                           "local t = {string.match(s, '(%a)(%a)')}"}) {
    INFO(call);
    auto ps = predict(std::string("local function tag(s, ...)\n  ") + call +
                      "\n  return s, ...\nend\nlocal n = 0\nfor k = 1, 3000 do n = n + #tag('abc', k) end\n");
    INFO(listed(ps));
    CHECK_FALSE(find(ps, 3, "NYIBC:VARG"));
  }
}

TEST_CASE("a multi-value vararg after a call to a Lua function names the callee", "[rules][varargs]") {
  auto ps = predict(
      "local function sum(n) local s = 0 for i = 1, n do s = s + i end return s end\n"
      "local function tag(n, ...)\n"
      "  local s = sum(n)\n"
      "  return s, ...\n"
      "end\n"
      "local t = 0\n"
      "for k = 1, 3000 do t = t + tag(20, k) end\n");
  INFO(listed(ps));
  const Prediction* p = find(ps, 4, "NYIBC:VARG");
  REQUIRE(p);
  CHECK(p->reasoning.find("when sum (called at line") != std::string::npos);
  CHECK(p->reasoning.find("a side trace from an exit in it returns into the vararg frame") != std::string::npos);
}

TEST_CASE("a call on a path that returns before the vararg leaves no trace there", "[rules][varargs]") {
  // Audit 72: `if not m then notify(...) return end` before `return
  // m.rhs(...)`: the warning named the call on the returning path, and
  // `-jv` showed nothing at the '...' on either build.
  auto ps = predict(
      "local function sum(n) local s = 0 for i = 1, n do s = s + i end return s end\n"
      "local function feed(m, ...)\n"
      "  if not m then\n"
      "    sum(20)\n"
      "    return\n"
      "  end\n"
      "  return m(...)\n"
      "end\n"
      "local t = 0\n"
      "for k = 1, 3000 do t = t + feed(function(x) return x end, k) end\n");
  INFO(listed(ps));
  CHECK_FALSE(find(ps, 7, "NYIBC:VARG"));
}

TEST_CASE("a multi-value vararg after compiled calls only, or before any call, is not predicted",
          "[rules][varargs]") {
  auto ps = predict(
      "local function tag(s, ...)\n"
      "  local w = string.sub(s, 1, math.floor(#s / 2))\n"
      "  return w, ...\n"
      "end\n"
      "local function first(f, ...)\n"
      "  return f(...)\n"
      "end\n"
      "local n = 0\n"
      "for k = 1, 3000 do n = n + #tag('abcd', k) + first(math.abs, k) end\n");
  INFO(listed(ps));
  CHECK_FALSE(find(ps, 3, "NYIBC:VARG"));
  CHECK_FALSE(find(ps, 6, "NYIBC:VARG"));
}

TEST_CASE("a vararg after a call in a function that only escapes stays likely, as a note", "[rules][varargs]") {
  auto ps = predict(
      "local M = {}\n"
      "function M.walk(self, f, ...)\n"
      "  if f(self, ...) then return end\n"
      "  return self:next(f, ...)\n"
      "end\n"
      "return M\n",
      Confidence::Likely);
  INFO(listed(ps));
  const Prediction* p = find(ps, 4, "NYIBC:VARG");
  REQUIRE(p);
  CHECK(p->confidence == Confidence::Likely);
  CHECK(p->severity == Severity::Info);
  CHECK_FALSE(find(ps, 3, "NYIBC:VARG"));  // no call before it
}

TEST_CASE("find on an unknown receiver with a pattern built from literals is the string method",
          "[rules][variants]") {
  auto ps = predict(
      "local ALPHA = 'A-Za-z'\n"
      "local WORD = '^[' .. ALPHA .. ']+$'\n"
      "local function valid(host) return host:find(WORD) ~= nil end\n"
      "local function plain(list) return list:find('abc') end\n"
      "local n = 0\n"
      "for i = 1, 3000 do\n"
      "  if valid('abc') then n = n + 1 end\n"
      "  plain({ find = function() return 1 end })\n"
      "end\n");
  INFO(listed(ps));
  const Prediction* p = find(ps, 3, "STITCH:string.find");
  REQUIRE(p);
  // valid is only called here, with a string: the receiver is no guess.
  CHECK(p->confidence == Confidence::Certain);
  CHECK(p->reasoning.find("the receiver is a parameter of valid that every call of it, all in this file, passes a "
                          "string in") != std::string::npos);
  CHECK_FALSE(find(ps, 4, "STITCH:string.find"));  // a plain search is compiled, whoever finds
}

TEST_CASE("a pattern chosen between two literals keeps the text they begin with", "[rules][variants]") {
  auto ps = predict(
      "local function trailing(s, last)\n"
      "  local p\n"
      "  if last then p = '^[^\\n]-()[ \\t]+$' else p = '^[^\\n]-()[ \\t]+\\n' end\n"
      "  local at = string.find(s, p)\n"
      "  return at\n"
      "end\n"
      "local n = 0\n"
      "for i = 1, 3000 do if trailing('a  ', i % 2 == 0) then n = n + 1 end end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 4, "STITCH:string.find"));
}

TEST_CASE("match on an unknown receiver with a plain literal stays a guess", "[rules][variants]") {
  // has escapes (other code may call it with anything): a guess.
  auto ps = predict(
      "local function has(s) return s:match('abc') end\n"
      "local n = 0\n"
      "for i = 1, 3000 do if has('xabc') then n = n + 1 end end\n"
      "return has\n");
  INFO(listed(ps));
  const Prediction* p = find(ps, 3, "STITCH:string.match");  // a tail call: the split lands at the caller
  REQUIRE(p);
  CHECK(p->confidence == Confidence::Likely);
  // The sentence says why the calling site runs hot, as for any split.
  CHECK(p->reasoning.find("the split lands at this call; it runs in the loop at line 3, which runs 3000 times") !=
        std::string::npos);
}

TEST_CASE("gsub on a field of self is the string method", "[rules][variants]") {
  auto ps = predict(
      "local C = {}\n"
      "C.__index = C\n"
      "function C:module() return (self.scheme:gsub('[-+.]', '_')) end\n"
      "local o = setmetatable({ scheme = 'a+b' }, C)\n"
      "local n = 0\n"
      "for i = 1, 3000 do n = n + #o:module() end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 3, "STITCH:string.gsub"));
}

TEST_CASE("an upvalue close after a looping call, behind a closure every pass makes first, is likely",
          "[rules][side-traces]") {
  // Audit 82: a listener closure, then `em:emit(...)`, whose loop turns once
  // per call: the closure aborts every root trace before the call, so only
  // a trace resuming after the call could reach the UCLO, and `-jv` shows
  // none on either build. Without the closure ahead, the root trace reaches
  // the call, and the abort is certain.
  const std::string emitter =
      "local list = {}\n"
      "local function emit(a) for i = 1, #list do list[i](a) end end\n"
      "local total = 0\n"
      "for req = 1, 80000 do\n";
  auto ps = predict(emitter +
                    "  local id = req\n"
                    "  list[1] = function(s) total = total + s + id end\n"
                    "  emit(200)\n"
                    "end\n");
  INFO(listed(ps));
  const Prediction* p = find(ps, 7, "NYIBC:UCLO");
  REQUIRE(p);
  CHECK(p->confidence == Confidence::Likely);
  CHECK(p->reasoning.find("every pass aborts at line 6 before that call") != std::string::npos);
  auto plain = predict(emitter +
                       "  local id = req\n"
                       "  emit(200)\n"
                       "  if id < 0 then list[1] = function(s) total = total + s + id end end\n"
                       "end\n");
  INFO(listed(plain));
  const Prediction* q = find(plain, 7, "NYIBC:UCLO");
  REQUIRE(q);
  CHECK(q->reasoning.find("every pass aborts at line") == std::string::npos);
}

TEST_CASE("a closure after a read through an __index function that loops is a likely warning",
          "[rules][side-traces]") {
  // Audit 83: headers kept as a list, looked up by an __index function that
  // scans it. The host loop's trace links to the scan loop's trace, which
  // returns into the VM's metamethod frame: `-jv` shows no abort at the
  // closure on either build, and nothing blacklisted. A plain __index
  // function is recorded inline, and the closure blacklists the loop.
  auto lint = [](const std::string& index, bool throughParameter) {
    const std::string read = throughParameter ? "  local host = access(h)\n" : "  local host = h.host\n";
    return predict("local mt = {\n"
                   "  __index = " + index + ",\n"
                   "}\n"
                   "local seen = {}\n"
                   "local function access(h) local host = h.host seen[2] = function() return host end return host end\n"
                   "for i = 1, 100000 do\n"
                   "  local h = setmetatable({ _list = { 'accept', '*/*', 'ua', 'curl', 'host', 'h' .. (i % 5) } }, mt)\n" +
                   read +
                   "  seen[1] = function() return host end\n"
                   "end\n");
  };
  const std::string scan =
      "function(t, k) local l = rawget(t, '_list') for i = 1, #l, 2 do if l[i] == k then return l[i + 1] end end end";
  SECTION("the object read in the loop") {
    auto ps = lint(scan, false);
    INFO(listed(ps));
    const Prediction* p = find(ps, 9, "NYIBC:FNEW");
    REQUIRE(p);
    CHECK(p->severity == Severity::Warn);
    CHECK(p->confidence == Confidence::Likely);
    CHECK(p->reasoning.find("the field read at line 8 comes before it and may call an __index function") !=
          std::string::npos);
  }
  SECTION("the object handed to a function that reads it") {
    auto ps = lint(scan, true);
    INFO(listed(ps));
    const Prediction* p = find(ps, 5, "NYIBC:FNEW");
    REQUIRE(p);
    CHECK(p->confidence == Confidence::Likely);
    CHECK(p->reasoning.find("the field read at line 5") != std::string::npos);
  }
  SECTION("the object built in the call's arguments, where the tracker loses it") {
    // Audit 87: `access(setmetatable({…}, mt))` passes it in the call's
    // variable part; `-jv`, both builds: the host loop links to the scan
    // loop's trace, no abort at the closure.
    auto ps = predict("local mt = {\n"
                      "  __index = " + scan + ",\n"
                      "}\n"
                      "local seen = {}\n"
                      "local function access(h) local host = h.host seen[2] = function() return host end return host end\n"
                      "for i = 1, 100000 do\n"
                      "  access(setmetatable({ _list = { 'accept', '*/*', 'ua', 'curl', 'host', 'h' .. (i % 5) } }, mt))\n"
                      "end\n");
    INFO(listed(ps));
    const Prediction* p = find(ps, 5, "NYIBC:FNEW");
    REQUIRE(p);
    CHECK(p->severity == Severity::Warn);
    CHECK(p->reasoning.find("the field read at line 5") != std::string::npos);
  }
  SECTION("a lazy field computed from the table's own fields is recorded inline") {
    // Audit 87 r24: `__index` reads `t.w * t.h` and rawsets `area`; both
    // builds blacklist the loop at the closure.
    auto ps = lint("function(t, k) if k == 'area' then local a = t.w * t.h rawset(t, 'area', a) return a end end",
                   false);
    INFO(listed(ps));
    const Prediction* p = find(ps, 9, "NYIBC:FNEW");
    REQUIRE(p);
    CHECK(p->severity == Severity::Blacklist);
  }
  SECTION("an __index function a trace records inline") {
    auto ps = lint("function(t, k) return rawget(t, '_list')[2] end", false);
    INFO(listed(ps));
    const Prediction* p = find(ps, 9, "NYIBC:FNEW");
    REQUIRE(p);
    CHECK(p->severity == Severity::Blacklist);
    CHECK(p->confidence == Confidence::Certain);
  }
}

TEST_CASE("an upvalue close after a call whose loop turns a known 2+ times, behind a closure, stays certain",
          "[rules][side-traces]") {
  // The closure aborts every root trace before the call, but sum4's loop of
  // 4 turns gets a trace of its own, and the side trace from its exit
  // returns into the loop body: `-jv` shows 4 aborts of `(1/3)` at the UCLO
  // on both builds, and nothing blacklisted there.
  auto ps = predict(
      "local function sum4(t) local s = 0 for i = 1, 4 do s = s + t[i] end return s end\n"
      "local data, fs, total = { 1, 2, 3, 4 }, {}, 0\n"
      "for i = 1, 60000 do\n"
      "  local k = i\n"
      "  fs[1] = function() return k end\n"
      "  total = total + sum4(data)\n"
      "end\n");
  INFO(listed(ps));
  const Prediction* p = find(ps, 6, "NYIBC:UCLO");
  REQUIRE(p);
  CHECK(p->confidence == Confidence::Certain);
  CHECK(p->severity == Severity::Warn);
  CHECK(p->reasoning.find("the loop at line 1 of sum4 turns 4 times on each call") != std::string::npos);
}

TEST_CASE("a closure after a string method on a receiver taken for a string is a likely warning",
          "[rules][side-traces]") {
  // Audit 83: `ctx.content_type:match("^[^;]+")` then a closure, 1,000
  // calls: both builds stitch at the match and link the stitching trace to
  // itself at the first abort. Whether the receiver is a string the
  // bytecode does not show: were it an object, its match would record and
  // 1,000 runs would blacklist nothing.
  auto ps = predict(
      "local transforms = {}\n"
      "local function header_filter(ctx)\n"
      "  local media = ctx.content_type:match('^[^;]+')\n"
      "  transforms[1] = function(body) return media .. #body end\n"
      "  return media\n"
      "end\n"
      "local cts = { 'text/html; charset=utf-8', 'application/json' }\n"
      "local n = 0\n"
      "for i = 1, 1000 do n = n + #header_filter({ content_type = cts[i % 2 + 1] }) end\n");
  INFO(listed(ps));
  const Prediction* p = find(ps, 4, "NYIBC:FNEW");
  REQUIRE(p);
  CHECK(p->severity == Severity::Warn);
  CHECK(p->confidence == Confidence::Likely);
  CHECK(p->reasoning.find("likely stitches the trace (its receiver is taken for a string)") != std::string::npos);
  CHECK(p->reasoning.find("fewer than blacklisting") == std::string::npos);
}

TEST_CASE("a closure after a call the file does not resolve says both outcomes", "[rules][side-traces]") {
  // Audit 83: `req:header(...)` on a parameter, a one-line method of
  // another file: both builds record it inline and blacklist the loop and
  // the function's entry; the reasoning had said their starts were not
  // what gets blacklisted.
  auto ps = predict(
      "local cleanups = {}\n"
      "local function access(req)\n"
      "  local user = req:header('authorization')\n"
      "  cleanups[1] = function() return user end\n"
      "  return user\n"
      "end\n"
      "return function(req) for i = 1, 100000 do access(req) end end\n");
  INFO(listed(ps));
  const Prediction* p = find(ps, 4, "NYIBC:FNEW");
  REQUIRE(p);
  CHECK(p->severity == Severity::Warn);
  CHECK(p->reasoning.find("what it calls is not resolved here") != std::string::npos);
  CHECK(p->reasoning.find("if it records inline (a short method, say), the root trace aborts here") !=
        std::string::npos);
}

TEST_CASE("an upvalue close past an inner loop, behind a closure every pass makes, aborts only side traces",
          "[rules][side-traces]") {
  // Audit 82's timer wheel: the closure aborts every pass before the `if
  // nt >= 32 then for ... end end`; no root trace reaches the UCLO around
  // the inner loop, and `-jv` shows only the 4 aborts of that loop's side
  // trace there, on both builds.
  auto ps = predict(
      "local timers, nt, fired = {}, 0, 0\n"
      "for tick = 1, 50000 do\n"
      "  local id = tick\n"
      "  nt = nt + 1\n"
      "  timers[nt] = function() fired = fired + id end\n"
      "  if nt >= 32 then\n"
      "    for i = 1, nt do timers[i](); timers[i] = nil end\n"
      "    nt = 0\n"
      "  end\n"
      "end\n");
  INFO(listed(ps));
  const Prediction* p = nullptr;
  for (const auto& q : ps)
    if (q.reasonId.str() == "NYIBC:UCLO" && !q.masked()) p = &q;
  REQUIRE(p);
  CHECK(p->severity == Severity::Warn);
  CHECK(p->reasoning.find("every pass aborts at line 5 before this one") != std::string::npos);
  CHECK(p->reasoning.find("the start is blacklisted") == std::string::npos);
}

TEST_CASE("a tail call of an unrecorded builtin after the function's own loop ends the trace", "[rules][side-traces]") {
  // Audit 85: the callers' traces stop at the loop (they link to its
  // trace), and the side trace from its exit starts in the function's
  // frame: `-jv` on both builds shows `(1/1) ... return`, never a stitch.
  // Without the loop the tail call stitches at each call (r30).
  auto fields = [](const char* turns) {
    return predict(std::string("local unpack = unpack or table.unpack\n"
                               "local function fields(s)\n"
                               "  local out = {}\n"
                               "  for i = 1, ") + turns + " do out[i] = s:byte(i % 4 + 1) end\n"
                   "  return unpack(out, 1, 4)\n"
                   "end\n"
                   "local n = 0\n"
                   "for i = 1, 100000 do\n"
                   "  local a, b, c, d = fields('abcd')\n"
                   "  n = n + a + d\n"
                   "end\n");
  };
  auto ps = fields("20");  // `-jv`, both builds: `(2/3) ... return`, never a stitch
  INFO(listed(ps));
  const Prediction* p = find(ps, 9, "RETURN:unpack");
  REQUIRE(p);
  CHECK(p->confidence == Confidence::Certain);
  CHECK(p->reasoning.find("runs through its loop at line 4") != std::string::npos);
  CHECK_FALSE(find(ps, 9, "STITCH:unpack"));
  // Audit 87: a loop of 3 turns, which a caller's trace unrolls once the
  // loop's own traces keep leaving it: `stitch unpack` in most runs.
  auto few = fields("3");
  INFO(listed(few));
  const Prediction* q3 = find(few, 9, "RETURN:unpack");
  REQUIRE(q3);
  CHECK(q3->confidence == Confidence::Likely);
  CHECK(q3->reasoning.find("few enough for a caller's trace to unroll it") != std::string::npos);
  auto hex = predict(
      "local function field(parts)\n"
      "  local s = 0\n"
      "  for i = 1, #parts do s = s + #parts[i] end\n"
      "  return tonumber(parts[s % #parts + 1], 16)\n"
      "end\n"
      "local recs = { { 'ff', '10', '0a', '1b', '2c', '3d' }, { '1f', '2e', '3d', '4c', '5b' } }\n"
      "local n = 0\n"
      "for i = 1, 100000 do n = n + field(recs[i % 2 + 1]) end\n");
  INFO(listed(hex));
  const Prediction* q = find(hex, 8, "RETURN:tonumber");
  REQUIRE(q);
  // A loop over a parameter may turn once or not at all: then a caller's
  // trace runs on to the tail call and stitches there (`-jv` with lists of
  // one and two: `stitch tonumber`), so likely.
  CHECK(q->confidence == Confidence::Likely);
}

TEST_CASE("a closure after a call whose traces end at its tail call after its loop may never be recorded",
          "[rules][side-traces]") {
  // Audit 87: the helper loops, then `return unpack(...)`; its loop's exit
  // side trace ends at the tail call, and no trace resumes in the caller:
  // `-jv` on both builds shows no abort at the closure (20 turns). With 3
  // turns a caller's trace may unroll the loop and stitch there instead,
  // and the resumed trace then aborts at the closure (r44: blacklisted).
  auto lint = [](const char* turns) {
    return predict(std::string("local unpack = unpack or table.unpack\n"
                               "local function fields(s)\n"
                               "  local out = {}\n"
                               "  for i = 1, ") + turns + " do out[i] = s:byte(i % 4 + 1) end\n"
                   "  return unpack(out, 1, 4)\n"
                   "end\n"
                   "local fs, n = {}, 0\n"
                   "for i = 1, 60000 do\n"
                   "  local a, b, c, d = fields('abcd')\n"
                   "  fs[1] = function() return a + d end\n"
                   "  n = n + a\n"
                   "end\n");
  };
  auto sure = lint("20");
  INFO(listed(sure));
  const Prediction* p = find(sure, 10, "NYIBC:FNEW");
  REQUIRE(p);
  CHECK(p->severity == Severity::Warn);
  CHECK(p->confidence == Confidence::Likely);
  CHECK(p->reasoning.find("no trace resumes after the call, so no trace may get to this abort") != std::string::npos);
  auto few = lint("3");
  INFO(listed(few));
  const Prediction* q = find(few, 10, "NYIBC:FNEW");
  REQUIRE(q);
  CHECK(q->confidence == Confidence::Likely);
  CHECK(q->reasoning.find("Which, the run decides") != std::string::npos);
}

TEST_CASE("a short while loop before a closure is not unrolled: the root trace aborts at it", "[rules][side-traces]") {
  // Audit 87: `while j < 4 do … end` then a closure, 60,000 turns: `-jv` on
  // both builds shows 11 "inner loop in root trace" aborts (the outer start
  // blacklisted by them) and 4 side-trace aborts at the closure; with a
  // numeric `for j = 1, 4` the root trace unrolls the inner loop.
  auto ps = predict(
      "local acc = 0\n"
      "for i = 1, 60000 do\n"
      "  local j = 0\n"
      "  while j < 4 do j = j + 1; acc = acc + j end\n"
      "  local cb = function() return i end\n"
      "  acc = acc + cb()\n"
      "end\n");
  INFO(listed(ps));
  const Prediction* p = find(ps, 5, "NYIBC:FNEW");
  REQUIRE(p);
  CHECK(p->severity == Severity::Warn);
  CHECK(p->reasoning.find("a while or repeat loop of 4 turns, which a root trace does not unroll") != std::string::npos);
}

TEST_CASE("a pcall'd function that likely stitches and returns is a likely NYIRETL", "[rules][side-traces]") {
  // Audit 87: `s:gsub(...)` on a parameter, taken for a string by the
  // method's name, then `return out`, called through pcall: both builds
  // show `(1/stitch) ... NYI: return to lower frame`, once.
  auto ps = predict(
      "local msgs = {}\n"
      "for i = 1, 50 do msgs[i] = 'user<' .. i .. '>' end\n"
      "local function escape(s)\n"
      "  local out = s:gsub('[<>]', '_')\n"
      "  return out\n"
      "end\n"
      "local total = 0\n"
      "for i = 1, 50000 do\n"
      "  local ok, e = pcall(escape, msgs[i % 50 + 1])\n"
      "  total = total + #e\n"
      "end\n");
  INFO(listed(ps));
  const Prediction* p = find(ps, 5, "NYIRETL");
  REQUIRE(p);
  CHECK(p->confidence == Confidence::Likely);
  CHECK(p->reasoning.find("called through pcall at line 9") != std::string::npos);
}

TEST_CASE("an upvalue close after an inner loop whose every turn aborts is never reached by a root trace",
          "[rules][side-traces]") {
  // Audit 88: `for hand = 1, 2 do local h = function() … tick end … end` in
  // a loop of 50,000: the root trace unrolls the inner loop and aborts at
  // its closure on every pass (`-jv`, both builds: 11 aborts there, the
  // outer start blacklisted); the outer body's UCLO never aborts.
  auto ps = predict(
      "local hands = 0\n"
      "for tick = 1, 50000 do\n"
      "  for hand = 1, 2 do\n"
      "    local h = function() return hand * tick end\n"
      "    hands = hands + h()\n"
      "  end\n"
      "end\n");
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 4, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->severity == Severity::Blacklist);
  const Prediction* uclo = nullptr;
  for (const auto& p : ps)
    if (p.reasonId.str() == "NYIBC:UCLO" && !p.masked() && p.line >= 5) uclo = &p;
  REQUIRE(uclo);
  CHECK(uclo->severity == Severity::Warn);
  CHECK(uclo->reasoning.find("every turn of it aborts at line 4: no root trace gets past it") != std::string::npos);
}

TEST_CASE("an operator's metamethod that tail-calls a constructor, called from an interpreted loop, is a NYIRETL",
          "[rules][side-traces]") {
  // Audits 82 r27, 84, 88 r23: Vec.__add returns Vec.new(...), which
  // returns setmetatable(...); the closure keeps the loop interpreted.
  const std::string klass =
      "local Vec = {}\n"
      "Vec.__index = Vec\n"
      "function Vec.new(x, y) return setmetatable({ x = x, y = y }, Vec) end\n"
      "function Vec.__mul(a, k) return Vec.new(a.x * k, a.y * k) end\n"
      "function Vec.__add(a, b)\n"
      "  local sum = Vec.new(a.x + b.x, a.y + b.y)\n"
      "  return sum\n"
      "end\n"
      "local keep, n = {}, 0\n";
  SECTION("the object on the left: its metamethod is the one called") {
    auto ps = predict(klass +
                      "for i = 1, 3000 do\n"
                      "  local v = Vec.new(i, -i)\n"
                      "  keep[i % 8 + 1] = function() return v end\n"
                      "  local w = v * 2\n"
                      "  n = n + w.x\n"
                      "end\n");
    INFO(listed(ps));
    const Prediction* p = find(ps, 13, "NYIRETL");
    REQUIRE(p);
    CHECK(p->confidence == Confidence::Certain);
    CHECK(p->reasoning.find("its tail call of Vec.new, which tail-calls setmetatable") != std::string::npos);
    CHECK(p->reasoning.find("the loop at line 10 reaches the FNEW at line 12 on every pass") != std::string::npos);
  }
  SECTION("an unknown value on the left: it may have a metamethod of its own") {
    auto ps = predict(klass +
                      "local acc = {}\n"
                      "for i = 1, 3000 do\n"
                      "  local v = Vec.new(i, -i)\n"
                      "  keep[i % 8 + 1] = function() return v end\n"
                      "  acc = keep[1]() * v\n"
                      "end\n");
    INFO(listed(ps));
    const Prediction* p = find(ps, 14, "NYIRETL");
    REQUIRE(p);
    CHECK(p->confidence == Confidence::Likely);
  }
  SECTION("a metamethod that returns a local ends its trace there") {
    auto ps = predict(klass +
                      "local acc = Vec.new(0, 0)\n"
                      "for i = 1, 3000 do\n"
                      "  local v = Vec.new(i, -i)\n"
                      "  keep[i % 8 + 1] = function() return v end\n"
                      "  acc = acc + v\n"
                      "end\n");
    INFO(listed(ps));
    CHECK_FALSE(find(ps, 14, "NYIRETL"));
  }
  SECTION("enough interpreted calls blacklist the metamethod's entry: an error") {
    // Audit 89 r53: 300,000 turns; `-jv` on both builds blacklists the
    // entries of the metamethod and of the constructor it tail-calls.
    for (const char* turns : {"300000", "100000"}) {
      INFO(turns);
      auto ps = predict(klass + "for i = 1, " + turns +
                        " do\n"
                        "  local v = Vec.new(i, -i)\n"
                        "  keep[i % 8 + 1] = function() return v end\n"
                        "  local w = v * 2\n"
                        "  n = n + w.x\n"
                        "end\n");
      INFO(listed(ps));
      const Prediction* p = find(ps, 13, "NYIRETL");
      REQUIRE(p);
      CHECK(p->severity == Severity::Blacklist);
      // Within a fifth of 88,973 a hot counter another loop shares can
      // hold the count back.
      CHECK(p->confidence == (std::string(turns) == "300000" ? Confidence::Certain : Confidence::Likely));
      CHECK(p->reasoning.find("Vec.__mul's entry is blacklisted") != std::string::npos);
    }
  }
  SECTION("a number on the left has no metamethod: the object's is called") {
    auto ps = predict(klass +
                      "for i = 1, 3000 do\n"
                      "  local v = Vec.new(i, -i)\n"
                      "  keep[i % 8 + 1] = function() return v end\n"
                      "  local w = 0.5 * v\n"
                      "  n = n + w.x\n"
                      "end\n");
    INFO(listed(ps));
    const Prediction* p = find(ps, 13, "NYIRETL");
    REQUIRE(p);
    CHECK(p->confidence == Confidence::Certain);
    CHECK(p->reasoning.find("the left operand is a number, and the right one is an object") != std::string::npos);
  }
  SECTION("an operator behind a branch: how many passes call the metamethod the data decides") {
    auto ps = predict(klass +
                      "for i = 1, 3000 do\n"
                      "  local v = Vec.new(i, -i)\n"
                      "  keep[i % 8 + 1] = function() return v end\n"
                      "  if i % 500 == 0 then n = n + (v * 2).x end\n"
                      "end\n");
    INFO(listed(ps));
    CHECK_FALSE(find(ps, 13, "NYIRETL"));
  }
  SECTION("a loop that compiles inlines the metamethod") {
    auto ps = predict(klass +
                      "local step = Vec.new(1, 1)\n"
                      "for i = 1, 3000 do\n"
                      "  local w = step * i\n"
                      "  n = n + w.x\n"
                      "end\n");
    INFO(listed(ps));
    CHECK_FALSE(find(ps, 12, "NYIRETL"));
  }
}

TEST_CASE("an operator whose metamethod runs a loop comes before a closure as a call of such a function does",
          "[rules][side-traces]") {
  // Audit 89 (r31, r58): the loop's root trace links to the trace of the
  // metamethod's loop, or stops there, and never reaches the closure: `-jv`
  // on both builds shows no FNEW abort, and the loop compiles.
  auto ps = predict(
      "local M = {}\n"
      "M.__index = M\n"
      "function M.new(t) return setmetatable({ m = t }, M) end\n"
      "function M.__mul(a, b)\n"
      "  local r = {}\n"
      "  for i = 1, 9 do r[i] = a.m[i] * b.m[(i % 9) + 1] end\n"
      "  return setmetatable({ m = r }, M)\n"
      "end\n"
      "local keep, acc = {}, M.new({ 1, 0, 0, 0, 1, 0, 0, 0, 1 })\n"
      "local rot = M.new({ 0, 1, 0, 1, 0, 0, 0, 0, 1 })\n"
      "for i = 1, 100000 do\n"
      "  acc = acc * rot\n"
      "  keep[i % 4 + 1] = function() return acc end\n"
      "end\n");
  INFO(listed(ps));
  const Prediction* p = find(ps, 13, "NYIBC:FNEW");
  REQUIRE(p);
  CHECK(p->severity == Severity::Warn);
  CHECK(p->confidence == Confidence::Likely);
  CHECK(p->reasoning.find("the `*` at line 12 comes before it and calls its operand's metamethod") !=
        std::string::npos);
}

TEST_CASE("an argument check that raises is on the failing path only, unless the function is called through pcall",
          "[rules][side-traces]") {
  SECTION("a metamethod that checks its argument first still ends in its tail call") {
    // Audit 89 r5: `-jv` on both builds shows the closure abort and
    // blacklist the loop, and 10-11 NYIRETL at the operator.
    auto ps = predict(
        "local V = {}\n"
        "V.__index = V\n"
        "function V.new(x, y) return setmetatable({ x = x, y = y }, V) end\n"
        "function V.__div(a, s)\n"
        "  if s == 0 then error('division by zero') end\n"
        "  return V.new(a.x / s, a.y / s)\n"
        "end\n"
        "local sum, log, acc = V.new(1000, 2000), {}, 0\n"
        "for n = 1, 100000 do\n"
        "  local c = sum / n\n"
        "  acc = acc + c.x\n"
        "  log[n % 32 + 1] = function() return c.x end\n"
        "end\n");
    INFO(listed(ps));
    const Prediction* nyiretl = find(ps, 10, "NYIRETL");
    REQUIRE(nyiretl);
    CHECK(nyiretl->severity == Severity::Blacklist);  // 100,000 calls: within a fifth of the count, likely
    CHECK(nyiretl->confidence == Confidence::Likely);
    const Prediction* closure = find(ps, 12, "NYIBC:FNEW");
    REQUIRE(closure);
    CHECK(closure->severity == Severity::Blacklist);
  }
  SECTION("a pcall'd check raises on the passes the pcall is there for") {
    // Audit 85 d3, in one file: `-jv` shows the loop's start aborted once
    // and check_record's own entry aborting: the loop is not blacklisted.
    auto ps = predict(
        "local function check_port(s)\n"
        "  local n = tonumber(s)\n"
        "  if not n or n < 1 or n > 65535 then error('invalid port', 2) end\n"
        "  return n\n"
        "end\n"
        "local function check_record(rec)\n"
        "  local problems = {}\n"
        "  local add = function(msg) problems[#problems + 1] = msg end\n"
        "  if type(rec.name) ~= 'string' then add('name') end\n"
        "  return #problems == 0\n"
        "end\n"
        "local ports, good = { '80', '8080', '70000', 'x' }, 0\n"
        "for i = 1, 50000 do\n"
        "  local ok = pcall(check_port, ports[i % 4 + 1])\n"
        "  if ok then good = good + 1 end\n"
        "  if check_record({ name = 'svc', port = i }) then good = good + 1 end\n"
        "end\n");
    INFO(listed(ps));
    const Prediction* closure = find(ps, 8, "NYIBC:FNEW");
    REQUIRE(closure);
    CHECK(closure->severity == Severity::Warn);
  }
}

// A route around a blocker counts when some path of it compiles; one whose
// every path runs into another refused bytecode does not (audit 94: `if not
// count then ... return nil end`, then `if count > rate then return false
// end`, then the timer's closure: every way aborts, and both builds
// blacklist the loop).
TEST_CASE("a route around a blocker whose every path aborts does not compile", "[rules][side-traces]") {
  auto ps = predict(
      "local log = ...\nlocal function incoming(count)\n  if not count then\n    log(\"x\")\n    return nil\n"
      "  end\n  if count > 5 then\n    return false\n  end\n  local ok = function() return count end\n"
      "  return true, ok\nend\nfor i = 1, 100000 do incoming(i) end\n");
  INFO(listed(ps));
  const Prediction* uclo = find(ps, 5, "NYIBC:UCLO");
  REQUIRE(uclo);
  CHECK(uclo->reasoning.find("a trace that records the other path compiles") == std::string::npos);
  CHECK(uclo->reasoning.find("the path around it from line 3 runs into another abort") != std::string::npos);
}

// After a stitch on every path, the trace that reaches a tail call starts
// inside the function and ends there (RETURN); but when every path from the
// stitch to the tail call runs into a refused bytecode, that trace aborts
// first and none reaches the tail call (audit 93: `coroutine.running()`, a
// callback closure, then `return coroutine.yield()`; `-jv` on both builds:
// one abort of the stitched trace at the closure, never a `return` link).
TEST_CASE("no RETURN after a stitch when a blocker comes between it and the tail call", "[rules][side-traces]") {
  auto ps = predict(
      "local function f(x)\n  local now = os.time()\n  local g = function() return now end\n"
      "  return string.gsub(x, \"a\", g())\nend\nlocal n = 0\nfor i = 1, 1000 do n = n + #f(\"abc\") end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 3, "NYIBC:FNEW"));
  CHECK_FALSE(find(ps, 7, "RETURN:string.gsub"));
  // Without the closure, the stitched trace gets to the tail call and ends there.
  auto plain = predict(
      "local function f(x)\n  local now = os.time()\n  return string.gsub(x, \"a\", now)\nend\nlocal n = 0\n"
      "for i = 1, 1000 do n = n + #f(\"abc\") end\n");
  INFO(listed(plain));
  CHECK(find(plain, 6, "RETURN:string.gsub"));
}

// Code after a loop is recorded by the side trace from the loop's exit once
// the function is entered hotexit times, even when the loop's trip count
// is unknown (audit 95: `return buf:tostring()` after `for i = 1, #rows`,
// 40 calls). Not after a loop whose body aborts on every pass: no trace of
// it compiles, and no side trace leaves its exit (audit 86's A*: a sort
// comparator made in every turn of its `while` loop).
TEST_CASE("code after a loop of unknown trips is likely recorded, unless the loop never compiles",
          "[rules][side-traces]") {
  const std::string tail = "  local g = function() return n end\n  return g()\nend\nfor q = 1, 40 do search({3, 1, 2}) end\n";
  auto compiles = predict("local function search(list)\n  local n = 0\n  while #list > 0 do\n    table.sort(list)\n"
                          "    n = n + table.remove(list)\n  end\n" + tail);
  INFO(listed(compiles));
  REQUIRE(find(compiles, 7, "NYIBC:FNEW"));
  CHECK(find(compiles, 7, "NYIBC:FNEW")->confidence == Confidence::Likely);
  CHECK(find(compiles, 7, "NYIBC:FNEW")->reasoning.find("it runs after the loop at line 3, whose trip count the "
                                                         "bytecode does not show, and search is entered at least 10 "
                                                         "times (hotexit)") != std::string::npos);
  auto blocked = predict("local function search(list)\n  local n = 0\n  while #list > 0 do\n"
                         "    table.sort(list, function(a, b) return a > b end)\n    n = n + table.remove(list)\n"
                         "  end\n" + tail);
  INFO(listed(blocked));
  CHECK_FALSE(find(blocked, 7, "NYIBC:FNEW"));
  // Nor after one that can return from inside: the code after it may never
  // run (audit 86's A* returns on reaching the goal).
  auto returns = predict("local function search(list, x)\n  local n = 0\n  while #list > 0 do\n"
                         "    if table.remove(list) == x then return n end\n    n = n + 1\n  end\n" + tail);
  INFO(listed(returns));
  CHECK_FALSE(find(returns, 7, "NYIBC:FNEW"));
}
