// Methods: `obj:m()` and `self:m()` resolve through the class tables a file
// builds (`C.__index = C`, `setmetatable(o, {__index = C})`, inheritance
// through `setmetatable(D, {__index = Base})`), for hotness and callees. A
// name a subclass overrides stays unresolved through `self`.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "test_rules_support.h"

using namespace ljcheck;
using ljcheck::testing::find;
using ljcheck::testing::listed;
using ljcheck::testing::predict;

namespace {
const char* kClass =
    "local C = {}\n"                                        // 1
    "C.__index = C\n"                                       // 2
    "function C.new() return setmetatable({}, C) end\n"     // 3
    "function C:make(k)\n"                                  // 4
    "  return function() return k end\n"                    // 5
    "end\n"                                                 // 6
    "function C:twice(k) return self:make(k) end\n";        // 7

// The closure on line `unsure`, when given, claims neither certain nor an
// error (the code the calls reach is another); the one on line `sure`, when
// given, both.
void checkClaims(const std::vector<Prediction>& ps, int unsure, int sure) {
  INFO(listed(ps));
  if (unsure != 0) {
    const Prediction* doubted = find(ps, unsure, "NYIBC:FNEW");
    REQUIRE(doubted);
    CHECK(doubted->confidence != Confidence::Certain);
    CHECK(doubted->severity != Severity::Blacklist);
  }
  if (sure == 0) return;
  const Prediction* kept = find(ps, sure, "NYIBC:FNEW");
  REQUIRE(kept);
  CHECK(kept->confidence == Confidence::Certain);
  CHECK(kept->severity == Severity::Blacklist);
}
}  // namespace

TEST_CASE("obj:m() from a hot loop makes the method hot: certain", "[rules][methods]") {
  auto ps = predict(std::string(kClass) + "local o = C.new()\nfor i = 1, 50000 do o:make(i) end\n");
  checkClaims(ps, 0, 5);
  CHECK(find(ps, 5, "NYIBC:FNEW")->reasoning.find("make is called from the loop at line 9, which runs 50000 times") !=
        std::string::npos);
}

TEST_CASE("self:m() in a hot method makes m hot", "[rules][methods]") {
  auto ps = predict(std::string(kClass) + "local o = C.new()\nfor i = 1, 100 do o:twice(i) end\n");
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 5, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->confidence == Confidence::Certain);
  CHECK(fnew->reasoning.find("C:make is called at line 7 from C:twice") != std::string::npos);
}

TEST_CASE("a method found through {__index = C} and through an inherited class", "[rules][methods]") {
  auto ps = predict(std::string(kClass) +
                    "local D = setmetatable({}, {__index = C})\n"                 // 8
                    "local o = setmetatable({}, {__index = D})\n"                 // 9
                    "for i = 1, 100 do o:make(i) end\n");                         // 10
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 5, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->confidence == Confidence::Certain);
}

TEST_CASE("a method a subclass overrides is not resolved through self", "[rules][methods]") {
  auto ps = predict(std::string(kClass) +
                    "local D = setmetatable({}, {__index = C})\n"                 // 8
                    "D.__index = D\n"                                             // 9
                    "function D:make(k) return k end\n"                           // 10
                    "local o = setmetatable({}, D)\n"                             // 11
                    "for i = 1, 100 do o:twice(i) end\n");                        // 12
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 5, "NYIBC:FNEW");
  REQUIRE(fnew);  // C.make escapes (it is stored in a table): a note, never claimed hot through self
  CHECK(fnew->severity == Severity::Info);
  CHECK(fnew->reasoning.find("make escapes, so code elsewhere may call it hot") != std::string::npos);
}

TEST_CASE("a method called from a short constant loop stays cold", "[rules][methods]") {
  auto ps = predict(std::string(kClass) + "local o = C.new()\nfor i = 1, 3 do o:make(i) end\n");
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 5, "NYIBC:FNEW");
  REQUIRE(fnew);  // make and twice escape (stored in C): a note, as without the loop
  CHECK(fnew->severity == Severity::Info);
  CHECK(fnew->reasoning.find("which escapes, so code elsewhere may call it hot") != std::string::npos);
}

