// The embedded LuaJIT front end: source in, dump or LuaJIT's own syntax error out.
#include <algorithm>
#include <catch2/catch.hpp>

#include "ljcheck/compile.h"

using ljcheck::CompileResult;
using ljcheck::LuaCompiler;

TEST_CASE("a good chunk compiles to a LuaJIT bytecode dump", "[compile]") {
  LuaCompiler compiler;
  const CompileResult result = compiler.compile("local x = ... return x + 1\n", "fixtures/ok.lua");
  REQUIRE(result.ok());
  CHECK(result.dump.rfind("\x1bLJ", 0) == 0);
  CHECK(result.dump.find("@fixtures/ok.lua") != std::string::npos);  // debug info kept
}

TEST_CASE("a syntax error comes back with LuaJIT's message and its line", "[compile]") {
  LuaCompiler compiler;
  const CompileResult result = compiler.compile("local a = 1\n\nlocal = 2\n", "fixtures/x.lua");
  REQUIRE(!result.ok());
  CHECK(result.dump.empty());
  CHECK(result.error->message == "fixtures/x.lua:3: '<name>' expected near '='");
  CHECK(result.error->line == 3);

  const CompileResult unfinished = compiler.compile("for i = 1, 2 do\n  print(i)\n", "loop.lua");
  REQUIRE(!unfinished.ok());
  CHECK(unfinished.error->message == "loop.lua:3: 'end' expected (to close 'for' at line 1) near '<eof>'");
  CHECK(unfinished.error->line == 3);
}

TEST_CASE("the error line is found even when LuaJIT shortens a long chunk name", "[compile]") {
  LuaCompiler compiler;
  const std::string path = "very/" + std::string(80, 'd') + "/deep.lua";
  const CompileResult result = compiler.compile("x = \n\n\n\n", path);
  REQUIRE(!result.ok());
  CHECK(result.error->message.rfind("...", 0) == 0);
  CHECK(result.error->line == 5);
}

TEST_CASE("the compiler accepts a shebang line and FFI literals, and refuses precompiled chunks",
          "[compile]") {
  LuaCompiler compiler;
  CHECK(compiler.compile("#!/usr/bin/env luajit\nreturn 1\n", "script.lua").ok());
  CHECK(compiler.compile("return 1LL, 2ULL, 3i\n", "ffi.lua").ok());
  const CompileResult ok = compiler.compile("return 1\n", "one.lua");
  REQUIRE(ok.ok());
  const CompileResult binary = compiler.compile(ok.dump, "one.luac");
  REQUIRE(!binary.ok());
  CHECK(binary.error->message == "attempt to load chunk with wrong mode");
  CHECK(binary.error->line == 0);
}

TEST_CASE("a compiler that met FFI literals still closes cleanly after a full GC", "[compile]") {
  {
    LuaCompiler compiler;
    REQUIRE(compiler.compile("return 1LL\n", "ffi.lua").ok());
    for (int i = 0; i < 200; ++i)
      REQUIRE(compiler.compile("return {" + std::to_string(i) + "}", "gc.lua").ok());
    REQUIRE(compiler.compile("return 2ULL, 3i\n", "ffi2.lua").ok());
  }  // lua_close runs the FFI's finalizers here
  SUCCEED();
}

TEST_CASE("one compiler serves thousands of files", "[compile]") {
  LuaCompiler compiler;
  for (int i = 0; i < 3000; ++i) {
    const std::string source =
        "local t = {'file" + std::to_string(i) + "', " + std::to_string(i) + ".5}\nreturn t\n";
    const CompileResult result = compiler.compile(source, "many/" + std::to_string(i) + ".lua");
    REQUIRE(result.ok());
    if (i % 2 == 0) REQUIRE(!compiler.compile("return return", "bad.lua").ok());
  }
}

TEST_CASE("bytecode names come from this VM's jit.vmdef", "[compile]") {
  const std::vector<std::string> names = LuaCompiler().bytecodeNames();
  REQUIRE(names.size() == 97);
  CHECK(names.front() == "ISLT");
  CHECK(names.back() == "FUNCCW");
  CHECK(std::find(names.begin(), names.end(), "FNEW") != names.end());
  CHECK(std::none_of(names.begin(), names.end(),
                     [](const std::string& n) { return n.empty() || n.back() == ' '; }));
}
