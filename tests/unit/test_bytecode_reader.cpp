// The dump reader against LuaJIT's own view of the same code: every
// instruction, constant, line and upvalue name of every prototype, as
// jit.util reports them from a live lua_State, plus a byte-exact re-encoding
// of each dump and the malformed inputs the reader must refuse.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "ljcheck/bytecode.h"
#include "ljcheck/compile.h"
#include "ljcheck/profile.h"
#include "../support/process.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace fs = std::filesystem;
using namespace ljcheck::bytecode;
using Catch::Matchers::Contains;
using ljcheck::testing::readFile;

namespace {

const std::vector<std::string>& bytecodeNames() {
  static const std::vector<std::string> names = ljcheck::LuaCompiler().bytecodeNames();
  return names;
}

const OpcodeTable& opcodes() {
  static const OpcodeTable table(bytecodeNames());
  return table;
}

std::string compileOrFail(std::string_view source, std::string_view path) {
  static ljcheck::LuaCompiler compiler;
  ljcheck::CompileResult result = compiler.compile(source, path);
  INFO(path << ": " << (result.error ? result.error->message : ""));
  REQUIRE(result.ok());
  return result.dump;
}

std::string dumpErrorOf(std::string_view bytes, std::string_view name, const ReadOptions& options = {}) {
  try {
    readDump(bytes, opcodes(), name, options);
  } catch (const DumpError& e) {
    return e.what();
  }
  return "";
}

// ---- One canonical text per prototype, written from both sides -------------

std::string hexOf(std::string_view s) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string bitsOf(double d) {
  std::uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return std::to_string(bits);
}

std::string tableValueText(const TableValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return "nil";
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const std::int64_t* i = std::get_if<std::int64_t>(&v)) return "n" + bitsOf(static_cast<double>(*i));
  if (const double* d = std::get_if<double>(&v)) return "n" + bitsOf(*d);
  return "s" + hexOf(std::get<std::string>(v));
}

std::string gcText(const GcConstant& k) {
  switch (k.kind) {
    case GcConstant::Kind::Child:
      return "child " + std::to_string(k.child);
    case GcConstant::Kind::Int64:
      return "i64 " + std::to_string(k.bits);
    case GcConstant::Kind::UInt64:
      return "u64 " + std::to_string(k.bits);
    case GcConstant::Kind::Complex:
      return "complex " + bitsOf(k.re) + " " + bitsOf(k.im);
    case GcConstant::Kind::String:
      return "str " + hexOf(k.str);
    case GcConstant::Kind::Table:
      break;
  }
  std::vector<std::string> items;
  for (std::size_t i = 0; i < k.table.array.size(); ++i) {
    if (std::holds_alternative<std::monostate>(k.table.array[i])) continue;
    const TableValue key(std::in_place_type<double>, static_cast<double>(i));
    items.push_back(tableValueText(key) + "=" + tableValueText(k.table.array[i]));
  }
  for (const auto& [key, value] : k.table.hash)
    items.push_back(tableValueText(key) + "=" + tableValueText(value));
  std::sort(items.begin(), items.end());
  std::string out = "tab ";
  for (const std::string& item : items) out += item + ",";
  return out;
}

std::vector<std::string> describe(const Chunk& chunk) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < chunk.prototypes.size(); ++i) {
    const Prototype& pt = chunk.prototypes[i];
    std::ostringstream head;
    head << "proto " << i << " params=" << int{pt.numparams} << " framesize=" << int{pt.framesize}
         << " vararg=" << pt.isVararg() << " child=" << ((pt.flags & Prototype::HasChild) != 0)
         << " lines=" << pt.firstline << ".." << pt.lastline() << " uv=" << pt.upvalues.size()
         << " gc=" << pt.gc.size() << " kn=" << pt.num.size() << " bc=" << pt.code.size();
    out.push_back(head.str());
    for (int pc = 1; pc <= pt.size(); ++pc) {
      const Instruction& ins = pt.at(pc);
      std::ostringstream line;
      line << "bc " << pc << " op=" << int{ins.raw} << " a=" << int{ins.a} << " b=" << int{ins.b}
           << " c=" << int{ins.c} << " d=" << ins.d << " line=" << ins.line;
      out.push_back(line.str());
    }
    for (std::size_t u = 0; u < pt.upvalues.size(); ++u) {
      out.push_back("uv " + std::to_string(u) + " " +
                    hexOf(u < pt.upvalueNames.size() ? pt.upvalueNames[u] : ""));
    }
    for (std::size_t d = 0; d < pt.gc.size(); ++d)
      out.push_back("kgc " + std::to_string(d) + " " + gcText(pt.gc[d]));
    for (std::size_t n = 0; n < pt.num.size(); ++n) {
      out.push_back("kn " + std::to_string(n) + " " + bitsOf(pt.num[n].value()));
    }
  }
  return out;
}

// The same text, from LuaJIT: prototypes children first in constant order,
// which is the order lj_bcwrite.c writes them in.
const char* const kDescriber = R"lua(
local util, bit, ffi = require("jit.util"), require("bit"), require("ffi")
local band, rshift = bit.band, bit.rshift
local U = ffi.typeof("union { double d; uint64_t u; }")
local function bits(x) local u = U(); u.d = x; return (tostring(u.u):gsub("ULL$", "")) end
local function u64(x) return (tostring(ffi.cast("uint64_t", x)):gsub("ULL$", "")) end
local function hex(s) return (s:gsub(".", function(c) return ("%02x"):format(c:byte()) end)) end
local function value(x)
  local t = type(x)
  if t == "nil" or t == "boolean" then return tostring(x) end
  if t == "number" then return "n" .. bits(x) end
  return "s" .. hex(x)