TEST_CASE("a module function called from a loop in the main chunk that defines it", "[rules][methods]") {
  auto ps = predict("local M = {}\nfunction M.f(x)\n  return function() return x end\nend\n"
                    "for i = 1, 100 do M.f(i) end\nreturn M\n");
  INFO(listed(ps));
  const Prediction* fnew = find(ps, 3, "NYIBC:FNEW");
  REQUIRE(fnew);
  CHECK(fnew->confidence == Confidence::Certain);
  CHECK(fnew->reasoning.find("f is called from the loop at line 5, which runs 100 times") != std::string::npos);
}

TEST_CASE("an object a method gives another metatable has no resolved methods", "[rules][methods]") {
  // Audit 65: a state machine, `return setmetatable(self, Chasing)` in
  // Spawning:update, which then runs once: `-jv` shows no abort at its
  // closure. Timer's objects keep their class: its method stays certain.
  auto ps = predict("local Spawning, Chasing = {}, {}\n"                                 // 1
                    "Spawning.__index = Spawning\n"                                      // 2
                    "Chasing.__index = Chasing\n"                                        // 3
                    "function Spawning:update(w)\n"                                      // 4
                    "  self.hook = function() return w end\n"                            // 5
                    "  return setmetatable(self, Chasing)\n"                             // 6
                    "end\n"                                                              // 7
                    "function Chasing:update(w) return self end\n"                       // 8
                    "local Timer = {}\n"                                                 // 9
                    "Timer.__index = Timer\n"                                            // 10
                    "function Timer:tick(dt) local f = function() return dt end end\n"   // 11
                    "local e = setmetatable({}, Spawning)\n"                             // 12
                    "for i = 1, 50000 do e:update(1) end\n"                              // 13
                    "local t = setmetatable({}, Timer)\n"                                // 14
                    "for i = 1, 50000 do t:tick(1) end\n");                              // 15
  INFO(listed(ps));
  const Prediction* swapped = find(ps, 5, "NYIBC:FNEW");
  REQUIRE(swapped);
  CHECK(swapped->confidence != Confidence::Certain);
  CHECK(swapped->severity == Severity::Info);
  const Prediction* kept = find(ps, 11, "NYIBC:FNEW");
  REQUIRE(kept);
  CHECK(kept->confidence == Confidence::Certain);
  CHECK(kept->severity == Severity::Blacklist);
}

TEST_CASE("a nil metatable is no other class", "[rules][methods]") {
  // Audit 67: an object pool's release() does setmetatable(self, nil)
  // after the loop; the loop's method runs Pooled's: `-jv` blacklists it.
  auto ps = predict("local Pooled = {}\n"                                                 // 1
                    "Pooled.__index = Pooled\n"                                           // 2
                    "function Pooled:step(dt) local f = function() return dt end end\n"   // 3
                    "function Pooled:release() return setmetatable(self, nil) end\n"      // 4
                    "local o = setmetatable({}, Pooled)\n"                                // 5
                    "for i = 1, 50000 do o:step(1) end\n"                                 // 6
                    "o:release()\n");                                                     // 7
  checkClaims(ps, 0, 3);
}

TEST_CASE("a method a Programming-in-Lua subclass defines again is not resolved through self", "[rules][methods]") {
  // Audit 67: SpecialAccount = Account:new() is an object of Account and a
  // class of its own; its withdraw replaces Account's for its objects, so
  // Account:process's self:withdraw() never runs Account's closure (`-jv`:
  // no abort; it was an error). deposit, which nothing replaces, blacklists.
  auto ps = predict("local Account = {}\n"                                                    // 1
                    "Account.__index = Account\n"                                             // 2
                    "function Account:new(o)\n"                                               // 3
                    "  o = o or {}\n"                                                         // 4
                    "  setmetatable(o, self)\n"                                               // 5
                    "  self.__index = self\n"                                                 // 6
                    "  return o\n"                                                            // 7
                    "end\n"                                                                   // 8
                    "function Account:withdraw(v) local f = function() return v end end\n"    // 9
                    "function Account:deposit(v) local f = function() return v end end\n"     // 10
                    "function Account:process()\n"                                            // 11
                    "  for i = 1, 50000 do self:deposit(1); self:withdraw(1) end\n"           // 12
                    "end\n"                                                                   // 13
                    "local Special = Account:new()\n"                                         // 14
                    "function Special:withdraw(v) self.b = v end\n"                           // 15
                    "Special:new():process()\n");                                             // 16
  checkClaims(ps, 9, 10);
}

