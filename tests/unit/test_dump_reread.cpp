// Reading a document's dump again after an edit (ljcheck/dump_reread.h)
// takes the unchanged prototypes over from the last read and still gives
// exactly what a fresh readDump of the new dump gives.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <variant>

#include "ljcheck/bytecode.h"
#include "ljcheck/compile.h"
#include "ljcheck/dump_reread.h"
#include "ljcheck/profile.h"
#include "../support/opcodes.h"
#include "../support/text_edits.h"

using namespace ljcheck::bytecode;

using ljcheck::testing::profileOpcodes;
using ljcheck::testing::replaced;

namespace {

std::string compiled(const std::string& source) {
  ljcheck::LuaCompiler compiler;
  auto result = compiler.compile(source, "edited.lua");
  REQUIRE(result.ok());
  return result.dump;
}

// Every field of every prototype, as text.
std::string describeChunk(const Chunk& chunk) {
  std::ostringstream out;
  out << chunk.chunkName << ' ' << chunk.stripped << chunk.bigEndian << chunk.fr2 << chunk.ffi << '\n';
  for (const Prototype& p : chunk.prototypes) {
    out << "proto flags " << int(p.flags) << " params " << int(p.numparams) << " frame " << int(p.framesize)
        << " lines " << p.firstline << '+' << p.numline << " parent " << p.parent << " children";
    for (std::size_t c : p.children) out << ' ' << c;
    out << "\n code";
    for (const Instruction& i : p.code)
      out << ' ' << opName(i.op) << '/' << int(i.raw) << ':' << int(i.a) << ',' << int(i.b) << ',' << int(i.c) << ','
          << i.d << '@' << i.line;
    out << "\n upvalues";
    for (const UpvalueRef& u : p.upvalues) out << ' ' << u.parentLocal << u.immutable << u.index;
    for (const std::string& n : p.upvalueNames) out << ' ' << n;
    out << "\n gc";
    for (const GcConstant& k : p.gc) {
      out << ' ' << int(k.kind) << ':' << k.str << ':' << k.child << ':' << k.bits << ':' << k.re << ':' << k.im << ':'
          << k.table.array.size() << '/' << k.table.hash.size();
    }
    out << "\n num";
    for (const NumConstant& n : p.num) out << ' ' << n.isInteger << ':' << n.integer << ':' << n.number;
    out << "\n vars";
    for (const VarInfo& v : p.vars) out << ' ' << v.name << ':' << v.startpc << '-' << v.endpc;
    out << '\n';
  }
  return out.str();
}

const std::string kModule =
    "local M = {}\n"
    "function M.a(t, n)\n"
    "  local s = 0\n"
    "  for i = 1, n do s = s + t[i] * 2 end\n"
    "  return s\n"
    "end\n"
    "function M.b(t, n)\n"
    "  for i = 1, n do t[i] = function() return i + 7 end end\n"
    "end\n"
    "function M.c(x) return x .. 'c' end\n"
    "return M\n";

}  // namespace

TEST_CASE("an edit inside one function decodes only that function's prototype", "[bytecode]") {
  DumpRereader reader;
  const std::string before = compiled(kModule);
  Chunk first = reader.read(before, profileOpcodes(), "edited.lua");
  CHECK(reader.reused() == 0);
  CHECK(describeChunk(first) == describeChunk(readDump(before, profileOpcodes(), "edited.lua")));
  const std::size_t prototypes = first.prototypes.size();
  reader.keep(std::move(first));

  const std::string after = compiled(replaced(kModule, "* 2", "* 3"));  // a constant of M.a
  Chunk second = reader.read(after, profileOpcodes(), "edited.lua");
  CHECK(reader.decoded() == 1);
  CHECK(reader.reused() == prototypes - 1);
  CHECK(describeChunk(second) == describeChunk(readDump(after, profileOpcodes(), "edited.lua")));
}

TEST_CASE("a re-read after edits that move, add and remove prototypes equals a fresh read", "[bytecode]") {
  const std::string edits[] = {
      replaced(kModule, "i + 7", "i + 8"),                                      // the closure inside M.b
      replaced(kModule, "local M = {}\n", "local M = {}\nlocal unused = 1\n"),  // every line moves
      replaced(kModule, "function M.c(x)", "function M.c(x) local f = function() end"),  // one more prototype
      replaced(kModule, "  for i = 1, n do t[i] = function() return i + 7 end end\n", ""),  // one fewer
      kModule,
  };
  DumpRereader reader;
  Chunk last = reader.read(compiled(kModule), profileOpcodes(), "edited.lua");
  for (const std::string& source : edits) {
    CAPTURE(source);
    reader.keep(std::move(last));
    const std::string dump = compiled(source);
    last = reader.read(dump, profileOpcodes(), "edited.lua");
    CHECK(describeChunk(last) == describeChunk(readDump(dump, profileOpcodes(), "edited.lua")));
  }
}

TEST_CASE("a re-read without the last chunk handed back decodes everything, and errors are readDump's", "[bytecode]") {
  DumpRereader reader;
  const std::string dump = compiled(kModule);
  Chunk chunk = reader.read(dump, profileOpcodes(), "edited.lua");
  const std::size_t prototypes = chunk.prototypes.size();
  chunk = reader.read(dump, profileOpcodes(), "edited.lua");  // the first chunk not kept
  CHECK(reader.reused() == 0);
  reader.keep(std::move(chunk));
  std::string cut = dump.substr(0, dump.size() - 3);
  std::string expected;
  try {
    readDump(cut, profileOpcodes(), "edited.lua");
  } catch (const DumpError& e) {
    expected = e.what();
  }
  REQUIRE(!expected.empty());
  CHECK_THROWS_WITH(reader.read(cut, profileOpcodes(), "edited.lua"), expected);
  reader.read(dump, profileOpcodes(), "edited.lua");  // after an error: nothing to take over
  CHECK(reader.decoded() == prototypes);
}