end
local function gctext(k, index)
  if type(k) == "proto" then return "child " .. index[k] end
  if type(k) == "string" then return "str " .. hex(k) end
  if type(k) == "table" then
    local items = {}
    for key, v in pairs(k) do items[#items + 1] = value(key) .. "=" .. value(v) end
    table.sort(items)
    return "tab " .. (#items > 0 and table.concat(items, ",") .. "," or "")
  end
  if ffi.istype("int64_t", k) then return "i64 " .. u64(k) end
  if ffi.istype("uint64_t", k) then return "u64 " .. u64(k) end
  if ffi.istype("complex", k) then return "complex " .. bits(k.re) .. " " .. bits(k.im) end
  return "unknown " .. tostring(k)
end
function describe(main)
  local out, index, count = {}, {}, 0
  local function walk(pt)
    local info = util.funcinfo(pt)
    for d = 0, info.gcconsts - 1 do
      local k = util.funck(pt, -1 - d)
      if type(k) == "proto" then walk(k) end
    end
    index[pt] = count; count = count + 1
    out[#out + 1] = ("proto %d params=%d framesize=%d vararg=%d child=%d lines=%d..%d uv=%d gc=%d kn=%d bc=%d")
      :format(index[pt], info.params, info.stackslots, info.isvararg and 1 or 0, info.children and 1 or 0,
      info.linedefined, info.lastlinedefined, info.upvalues, info.gcconsts, info.nconsts, info.bytecodes - 1)
    for pc = 1, info.bytecodes - 1 do
      local ins = util.funcbc(pt, pc)
      local line = util.funcinfo(pt, pc).currentline
      if line == -1 then line = 0 end  -- no line info: ljcheck says 0
      out[#out + 1] = ("bc %d op=%d a=%d b=%d c=%d d=%d line=%d"):format(pc, band(ins, 0xff),
        band(rshift(ins, 8), 0xff), rshift(ins, 24), band(rshift(ins, 16), 0xff), rshift(ins, 16), line)
    end
    for u = 0, info.upvalues - 1 do out[#out + 1] = ("uv %d %s"):format(u, hex(util.funcuvname(pt, u))) end
    for d = 0, info.gcconsts - 1 do
      out[#out + 1] = ("kgc %d %s"):format(d, gctext(util.funck(pt, -1 - d), index))
    end
    for n = 0, info.nconsts - 1 do out[#out + 1] = ("kn %d %s"):format(n, bits(util.funck(pt, n))) end
  end
  walk(main)
  return table.concat(out, "\n")
end
)lua";

// A live LuaJIT with the JIT off, so no trace ever patches an instruction.
class LuaJitView {
 public:
  LuaJitView() : L(luaL_newstate()) {
    luaL_openlibs(L);
    const char* init = "jit.off()";
    if (luaL_dostring(L, init) != 0 || luaL_dostring(L, kDescriber) != 0) FAIL(lua_tostring(L, -1));
  }
  ~LuaJitView() { lua_close(L); }
  LuaJitView(const LuaJitView&) = delete;
  LuaJitView& operator=(const LuaJitView&) = delete;

  // Loads source or a dump under `chunkName` and describes it.
  std::vector<std::string> describe(std::string_view code, const std::string& chunkName) {
    lua_settop(L, 0);
    lua_getglobal(L, "describe");
    if (luaL_loadbuffer(L, code.data(), code.size(), chunkName.c_str()) != 0 || lua_pcall(L, 1, 1, 0) != 0) {
      FAIL(lua_tostring(L, -1));
    }
    std::vector<std::string> lines;
    std::istringstream text(lua_tostring(L, -1));
    for (std::string line; std::getline(text, line);) lines.push_back(line);
    lua_settop(L, 0);
    return lines;
  }

  std::string evalString(const char* code) {
    lua_settop(L, 0);
    if (luaL_dostring(L, code) != 0) FAIL(lua_tostring(L, -1));
    size_t n = 0;
    const char* s = lua_tolstring(L, -1, &n);
    std::string out(s, n);
    lua_settop(L, 0);
    return out;
  }

 private:
  lua_State* L;
};

LuaJitView& luajit() {
  static LuaJitView view;
  return view;
}

void requireSameLines(const std::vector<std::string>& ours, const std::vector<std::string>& theirs,
                      const std::string& name) {
  INFO(name);
  for (std::size_t i = 0; i < std::min(ours.size(), theirs.size()); ++i) {
    if (ours[i] != theirs[i]) REQUIRE(ours[i] == theirs[i]);
  }
  REQUIRE(ours.size() == theirs.size());
}

// ---- A re-encoder, to show the reader accounts for every byte ----------------

class Encoder {
 public:
  explicit Encoder(bool bigEndian) : bigEndian_(bigEndian) {}

  std::string encode(const Chunk& chunk) {
    out_ = "\x1bLJ\x02";
    out_ += static_cast<char>((bigEndian_ ? 1 : 0) | (chunk.stripped ? 2 : 0) | (chunk.ffi ? 4 : 0) |
                              (chunk.fr2 ? 8 : 0));
    if (!chunk.stripped) uleb(static_cast<std::uint32_t>(chunk.chunkName.size())), out_ += chunk.chunkName;
    std::string dump = std::move(out_);
    for (const Prototype& pt : chunk.prototypes) {
      out_.clear();
      prototype(pt, chunk.stripped);
      std::string body = std::move(out_);
      out_.clear();
      uleb(static_cast<std::uint32_t>(body.size()));
      dump += out_ + body;
    }
    return dump + '\0';  // end-of-dump marker
  }

 private:
  void uleb(std::uint32_t v) {
    for (; v >= 0x80; v >>= 7) out_ += static_cast<char>((v & 0x7f) | 0x80);
    out_ += static_cast<char>(v);
  }
  void raw(std::uint32_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) {
      const int shift = 8 * (bigEndian_ ? bytes - 1 - i : i);
      out_ += static_cast<char>((v >> shift) & 0xff);
    }
  }
  void words(double d) {
    std::uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    uleb(static_cast<std::uint32_t>(bits)), uleb(static_cast<std::uint32_t>(bits >> 32));
  }
  void tableValue(const TableValue& v) {
    if (std::holds_alternative<std::monostate>(v)) return uleb(0);
    if (const bool* b = std::get_if<bool>(&v)) return uleb(*b ? 2 : 1);
    if (const std::int64_t* i = std::get_if<std::int64_t>(&v))
      return uleb(3), uleb(static_cast<std::uint32_t>(*i));
    if (const double* d = std::get_if<double>(&v)) return uleb(4), words(*d);
    const std::string& s = std::get<std::string>(v);
    uleb(static_cast<std::uint32_t>(5 + s.size())), out_ += s;
  }
  void gc(const GcConstant& k) {
    switch (k.kind) {
      case GcConstant::Kind::Child:
        return uleb(0);
      case GcConstant::Kind::Int64:
      case GcConstant::Kind::UInt64:
        uleb(k.kind == GcConstant::Kind::Int64 ? 2 : 3);
        return uleb(static_cast<std::uint32_t>(k.bits)), uleb(static_cast<std::uint32_t>(k.bits >> 32));
      case GcConstant::Kind::Complex:
        return uleb(4), words(k.re), words(k.im);
      case GcConstant::Kind::String:
        return uleb(static_cast<std::uint32_t>(5 + k.str.size())), void(out_ += k.str);
      case GcConstant::Kind::Table:
        uleb(1), uleb(static_cast<std::uint32_t>(k.table.array.size()));
        uleb(static_cast<std::uint32_t>(k.table.hash.size()));
        for (const TableValue& v : k.table.array) tableValue(v);
        for (const auto& [key, value] : k.table.hash) tableValue(key), tableValue(value);
    }
  }
  void number(const NumConstant& k) {  // lj_bcwrite.c: bcwrite_knum
    std::uint64_t bits;
    std::memcpy(&bits, &k.number, sizeof bits);
    const auto lo = k.isInteger ? static_cast<std::uint32_t>(k.integer) : static_cast<std::uint32_t>(bits);
    uleb((2 * lo | (lo & 0x80000000u)) + (k.isInteger ? 0 : 1));
    if (lo >= 0x80000000u) {
      out_.back() = static_cast<char>((out_.back() & 7) | ((lo >> 27) & 0x18));
    }
    if (!k.isInteger) uleb(static_cast<std::uint32_t>(bits >> 32));
  }
  std::string debugInfo(const Prototype& pt) {
    std::string saved = std::move(out_);
    out_.clear();
    const int width = pt.numline < 256 ? 1 : pt.numline < 65536 ? 2 : 4;
    for (const Instruction& ins : pt.code) raw(static_cast<std::uint32_t>(ins.line - pt.firstline), width);
    for (const std::string& name : pt.upvalueNames) out_ += name + '\0';
    static const std::vector<std::string> internal = {"(for index)",     "(for limit)", "(for step)",
                                                      "(for generator)", "(for state)", "(for control)"};
    int lastStart = 0;
    for (const VarInfo& var : pt.vars) {
      const auto it = std::find(internal.begin(), internal.end(), var.name);
      if (it != internal.end())
        out_ += static_cast<char>(1 + (it - internal.begin()));
      else
        out_ += var.name + '\0';
      uleb(static_cast<std::uint32_t>(var.startpc - lastStart)),
          uleb(static_cast<std::uint32_t>(var.endpc - var.startpc));
      lastStart = var.startpc;
    }
    out_ += '\0';
    std::string debug = std::move(out_);
    out_ = std::move(saved);
    return debug;
  }
  void prototype(const Prototype& pt, bool stripped) {
    out_ += static_cast<char>(pt.flags), out_ += static_cast<char>(pt.numparams);
    out_ += static_cast<char>(pt.framesize), out_ += static_cast<char>(pt.upvalues.size());
    uleb(static_cast<std::uint32_t>(pt.gc.size())), uleb(static_cast<std::uint32_t>(pt.num.size()));
    uleb(static_cast<std::uint32_t>(pt.code.size()));
    const std::string debug = stripped ? "" : debugInfo(pt);
    if (!stripped) {
      uleb(static_cast<std::uint32_t>(debug.size()));
      uleb(static_cast<std::uint32_t>(pt.firstline)), uleb(static_cast<std::uint32_t>(pt.numline));
    }
    for (const Instruction& ins : pt.code) {
      raw(ins.raw | std::uint32_t{ins.a} << 8 | std::uint32_t{ins.d} << 16, 4);
    }
    for (const UpvalueRef& uv : pt.upvalues) {
      raw((uv.parentLocal ? 0x8000u : 0u) | (uv.immutable ? 0x4000u : 0u) | uv.index, 2);
    }
    for (std::size_t i = pt.gc.size(); i-- > 0;) gc(pt.gc[i]);
    for (const NumConstant& k : pt.num) number(k);
    out_ += debug;
  }

  bool bigEndian_;
  std::string out_;
};

// ---- The files every comparison runs over ------------------------------------

struct LuaFile {
  std::string chunkPath;  // relative, as ljcheck names it
  std::string source;
};

std::vector<LuaFile> corpus() {
  std::vector<LuaFile> files;
  const fs::path fixtures = fs::path(LJCHECK_SOURCE_DIR) / "fixtures";
  if (fs::exists(fixtures)) {
    for (const auto& entry : fs::recursive_directory_iterator(fixtures)) {
      if (entry.is_regular_file() && entry.path().extension() == ".lua") {
        files.push_back(
            {fs::relative(entry.path(), LJCHECK_SOURCE_DIR).generic_string(), readFile(entry.path())});
      }
    }
  }
  const fs::path jitDir =
      fs::path(luajit().evalString("return package.searchpath('jit.vmdef', package.path)")).parent_path();
  for (const auto& entry : fs::directory_iterator(jitDir)) {
    if (entry.path().extension() == ".lua") {
      files.push_back({"jit/" + entry.path().filename().string(), readFile(entry.path())});
    }
  }
  std::sort(files.begin(), files.end(),
            [](const LuaFile& a, const LuaFile& b) { return a.chunkPath < b.chunkPath; });
  return files;
}

bool isJitFile(const LuaFile& file) {
  return file.chunkPath.rfind("jit/", 0) == 0;
}

std::string largestJitDump() {
  const LuaFile* largest = nullptr;
  const std::vector<LuaFile> files = corpus();
  for (const LuaFile& file : files) {
    if (isJitFile(file) && (largest == nullptr || file.source.size() > largest->source.size()))
      largest = &file;
  }
  REQUIRE(largest != nullptr);
  return compileOrFail(largest->source, largest->chunkPath);
}

}  // namespace

// ---- Tests ---------------------------------------------------------------------

TEST_CASE("every prototype of every fixture and jit/*.lua reads as LuaJIT sees it", "[bytecode]") {
  ljcheck::LuaCompiler compiler;
  std::size_t prototypes = 0, instructions = 0, jitFiles = 0;
  for (const LuaFile& file : corpus()) {
    ljcheck::CompileResult compiled = compiler.compile(file.source, file.chunkPath);
    if (!compiled.ok()) continue;  // a fixture that is meant not to compile
    const Chunk chunk = readDump(compiled.dump, opcodes(), file.chunkPath);
    CHECK(chunk.chunkName == "@" + file.chunkPath);
    requireSameLines(describe(chunk), luajit().describe(file.source, "@" + file.chunkPath), file.chunkPath);
    for (const Prototype& pt : chunk.prototypes) {
      for (const Instruction& ins : pt.code) REQUIRE(opName(ins.op) == bytecodeNames().at(ins.raw));
      instructions += pt.code.size();
    }
    prototypes += chunk.prototypes.size();
    jitFiles += isJitFile(file);
  }
  CHECK(jitFiles >= 10);
  CHECK(prototypes > 200);
  CHECK(instructions > 10000);
}

TEST_CASE("re-encoding a read dump gives back the same bytes, in either byte order", "[bytecode]") {
  ljcheck::LuaCompiler compiler;
  for (const LuaFile& file : corpus()) {
    ljcheck::CompileResult compiled = compiler.compile(file.source, file.chunkPath);
    if (!compiled.ok()) continue;
    INFO(file.chunkPath);
    const Chunk chunk = readDump(compiled.dump, opcodes(), file.chunkPath);
    REQUIRE(Encoder(false).encode(chunk) == compiled.dump);
    const Chunk bigEndian =
        readDump(Encoder(true).encode(chunk), opcodes(), file.chunkPath + " (big-endian)");
    CHECK(bigEndian.bigEndian);
    REQUIRE(describe(bigEndian) == describe(chunk));
  }
}

TEST_CASE("children, parents, upvalue descriptors and variable info", "[bytecode]") {
  const std::string source =
      "local a, b = 1, {}\n"
      "b = {}\n"
      "local function f(p, q)\n"
      "  local x = p\n"
      "  for i = 1, q do x = x + i end\n"
      "  for k, v in pairs(p) do x = k end\n"
      "  return x, a, b\n"
      "end\n"
      "local function g() return function() return a end end\n"
      "return f, g\n";
  const Chunk chunk = readDump(compileOrFail(source, "nest.lua"), opcodes(), "nest.lua");
  REQUIRE(chunk.prototypes.size() == 4);  // f, inner, g, main
  const Prototype& f = chunk.prototypes[0];
  const Prototype& inner = chunk.prototypes[1];
  const Prototype& g = chunk.prototypes[2];
  CHECK(chunk.main().children == std::vector<std::size_t>{0, 2});
  CHECK(g.children == std::vector<std::size_t>{1});
  CHECK(f.parent == 3);
  CHECK(inner.parent == 2);
  CHECK(chunk.main().parent == SIZE_MAX);

  REQUIRE(f.upvalues.size() == 2);
  CHECK(f.upvalueNames == std::vector<std::string>{"a", "b"});
  CHECK((f.upvalues[0].parentLocal && f.upvalues[0].immutable && f.upvalues[0].index == 0));
  CHECK((f.upvalues[1].parentLocal && !f.upvalues[1].immutable && f.upvalues[1].index == 1));
  REQUIRE(inner.upvalues.size() == 1);
  CHECK((!inner.upvalues[0].parentLocal && inner.upvalues[0].index == 0));

  std::vector<std::string> names;
  for (const VarInfo& var : f.vars) {
    names.push_back(var.name);
    CHECK(var.startpc <= var.endpc);
    CHECK(var.endpc <= f.size() + 1);
  }
  CHECK(names == std::vector<std::string>{"p", "q", "x", "(for index)", "(for limit)", "(for step)", "i",
                                          "(for generator)", "(for state)", "(for control)", "k", "v"});
  CHECK(f.vars[0].startpc == 0);
  CHECK(f.numparams == 2);
  CHECK(f.firstline == 3);
  CHECK(f.lastline() == 8);
}

TEST_CASE("a stripped dump reads with empty names and line 0", "[bytecode]") {
  const std::string stripped = luajit().evalString(
      "return string.dump(loadstring('local u = 1; return function(a) local b = a + u; return b end', "
      "'@s.lua'), true)");
  const Chunk chunk = readDump(stripped, opcodes(), "s.lua (stripped)");
  CHECK(chunk.stripped);
  CHECK(chunk.chunkName.empty());
  for (const Prototype& pt : chunk.prototypes) {
    CHECK(pt.upvalueNames.empty());
    CHECK(pt.vars.empty());
    CHECK((pt.firstline == 0 && pt.numline == 0));
    for (const Instruction& ins : pt.code) CHECK(ins.line == 0);
  }
  requireSameLines(describe(chunk), luajit().describe(stripped, "=stripped"), "stripped");
  CHECK(Encoder(false).encode(chunk) == stripped);
}

TEST_CASE("template tables hold every value kind", "[bytecode]") {
  const std::string source =
      "return {1, 2.5, 's', true, false, nil, -7, 2^40, [0] = 0,"
      " x = 1, y = 2.5, z = 'str', [true] = false, [1.5] = 3, [-1] = 'neg', [2^53] = true}\n";
  const std::string dump = compileOrFail(source, "tables.lua");
  const Chunk chunk = readDump(dump, opcodes(), "tables.lua");
  const auto table = std::find_if(chunk.main().gc.begin(), chunk.main().gc.end(),
                                  [](const GcConstant& k) { return k.kind == GcConstant::Kind::Table; });
  REQUIRE(table != chunk.main().gc.end());
  const TemplateTable& t = table->table;
  REQUIRE(t.array.size() == 9);
  CHECK(std::get<std::int64_t>(t.array[0]) == 0);
  CHECK(std::get<std::int64_t>(t.array[1]) == 1);
  CHECK(std::get<double>(t.array[2]) == 2.5);
  CHECK(std::get<std::string>(t.array[3]) == "s");
  CHECK(std::get<bool>(t.array[4]));
  CHECK(!std::get<bool>(t.array[5]));
  CHECK(std::holds_alternative<std::monostate>(t.array[6]));
  CHECK(std::get<std::int64_t>(t.array[7]) == -7);
  CHECK(std::get<double>(t.array[8]) == 1099511627776.0);
  CHECK(t.hash.size() == 7);
  requireSameLines(describe(chunk), luajit().describe(source, "@tables.lua"), "tables.lua");
}

TEST_CASE("int64, uint64 and complex cdata constants", "[bytecode]") {
  const std::string source = "return 1LL, 0xffffffffffffffffULL, 2i, -5LL, 0x123456789abcdefLL\n";
  const Chunk chunk = readDump(compileOrFail(source, "cdata.lua"), opcodes(), "cdata.lua");
  CHECK(chunk.ffi);
  CHECK((chunk.main().flags & Prototype::Ffi) != 0);
  std::vector<std::string> kinds;
  for (const GcConstant& k : chunk.main().gc) kinds.push_back(gcText(k));
  CHECK(std::count(kinds.begin(), kinds.end(), "i64 1") == 1);
  CHECK(std::count(kinds.begin(), kinds.end(), "u64 18446744073709551615") == 1);
  CHECK(std::count(kinds.begin(), kinds.end(), "i64 81985529216486895") == 1);
  CHECK(std::count(kinds.begin(), kinds.end(), "complex " + bitsOf(0.0) + " " + bitsOf(2.0)) == 1);
  requireSameLines(describe(chunk), luajit().describe(source, "@cdata.lua"), "cdata.lua");
}

TEST_CASE("numbers use the integer encoding exactly when they are int32", "[bytecode]") {
  const std::string source =
      "local t = {} t[1] = 70000 t[2] = -70000 t[3] = 0.5 t[4] = 2^31 t[5] = -2^31 t[6] = 2^31 - 1"
      " t[7] = 1e300 t[8] = -0.25 t[9] = 4294967296 t[10] = -1e-300 return t\n";
  const Chunk chunk = readDump(compileOrFail(source, "numbers.lua"), opcodes(), "numbers.lua");
  REQUIRE(chunk.main().num.size() >= 10);
  for (const NumConstant& k : chunk.main().num) {
    const double v = k.value();
    const bool fitsInt32 =
        v >= -2147483648.0 && v <= 2147483647.0 && v == static_cast<double>(static_cast<std::int32_t>(v));
    INFO(v);
    CHECK(k.isInteger == fitsInt32);
  }
  requireSameLines(describe(chunk), luajit().describe(source, "@numbers.lua"), "numbers.lua");
}

TEST_CASE("line info is 1, 2 or 4 bytes wide depending on the line span", "[bytecode]") {
  for (int lines : {10, 300, 70000}) {
    const std::string source = "local function f(x)\n" + std::string(static_cast<std::size_t>(lines), '\n') +
                               "  return x + 1\nend\nreturn f\n";
    const std::string name = "span" + std::to_string(lines) + ".lua";
    const Chunk chunk = readDump(compileOrFail(source, name), opcodes(), name);
    const Prototype& f = chunk.prototypes.front();
    CHECK(f.firstline == 1);
    CHECK(f.lastline() == lines + 3);
    CHECK(f.code.back().line == lines + 2);
    requireSameLines(describe(chunk), luajit().describe(source, "@" + name), name);
    const Chunk bigEndian = readDump(Encoder(true).encode(chunk), opcodes(), name);
    CHECK(describe(bigEndian) == describe(chunk));
  }
}

TEST_CASE("malformed headers are refused with the input's name and an offset", "[bytecode][errors]") {
  const std::string dump = compileOrFail("local x = ... return x + 1\n", "small.lua");
  CHECK_THAT(dumpErrorOf("", "empty.luac"), Contains("empty.luac") && Contains("empty input"));
  CHECK_THAT(dumpErrorOf("-- lua source", "src.lua"),
             Contains("src.lua") && Contains("not a LuaJIT bytecode dump"));

  std::string badVersion = dump;
  badVersion[3] = 3;
  CHECK_THAT(dumpErrorOf(badVersion, "v3.luac"),
             Contains("v3.luac") && Contains("unsupported dump version 3"));

  std::string unknownFlags = dump;
  unknownFlags[4] = static_cast<char>(unknownFlags[4] | 0x10);
  CHECK_THAT(dumpErrorOf(unknownFlags, "bitop.luac"),
             Contains("bitop.luac") && Contains("unknown dump flags 0x10"));

  std::string otherFrames = dump;
  otherFrames[4] = static_cast<char>(otherFrames[4] ^ 0x08);
  CHECK_THAT(dumpErrorOf(otherFrames, "fr2.luac"),
             Contains("fr2.luac") && Contains("foreign dump") && Contains("at byte 4"));
  ReadOptions oneSlot;
  oneSlot.expectFr2 = false;
  CHECK_THAT(dumpErrorOf(dump, "gc64.luac", oneSlot), Contains("foreign dump"));
  CHECK(dumpErrorOf(otherFrames, "fr2.luac", oneSlot).empty());

  // A big-endian dump is decoded, not refused: its raw fields are byte-swapped.
  const Chunk chunk = readDump(dump, opcodes(), "small.lua");
  const std::string swapped = Encoder(true).encode(chunk);
  CHECK(swapped != dump);
  CHECK(describe(readDump(swapped, opcodes(), "small-be.luac")) == describe(chunk));
}

TEST_CASE("malformed bodies are refused, never read out of bounds", "[bytecode][errors]") {
  const std::string dump =
      compileOrFail("local function f(a) return {a, 'x', 1.5} end return f(2) .. 'y'\n", "body.lua");

  std::size_t silent = 0;
  for (std::size_t length = 0; length < dump.size(); ++length) {
    const std::string message = dumpErrorOf(std::string_view(dump).substr(0, length), "cut.luac");
    if (message.find("cut.luac") == std::string::npos) ++silent;
  }
  CHECK(silent == 0);
  CHECK_THAT(dumpErrorOf(dump.substr(0, dump.size() - 1), "cut.luac"), Contains("end-of-dump marker"));
  CHECK_THAT(dumpErrorOf(dump + "x", "tail.luac"), Contains("trailing bytes"));

  // A prototype whose declared length runs past the end of the input.
  const std::size_t firstProto = 5 + 1 + std::string("@body.lua").size();
  CHECK_THAT(dumpErrorOf(dump.substr(0, firstProto + 3), "long.luac"),
             Contains("long.luac") && Contains("prototype #0 declares"));
  // One that declares a byte fewer than its fields take: the field that
  // runs past its end names the prototype and its declared length.
  std::string shortened = dump;
  const auto declared = static_cast<unsigned char>(shortened[firstProto]);
  REQUIRE(declared < 0x80);  // a one-byte ULEB128
  shortened[firstProto] = static_cast<char>(declared - 1);
  CHECK_THAT(dumpErrorOf(shortened, "short.luac"),
             Contains("prototype #0 (declared length " + std::to_string(declared - 1) + ")"));

  // An opcode number outside the build's table.
  const OpcodeTable small(std::vector<std::string>(bytecodeNames().begin(), bytecodeNames().begin() + 10));
  CHECK_THROWS_WITH(readDump(dump, small, "few-ops.luac"),
                    Contains("few-ops.luac") && Contains("outside the bytecode table"));

  // A main chunk that names a child no prototype before it provides.
  const std::string orphan = compileOrFail("return function() end\n", "orphan.lua");
  const Chunk parent = readDump(orphan, opcodes(), "orphan.lua");
  Chunk withoutChild = parent;
  withoutChild.prototypes.erase(withoutChild.prototypes.begin());
  CHECK_THAT(dumpErrorOf(Encoder(false).encode(withoutChild), "orphan.luac"),
             Contains("child index out of range"));
  Chunk extraChild = parent;
  extraChild.prototypes.insert(extraChild.prototypes.begin(), parent.prototypes.front());
  CHECK_THAT(dumpErrorOf(Encoder(false).encode(extraChild), "extra.luac"), Contains("not the child of any"));
}

TEST_CASE("random bytes, bit flips and cuts of real dumps only ever throw DumpError", "[bytecode][errors]") {
  std::mt19937 random(20240601);
  const std::string dump = largestJitDump();
  const auto pick = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(random);
  };
  std::size_t refused = 0, read = 0;
  const auto attempt = [&](const std::string& bytes) {
    try {
      readDump(bytes, opcodes(), "fuzz.luac");
      ++read;
    } catch (const DumpError& e) {
      REQUIRE_THAT(e.what(), Contains("fuzz.luac") && Contains("at byte"));
      ++refused;
    }
  };
  for (int round = 0; round < 300; ++round) {
    std::string noise(pick(64), '\0');
    for (char& c : noise) c = static_cast<char>(pick(256));
    attempt(noise);
    attempt(dump.substr(0, 5) + noise);
  }
  for (int round = 0; round < 2000; ++round) {
    std::string mutated = dump.substr(0, round % 4 == 0 ? pick(dump.size()) : dump.size());
    for (std::size_t flips = 1 + pick(4); flips > 0 && !mutated.empty(); --flips) {
      mutated[pick(mutated.size())] ^= static_cast<char>(1 << pick(8));
    }
    attempt(mutated);
  }
  CHECK(refused > 0);
  CHECK(read + refused == 2600);
}

// ---- Forged operands: a dump is checked before any analysis indexes with it -

namespace {

// A compiled chunk with every operand kind: slots, strings, numbers, a
// template table, a child that captures a slot and an upvalue, jumps.
const char* const kOperandSource =
    "local up = 0\n"
    "local function f(a, b)\n"
    "  local s = 'str'\n"
    "  local t = {1, 2, x = 3}\n"
    "  for i = 1, a do\n"
    "    up = up + i * 1.5\n"
    "    if s == b then t[i] = 7.25 end\n"
    "  end\n"
    "  local g = function() return up + a end\n"
    "  return g, t\n"
    "end\n"
    "return f\n";

Chunk operandChunk() { return readDump(compileOrFail(kOperandSource, "forge.lua"), opcodes(), "forge.lua"); }

// The prototype of `f` (its child g is #0, f #1, main #2) and the pc of its first `op`.
Prototype& protoF(Chunk& chunk) { return chunk.prototypes.at(1); }
Instruction& first(Prototype& pt, Op op) {
  for (Instruction& ins : pt.code)
    if (ins.op == op) return ins;
  FAIL("no " << opName(op) << " in the prototype");
  throw std::logic_error("unreachable");
}

std::uint16_t gcIndexOf(const Prototype& pt, GcConstant::Kind kind) {
  for (std::size_t i = 0; i < pt.gc.size(); ++i)
    if (pt.gc[i].kind == kind) return static_cast<std::uint16_t>(i);
  FAIL("no GC constant of that kind");
  return 0;
}

// The reader's refusal of `chunk` re-encoded, byte for byte as LuaJIT would write it.
std::string refusalOf(const Chunk& chunk) { return dumpErrorOf(Encoder(false).encode(chunk), "forged.luac"); }

void setD(Instruction& ins, std::uint16_t d) {
  ins.d = d;
  ins.b = static_cast<std::uint8_t>(d >> 8);
  ins.c = static_cast<std::uint8_t>(d & 0xff);
}

// D for a jump from `pc` to `target` (lj_bc.h: BCBIAS_J).
std::uint16_t jumpTo(int pc, int target) { return static_cast<std::uint16_t>(target - (pc + 1) + 0x8000); }

int pcOf(const Prototype& pt, const Instruction& ins) { return static_cast<int>(&ins - pt.code.data()) + 1; }

}  // namespace

TEST_CASE("the unforged chunk reads, and every forged operand is refused by name", "[bytecode][errors][forged]") {
  REQUIRE(refusalOf(operandChunk()).empty());
  const auto refused = [](const Chunk& chunk, const std::string& what) {
    const std::string message = refusalOf(chunk);
    INFO(message);
    CHECK_THAT(message, Contains("forged.luac: prototype #1, pc ") && Contains(what) && Contains(" at byte "));
  };

  SECTION("a loop's back edge that jumps out of the prototype") {
    Chunk chunk = operandChunk();
    Prototype& f = protoF(chunk);
    Instruction& forl = first(f, Op::FORL);
    setD(forl, 0);  // 32767 instructions back
    refused(chunk, "(FORL): jump target pc " + std::to_string(pcOf(f, forl) + 1 - 0x8000) + " is outside");
    setD(forl, jumpTo(pcOf(f, forl), f.size() + 1));
    refused(chunk, "is outside the prototype's " + std::to_string(f.size()) + " instructions");
    setD(forl, jumpTo(pcOf(f, forl), 0));  // pc 0 is the function header, never a target
    refused(chunk, "(FORL): jump target pc 0 ");
  }
  SECTION("a forward jump past the end") {
    Chunk chunk = operandChunk();
    Prototype& f = protoF(chunk);
    Instruction& jmp = first(f, Op::JMP);
    setD(jmp, 0xffff);
    refused(chunk, "(JMP): jump target pc ");
  }
  SECTION("a constant index past the prototype's constants, or naming a constant of another kind") {
    Chunk chunk = operandChunk();
    Prototype& f = protoF(chunk);
    Instruction& kstr = first(f, Op::KSTR);
    const std::uint16_t kept = kstr.d;
    setD(kstr, static_cast<std::uint16_t>(f.gc.size()));
    refused(chunk, "(KSTR): GC constant " + std::to_string(f.gc.size()) + " is out of range: the prototype has " +
                       std::to_string(f.gc.size()) + " GC constants");
    setD(kstr, gcIndexOf(f, GcConstant::Kind::Table));
    refused(chunk, "(KSTR): GC constant " + std::to_string(kstr.d) + " is not a string");
    setD(kstr, kept);
    setD(first(f, Op::TDUP), kept);
    refused(chunk, "(TDUP): GC constant " + std::to_string(kept) + " is not a template table");
  }
  SECTION("a closure whose constant is not a child prototype") {
    Chunk chunk = operandChunk();
    Prototype& f = protoF(chunk);
    setD(first(f, Op::FNEW), gcIndexOf(f, GcConstant::Kind::String));
    refused(chunk, "(FNEW): GC constant ");
    CHECK_THAT(refusalOf(chunk), Contains("is not a child prototype"));
  }
  SECTION("a numeric constant index, as a D operand and as a C operand") {
    Chunk chunk = operandChunk();
    Prototype& f = protoF(chunk);
    Instruction& knum = first(f, Op::KNUM);
    const std::uint16_t kept = knum.d;
    setD(knum, static_cast<std::uint16_t>(f.num.size() + 3));
    refused(chunk, "(KNUM): numeric constant " + std::to_string(f.num.size() + 3) + " is out of range");
    setD(knum, kept);
    Instruction& mulvn = first(f, Op::MULVN);
    setD(mulvn, static_cast<std::uint16_t>(mulvn.b << 8 | 200));
    refused(chunk, "(MULVN): numeric constant 200 is out of range");
  }
  SECTION("an upvalue index") {
    Chunk chunk = operandChunk();
    Prototype& f = protoF(chunk);
    setD(first(f, Op::UGET), static_cast<std::uint16_t>(f.upvalues.size()));
    refused(chunk, "(UGET): upvalue " + std::to_string(f.upvalues.size()) + " is out of range: the prototype has " +
                       std::to_string(f.upvalues.size()) + " upvalues");
  }
  SECTION("a register outside the frame, as A, B and D") {
    Chunk chunk = operandChunk();
    Prototype& f = protoF(chunk);
    Instruction& mov = first(f, Op::MOV);
    const Instruction kept = mov;
    mov.a = f.framesize;
    refused(chunk, "(MOV): slot " + std::to_string(f.framesize) + " is out of range: the frame has " +
                       std::to_string(f.framesize) + " slots");
    mov = kept;
    setD(mov, 250);
    refused(chunk, "(MOV): slot 250 is out of range");
    mov = kept;
    Instruction& tsetv = first(f, Op::TSETV);
    setD(tsetv, static_cast<std::uint16_t>(201 << 8 | tsetv.c));
    refused(chunk, "(TSETV): slot 201 is out of range");
  }
  SECTION("a child that captures a slot or an upvalue its parent does not have") {
    Chunk chunk = operandChunk();
    Prototype& g = chunk.prototypes.at(0);
    REQUIRE(g.upvalues.size() == 2);
    UpvalueRef& local = g.upvalues[0].parentLocal ? g.upvalues[0] : g.upvalues[1];
    UpvalueRef& outer = g.upvalues[0].parentLocal ? g.upvalues[1] : g.upvalues[0];
    const UpvalueRef kept = local;
    local.index = protoF(chunk).framesize;
    CHECK_THAT(refusalOf(chunk), Contains("forged.luac: prototype #0 captures slot ") &&
                                     Contains(" of prototype #1, which has ") && Contains(" at byte "));
    local = kept;
    outer.index = 5;
    CHECK_THAT(refusalOf(chunk), Contains("prototype #0 captures upvalue 5 of prototype #1, which has 1 upvalues"));
  }
}

TEST_CASE("the reader's operand modes are the registry's, bytecode by bytecode", "[bytecode][forged]") {
  const auto modeOf = [](const std::string& mode) {
    if (mode == "dst" || mode == "var" || mode == "base") return Operand::Slot;
    if (mode == "rbase") return Operand::SlotTop;
    if (mode == "lit" || mode == "lits" || mode == "pri") return Operand::Literal;
    if (mode == "str") return Operand::String;
    if (mode == "num") return Operand::Number;
    if (mode == "cdata") return Operand::Cdata;
    if (mode == "func") return Operand::Function;
    if (mode == "tab") return Operand::Table;
    if (mode == "uv") return Operand::Upvalue;
    if (mode == "jump") return Operand::Jump;
    return Operand::None;
  };
  for (const ljcheck::RecorderProfile& profile : ljcheck::builtinProfiles()) {
    REQUIRE(profile.bytecodes.size() > 90);
    for (const ljcheck::BytecodeDef& def : profile.bytecodes) {
      INFO(profile.name << " " << def.name << ": " << def.a << " " << def.b << " " << def.cd);
      const Op op = opFromName(def.name);
      REQUIRE(op != Op::Unknown);
      const OperandModes modes = operandModes(op);
      CHECK(modes.a == modeOf(def.a));
      CHECK(modes.b == modeOf(def.b));
      // A JIT-patched loop's D is a trace number in a running VM; the analyzer reads it as the jump it replaced.
      const bool patchedLoop = op == Op::JFORL || op == Op::JITERL || op == Op::JLOOP;
      CHECK(modes.cd == (patchedLoop ? Operand::Jump : modeOf(def.cd)));
    }
  }
}