TEST_CASE("a method a helper stores into the object it is given is not resolved", "[rules][methods]") {
  // Audit 67: make_static(rock) stores rock.paint, so rock:paint() runs
  // that function, never Sprite's closure (it was an error); rock:step()
  // runs Sprite's and blacklists.
  auto ps = predict("local Sprite = {}\n"                                                     // 1
                    "Sprite.__index = Sprite\n"                                               // 2
                    "function Sprite.new() return setmetatable({ f = 0 }, Sprite) end\n"     // 3
                    "function Sprite:paint() local g = function() return 1 end end\n"        // 4
                    "function Sprite:step() local g = function() return 2 end end\n"         // 5
                    "local function make_static(s) s.paint = function() end end\n"           // 6
                    "local rock = Sprite.new()\n"                                             // 7
                    "make_static(rock)\n"                                                     // 8
                    "for i = 1, 50000 do rock:step(); rock:paint() end\n");                  // 9
  checkClaims(ps, 4, 5);
}

TEST_CASE("a helper that gives any object any class leaves no method resolved", "[rules][methods]") {
  // Audit 67: transition(self, Chasing) sets the metatable through a
  // helper; Spawning:update runs once (it was an error). A constructor
  // that gives its argument its own class, setmetatable(o, Timer), is no
  // such helper: in a file without one, Timer:tick stays certain.
  auto ps = predict("local function transition(obj, state) return setmetatable(obj, state) end\n"  // 1
                    "local Spawning, Chasing = {}, {}\n"                                          // 2
                    "Spawning.__index = Spawning\n"                                               // 3
                    "Chasing.__index = Chasing\n"                                                 // 4
                    "function Spawning:update(w)\n"                                               // 5
                    "  local hook = function() return w end\n"                                    // 6
                    "  return transition(self, Chasing)\n"                                        // 7
                    "end\n"                                                                       // 8
                    "function Chasing:update(w) return self end\n"                                // 9
                    "local e = setmetatable({}, Spawning)\n"                                      // 10
                    "for i = 1, 50000 do e:update(1) end\n");                                     // 11
  checkClaims(ps, 6, 0);
  auto own = predict("local Timer = {}\n"                                                         // 1
                     "Timer.__index = Timer\n"                                                    // 2
                     "function Timer.new(o) o = o or {}; return setmetatable(o, Timer) end\n"     // 3
                     "function Timer:tick(dt) local f = function() return dt end end\n"           // 4
                     "local t = Timer.new({ t = 0 })\n"                                           // 5
                     "for i = 1, 50000 do t:tick(1) end\n");                                      // 6
  checkClaims(own, 0, 4);
}

TEST_CASE("a closure appended to a list is no method stored into an object", "[rules][methods]") {
  // Audit 72: `ctx.deferred[#ctx.deferred + 1] = function ... end` in a
  // method put every method in doubt (a key the bytecode does not name);
  // `#t + 1` is a number, an array slot. The loop's method stays certain.
  auto ps = predict("local Base = {}\n"                                                          // 1
                    "Base.__index = Base\n"                                                      // 2
                    "function Base:access(ctx)\n"                                                // 3
                    "  ctx.deferred[#ctx.deferred + 1] = function() ctx.logged = true end\n"     // 4
                    "end\n"                                                                      // 5
                    "local b = setmetatable({}, Base)\n"                                         // 6
                    "for i = 1, 50000 do b:access({ deferred = {} }) end\n");                    // 7
  checkClaims(ps, 0, 4);
}

TEST_CASE("a list's push into itself is no method stored, a name its caller passes is", "[rules][methods]") {
  // The accuracy workloads' List: `self[self.n] = v` stores an element
  // (its key a count, not a name); a method of the class stays certain.
  // `obj[name] = fn` with both from the caller installs any method
  // (audit 69): the method the loop calls is in doubt.
  const std::string cls = "local List = {}\n"                                                   // 1
                          "List.__index = List\n"                                               // 2
                          "function List:push(v) self.n = self.n + 1; self[self.n] = v end\n"   // 3
                          "function List:each(f) local g = function() return f end end\n";     // 4
  auto ps = predict(cls + "local l = setmetatable({ n = 0 }, List)\n"                           // 5
                          "l:push(1)\n"                                                         // 6
                          "for i = 1, 50000 do l:each(i) end\n");                               // 7
  checkClaims(ps, 0, 4);
  auto installed = predict(cls + "local function override(obj, name, fn) obj[name] = fn end\n"  // 5
                                 "local l = setmetatable({ n = 0 }, List)\n"                    // 6
                                 "override(l, 'each', function() end)\n"                        // 7
                                 "for i = 1, 50000 do l:each(i) end\n");                        // 8
  checkClaims(installed, 4, 0);
}

