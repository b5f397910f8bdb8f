// Structural predictions: inner loops a root trace runs into (LINNER),
// recursion (DOWNREC, CUNROLL), returns through frames the recorder cannot
// handle (NYIRETL). Severity info, with a confidence.
#include <catch2/catch.hpp>

#include "test_rules_support.h"

using namespace ljcheck;
using ljcheck::testing::find;
using ljcheck::testing::listed;
using ljcheck::testing::predict;

TEST_CASE("LINNER at an inner loop whose enclosing loop aborts after it", "[rules][structural]") {
  auto ps = predict(
      "local t = {1, 2, 3}\n"
      "local n = 0\n"
      "for i = 1, 3000 do\n"
      "  for _, v in ipairs(t) do\n"
      "    n = n + v\n"
      "  end\n"
      "  local f = function() return i end\n"
      "  n = n + f()\n"
      "end\n");
  INFO(listed(ps));
  const Prediction* linner = find(ps, 5, "LINNER");
  REQUIRE(linner);
  REQUIRE(linner->severity == Severity::Info);
  REQUIRE(linner->confidence == Confidence::Likely);
}

TEST_CASE("no LINNER for plain nested loops or a numeric inner loop", "[rules][structural]") {
  auto ps = predict(
      "local n = 0\n"
      "for i = 1, 3000 do\n"
      "  local j = 0\n"
      "  while j < 10 do j = j + 1; n = n + j end\n"
      "  for k = 1, 10 do n = n + k end\n"
      "end\n");
  INFO(listed(ps));
  for (const auto& p : ps) CHECK(p.reasonId.str() != "LINNER");
}