TEST_CASE("a mixin copied in with pairs, or a new __index, leaves methods unresolved", "[rules][methods]") {
  // Audit 73: `for k, v in pairs(mix) do cls[k] = v end` copies a mixin's
  // access over the class's; `getmetatable(o).__index = Fast` swaps a
  // class. Both were errors for closures `-jv` never sees.
  const std::string cls = "local Base = {}\n"                                                     // 1
                          "Base.__index = Base\n"                                                 // 2
                          "function Base:access(n) local f = function() return n end end\n"       // 3
                          "function Base:run() for i = 1, 50000 do self:access(i) end end\n";     // 4
  auto mixed = predict(cls + "local function include(c, mix) for k, v in pairs(mix) do c[k] = v end end\n"
                             "local Echo = setmetatable({}, { __index = Base })\n"
                             "Echo.__index = Echo\n"
                             "include(Echo, { access = function() end })\n"
                             "setmetatable({}, Echo):run()\n");
  checkClaims(mixed, 3, 0);
  auto swapped = predict(cls + "local o = setmetatable({}, Base)\n"
                               "local function swap(x, to) getmetatable(x).__index = to end\n"
                               "swap(o, { access = function() end, run = Base.run })\n"
                               "o:run()\n");
  checkClaims(swapped, 3, 0);
}

TEST_CASE("a global function the file stores again through _G stands for no function", "[rules][methods]") {
  // Audit 74: `_G.on_frame = fn`, rawset(_G, ...) and a helper's
  // `_G[name] = fn` replace the global before the loop.
  for (const char* store : {"_G.on_frame = function() end\n", "rawset(_G, 'on_frame', function() end)\n",
                            "local function set(name, f) _G[name] = f end\nset('on_frame', function() end)\n"}) {
    INFO(store);
    auto ps = predict(std::string("function on_frame(n) local f = function() return n end end\n") + store +
                      "for i = 1, 50000 do on_frame(i) end\n");
    checkClaims(ps, 1, 0);
  }
  auto kept = predict("function on_frame(n) local f = function() return n end end\n"
                      "for i = 1, 50000 do on_frame(i) end\n");
  checkClaims(kept, 0, 1);
}

TEST_CASE("a member of a table handed to a helper that stores into it stands for no function", "[rules][methods]") {
  // Audit 74: `override(M, "update", fn)` replaces M.update before the
  // loop; so does a helper that stores under a key it names.
  const std::string module = "local M = {}\n"                                                 // 1
                             "function M.update(dt) local f = function() return dt end end\n"  // 2
                             "function M.draw(dt) local g = function() return dt end end\n";   // 3
  const std::string loop = "for i = 1, 50000 do M.update(i) end\nfor i = 1, 50000 do M.draw(i) end\n";
  auto anyKey = predict(module + "local function override(t, name, fn) t[name] = fn end\n"
                                 "override(M, 'update', function() end)\n" + loop);
  checkClaims(anyKey, 2, 0);
  checkClaims(anyKey, 3, 0);
  auto namedKey = predict(module + "local function patch(t, fn) t.update = fn end\n"
                                   "patch(M, function() end)\n" + loop);
  checkClaims(namedKey, 2, 3);
  // A helper that only reads the table it is handed changes no member.
  auto reads = predict(module + "local function count(t) local n = 0 for _ in pairs(t) do n = n + 1 end return n end\n"
                                "assert(count(M) == 2)\n" + loop);
  checkClaims(reads, 0, 2);
  checkClaims(reads, 0, 3);
}

TEST_CASE("a constructor that gives the table it is handed its own class re-parents nothing", "[rules][methods]") {
  // `function C.new(o) return setmetatable(o, {__index = C}) end`: objects
  // of C, not a class handed over; `o:make()` in a loop stays certain.
  auto ps = predict("local C = {}\n"                                                        // 1
                    "function C.new(o) return setmetatable(o, {__index = C}) end\n"         // 2
                    "function C:make(n) local f = function() return n end end\n"            // 3
                    "local o = C.new({})\n"                                                 // 4
                    "for i = 1, 50000 do o:make(i) end\n");                                 // 5
  checkClaims(ps, 0, 3);
}