TEST_CASE("LINNER in a callback that C calls back", "[rules][structural]") {
  auto ps = predict(
      "local n = 0\n"
      "local function visit(w)\n"
      "  local k = 0\n"
      "  while k < 20 do\n"
      "    k = k + 1\n"
      "  end\n"
      "  n = n + k\n"
      "  return w\n"
      "end\n"
      "local r = string.gsub(string.rep('a ', 100), '%a', visit)\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 5, "LINNER"));
  REQUIRE(find(ps, 5, "LINNER")->reasoning.find("string.gsub") != std::string::npos);
}

TEST_CASE("DOWNREC at the return after a non-tail self-call, and none for tail recursion", "[rules][structural]") {
  auto ps = predict(
      "local function fib(n)\n"
      "  if n < 2 then return n end\n"
      "  return fib(n - 1) + fib(n - 2)\n"
      "end\n"
      "local function count(k, acc)\n"
      "  if k == 0 then return acc end\n"
      "  return count(k - 1, acc + 1)\n"
      "end\n"
      "local s = 0\n"
      "for i = 1, 300 do s = s + fib(8) + count(5, 0) end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 3, "DOWNREC"));
  REQUIRE_FALSE(find(ps, 2, "DOWNREC"));
  REQUIRE(find(ps, 1, "CUNROLL"));
  REQUIRE_FALSE(find(ps, 7, "DOWNREC"));
  REQUIRE_FALSE(find(ps, 5, "CUNROLL"));
}

TEST_CASE("DOWNREC through forward-declared mutual recursion", "[rules][structural]") {
  auto ps = predict(
      "local walk\n"
      "local function each(t, acc)\n"
      "  for _, v in ipairs(t) do acc = walk(v, acc) end\n"
      "  return acc\n"
      "end\n"
      "walk = function(v, acc)\n"
      "  if type(v) == 'table' then return each(v, acc) + 0 end\n"
      "  return acc + v\n"
      "end\n"
      "local tree = {1, {2, 3}, {4, {5}}}\n"
      "local n = 0\n"
      "for i = 1, 3000 do n = n + walk(tree, 0) end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 4, "DOWNREC"));
  REQUIRE(find(ps, 3, "LINNER"));  // each's header gets hot through the recursion
}

TEST_CASE("NYIRETL at the return of a looping function called through pcall", "[rules][structural]") {
  auto ps = predict(
      "local function work(n)\n"
      "  local s = 0\n"
      "  for i = 1, n do s = s + i end\n"
      "  return s\n"
      "end\n"
      "local function plain(n) return n + 1 end\n"
      "local total = 0\n"
      "for k = 1, 300 do\n"
      "  local ok, v = pcall(work, 20)\n"
      "  local ok2, w = pcall(plain, 1)\n"
      "  total = total + v + w\n"
      "end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 4, "NYIRETL"));
  REQUIRE_FALSE(find(ps, 6, "NYIRETL"));
}

TEST_CASE("NYIRETL when the pcall runs in a function called from a loop", "[rules][structural]") {
  auto ps = predict(
      "local function work(n)\n"
      "  local s = 0\n"
      "  for i = 1, n do s = s + i end\n"
      "  return s\n"
      "end\n"
      "local function try(n)\n"
      "  local ok, v = pcall(work, n)\n"
      "  return v\n"
      "end\n"
      "local t = 0\n"
      "for k = 1, 300 do t = t + try(50) end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 4, "NYIRETL"));
  REQUIRE(find(ps, 4, "NYIRETL")->reasoning.find("line 7") != std::string::npos);
}

TEST_CASE("DOWNREC only at returns a recursive call reaches, mutual recursion included", "[rules][structural]") {
  auto ps = predict(
      "local visit\n"
      "local function visit_list(list, acc)\n"
      "  for i = 1, #list do acc = visit(list[i], acc) end\n"
      "  return acc\n"
      "end\n"
      "visit = function(node, acc)\n"
      "  if type(node) == 'table' then\n"
      "    return visit_list(node, acc) + 1\n"
      "  end\n"
      "  return acc + node\n"
      "end\n"
      "local n = 0\n"
      "for i = 1, 3000 do n = n + visit({1, {2, 3}}, 0) end\n");
  INFO(listed(ps));
  REQUIRE(find(ps, 4, "DOWNREC"));
  REQUIRE(find(ps, 4, "DOWNREC")->confidence == Confidence::Likely);
  REQUIRE(find(ps, 8, "DOWNREC"));
  REQUIRE_FALSE(find(ps, 10, "DOWNREC"));  // the base case returns without recursing
}

TEST_CASE("UCLO before a return says the parser put it there, not that a local is captured", "[rules][closures]") {
  // parse_return emits UCLO before every return of a function that creates
  // a closure, whether or not a local is captured; a block that ends with a
  // captured local gets its own UCLO.
  auto ps = predict(
      "local M = {}\n"
      "function M.loop(t)\n"
      "  for i = 1, #t do\n"
      "    if t[i] then return function() return 1 end end\n"
      "  end\n"
      "end\n"
      "function M.block(t)\n"
      "  for i = 1, #t do\n"
      "    local x = t[i]\n"
      "    t[i] = function() return x end\n"
      "  end\n"
      "end\n"
      "return M\n");
  INFO(listed(ps));
  const Prediction* ret = find(ps, 4, "NYIBC:UCLO");
  REQUIRE(ret);
  CHECK(ret->message == "upvalues are closed before this return in a loop body (UCLO)");
  CHECK(ret->reasoning.find("closes upvalues before every return of a function that creates closures") !=
        std::string::npos);
  CHECK(ret->reasoning.find("a local of this block is captured") == std::string::npos);
  const Prediction* block = find(ps, 10, "NYIBC:UCLO");  // the VM line of the body's last statement
  REQUIRE(block);
  CHECK(block->message == "a local captured by a closure is closed in this loop body (UCLO)");
  CHECK(block->reasoning.find("a local of this block is captured by a closure") != std::string::npos);
}

TEST_CASE("a loop whose body returns on every path runs once: no loop for its sites", "[rules][loops]") {
  // `while true do return function() ... end end` (moses' iterator
  // factories): the parser still emits the JMP back, after the return, where
  // nothing reaches it. The closure is no closure in a loop body, and there
  // is no inner loop for a trace to meet.
  auto once = predict(
      "local M = {}\n"
      "function M.iter(t)\n"
      "  while true do\n"
      "    return function() return t end\n"
      "  end\n"
      "end\n"
      "return M\n");
  INFO(listed(once));
  REQUIRE(find(once, 4, "NYIBC:FNEW"));
  CHECK(find(once, 4, "NYIBC:FNEW")->context == Context::Function);
  CHECK_FALSE(find(once, 3, "LINNER"));
  // A return on one path only: the test jumps back itself, the JMP after the
  // return is dead, and the loop with its body stays a loop.
  auto loop = predict(
      "local M = {}\n"
      "function M.first(t, keep, n)\n"
      "  local i = 0\n"
      "  while i < n do\n"
      "    i = i + 1\n"
      "    local f = function() return t[i] end\n"
      "    if keep(f) then return f end\n"
      "  end\n"
      "end\n"
      "return M\n");
  INFO(listed(loop));
  REQUIRE(find(loop, 6, "NYIBC:FNEW"));
  CHECK(find(loop, 6, "NYIBC:FNEW")->context == Context::Loop);
}

TEST_CASE("LINNER at a repeat ... until true block whose body aborts, none when it does not", "[rules][structural]") {
  // MoonScript compiles `continue` to `repeat ... until true`. `luajit -jv`
  // shows "inner loop in root trace at :4" for the first, ten times over
  // 50,000 turns; without the closure, once, and then the for loop's root
  // trace compiles with the block in it.
  auto ps = predict(
      "local t, n = {}, 0\n"
      "for i = 1, 50000 do\n"
      "  repeat\n"
      "    if i % 2 == 0 then n = n + 1 break end\n"
      "    t[#t + 1] = function() return 1 end\n"
      "  until true\n"
      "end\n"
      "for i = 1, 50000 do\n"
      "  repeat\n"
      "    if i % 2 == 0 then break end\n"
      "    n = n + i\n"
      "  until true\n"
      "end\n");
  INFO(listed(ps));
  const Prediction* linner = find(ps, 4, "LINNER");
  REQUIRE(linner);
  CHECK(linner->reasoning.find("the block at line 3 runs once per entry") != std::string::npos);
  CHECK(linner->reasoning.find("aborts at line 5") != std::string::npos);
  CHECK(linner->reasoning.find("enclosing loop at line 2") != std::string::npos);
  CHECK_FALSE(find(ps, 10, "LINNER"));

  // A while loop whose body captures one of its locals ends in a UCLO that
  // jumps back itself: a loop that turns, not a once-run block.
  auto turning = predict(
      "local t = {}\n"
      "for i = 1, 50000 do\n"
      "  local j = 0\n"
      "  while true do\n"
      "    local k = j + 1\n"
      "    t[k] = function() return k end\n"
      "    j = k\n"
      "    if j > 3 then break end\n"
      "  end\n"
      "end\n");
  INFO(listed(turning));
  for (const Prediction& p : turning) CHECK(p.reasoning.find("runs once per entry") == std::string::npos);
  REQUIRE(find(turning, 6, "NYIBC:FNEW"));
  CHECK(find(turning, 6, "NYIBC:FNEW")->reasoning.find("the loop at line 4") != std::string::npos);
}

// Every string buffer method sets J->needsnap (recff_sbufx_check), so a
// `return buf:tostring()` after a loop is the side-effect tail call the
// side traces of the loop's exit cannot return from (audit 95: 4 aborts per
// exit on both builds). A function entered at least hotexit times from a
// loop gets a hot exit even when its calls are too few to be hot, and a
// loop over a parameter is likely hot.
TEST_CASE("a string buffer's tostring tail-called after a loop cannot return into its caller",
          "[rules][structural]") {
  auto ps = predict(
      "local buffer = require(\"string.buffer\")\nlocal function render(rows, buf)\n"
      "  for i = 1, #rows do\n    buf:put(rows[i], \",\")\n  end\n  return buf:tostring()\nend\n"
      "local rows = {}\nfor i = 1, 5000 do rows[i] = \"x\" .. i end\nlocal buf = buffer.new()\nlocal n = 0\n"
      "for rep = 1, 40 do buf:reset() n = n + #render(rows, buf) end\n");
  INFO(listed(ps));
  const Prediction* nyiretl = find(ps, 12, "NYIRETL");
  REQUIRE(nyiretl);
  CHECK(nyiretl->confidence == Confidence::Likely);
  CHECK(nyiretl->message.find("buffer.method.__tostring") != std::string::npos);
  // Entered fewer than hotexit (10) times, the loop's exit never gets hot.
  auto few = predict(
      "local buffer = require(\"string.buffer\")\nlocal function render(rows, buf)\n"
      "  for i = 1, #rows do\n    buf:put(rows[i], \",\")\n  end\n  return buf:tostring()\nend\n"
      "local rows = {}\nfor i = 1, 5000 do rows[i] = \"x\" .. i end\nlocal buf = buffer.new()\nlocal n = 0\n"
      "for rep = 1, 4 do buf:reset() n = n + #render(rows, buf) end\n");
  INFO(listed(few));
  CHECK_FALSE(find(few, 12, "NYIRETL"));
}
