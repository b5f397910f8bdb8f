// The recorder-profile extractor on the real Debian LuaJIT sources
// (third_party/luajit-src), checked against the live VM this test links, on
// OpenResty's luajit2 sources (third_party/luajit2-src), and on broken copies
// of those sources.
#include <catch2/catch.hpp>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "ljcheck/extractor.h"
#include "ljcheck/live_profile.h"
#include "ljcheck/profile.h"
#include "../support/process.h"

using namespace ljcheck;
using namespace ljcheck::extractor;
using ljcheck::testing::readFile;
namespace fs = std::filesystem;

namespace {

const std::string kSourceDir = LJCHECK_SOURCE_DIR;
const std::string kTree = kSourceDir + "/third_party/luajit-src";
const std::string kOverlay = kSourceDir + "/registry/overlays/debian-2.1-20220320.json";
const std::string kCommitted = kSourceDir + "/registry/profiles/debian-2.1-20220320.json";
const std::string kOpenrestyTree = kSourceDir + "/third_party/luajit2-src";
const std::string kOpenrestyOverlay = kSourceDir + "/registry/overlays/openresty-2.1-20230119.json";
const std::string kOpenrestyCommitted = kSourceDir + "/registry/profiles/openresty-2.1-20230119.json";

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

struct Extraction {
  ExtractedProfile profile;
};

// One whole-tree extraction, shared by the tests that only read it.
const Extraction& debian() {
  static const Extraction extraction = [] {
    Extraction e;
    e.profile = extractProfile({kTree, "", kOverlay});
    return e;
  }();
  return extraction;
}

// What the LuaJIT this test links reports about itself (jit.*, jit.vmdef).
const LiveProfile& live() {
  static const LiveProfile profile = [] {
    lua_State* L = luaL_newstate();
    luaL_openlibs(L);
    LiveProfile p = readLiveProfile(L);
    lua_close(L);
    return p;
  }();
  return profile;
}

std::vector<std::string> fastFunctionNames(const ExtractedProfile& p) {
  std::vector<std::string> names;
  for (const auto& f : p.fastFunctions) names.push_back(f.name);
  return names;
}

const FastFunction& fastFunction(const ExtractedProfile& p, const std::string& name) {
  for (const auto& f : p.fastFunctions)
    if (f.name == name) return f;
  FAIL("no fast function " << name);
  throw std::logic_error("unreachable");
}

// A private copy of the tree's src/ folder, to break on purpose.
class BrokenTree {
 public:
  BrokenTree() : dir_(fs::temp_directory_path() / ("ljcheck-extract-" + std::to_string(getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "src");
    for (const auto& entry : fs::directory_iterator(kTree + "/src"))
      if (entry.is_regular_file()) fs::copy_file(entry.path(), dir_ / "src" / entry.path().filename());
  }
  ~BrokenTree() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  BrokenTree(const BrokenTree&) = delete;
  BrokenTree& operator=(const BrokenTree&) = delete;

  fs::path dir() const { return dir_; }
  fs::path file(const std::string& name) const { return dir_ / "src" / name; }
  void replace(const std::string& name, const std::string& from, const std::string& to) const {
    std::string text = readFile(file(name));
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    writeFile(file(name), text.replace(at, from.size(), to));
  }

  // The error an extraction raises; fails the test when it succeeds.
  ExtractError extractError(const std::string& overlay = "") const {
    try {
      extractProfile({dir_.string(), "", overlay});
    } catch (const ExtractError& e) {
      return e;
    }
    FAIL("the extraction succeeded");
    throw std::logic_error("unreachable");
  }

 private:
  fs::path dir_;
};

}  // namespace

TEST_CASE("the 35 trace errors are lj_traceerr.h's, with the live VM's messages", "[extractor]") {
  const auto& errors = debian().profile.traceErrors;
  REQUIRE(errors.size() == 35);
  CHECK(errors.front().name == "RECERR");
  CHECK(errors.front().message == "error thrown or hook called during recording");
  CHECK(errors[7].name == "NYIBC");
  CHECK(errors[7].message == "NYI: bytecode %d");
  CHECK(errors.back().name == "NYICOAL");
  CHECK(errors.back().message == "NYI: register coalescing too complex");
  std::vector<std::string> messages;
  for (const auto& e : errors) messages.push_back(e.message);
  CHECK(messages == live().facts.traceErrorMessages);
}

TEST_CASE("the 97 bytecodes are lj_bc.h's, in the live VM's order, with operand modes", "[extractor]") {
  const auto& bytecodes = debian().profile.bytecodes;
  REQUIRE(bytecodes.size() == 97);
  std::vector<std::string> names;
  for (const auto& b : bytecodes) names.push_back(b.name);
  CHECK(names == live().facts.bytecodeNames);
  CHECK(names.front() == "ISLT");
  CHECK(names.back() == "FUNCCW");
  const BytecodeDef& islt = bytecodes[0];
  CHECK((islt.a == "var" && islt.b == "none" && islt.cd == "var" && islt.mm == "lt"));
  const BytecodeDef& fnew = bytecodes[51];
  CHECK((fnew.name == "FNEW" && fnew.a == "dst" && fnew.b == "none" && fnew.cd == "func" && fnew.mm == "gc"));
  const BytecodeDef& cat = bytecodes[38];
  CHECK((cat.name == "CAT" && cat.b == "rbase" && cat.cd == "rbase" && cat.mm == "concat"));
}

TEST_CASE("fast functions come out in buildvm's order, as jit.vmdef.ffnames spells them", "[extractor]") {
  const ExtractedProfile& p = debian().profile;
  CHECK(fastFunctionNames(p) == live().facts.fastFunctionNames);
  std::size_t recorded = 0;
  for (const auto& f : p.fastFunctions) recorded += f.recorded();
  CHECK(recorded == 115);
  CHECK(p.fastFunctions.size() - 2 - recorded == 106);  // without Lua and C

  CHECK(fastFunction(p, "string.byte").recorder == "string_range");     // LJLIB_REC(string_range 0)
  CHECK(fastFunction(p, "string.format").recorder == "string_format");  // LJLIB_REC(.)
  CHECK(fastFunction(p, "pairs").recorder == "xpairs");
  CHECK(fastFunction(p, "ffi.meta.__index").recorder == "cdata_index");
  CHECK_FALSE(fastFunction(p, "string.gsub").recorded());
  CHECK_FALSE(fastFunction(p, "unpack").recorded());
}

TEST_CASE("recorded and unrecorded fast functions match the committed profile", "[extractor]") {
  const RecorderProfile committed = RecorderProfile::fromJson(readFile(kCommitted));
  const ExtractedProfile& p = debian().profile;
  REQUIRE(p.fastFunctions.size() == committed.fastFunctions.size());
  for (std::size_t i = 0; i < p.fastFunctions.size(); ++i) {
    INFO(p.fastFunctions[i].name);
    CHECK(p.fastFunctions[i].name == committed.fastFunctions[i].name);
    CHECK(p.fastFunctions[i].recorder == committed.fastFunctions[i].recorder);
  }
}

TEST_CASE("the recorder's refusals: NYIBC bytecodes and builtins that never stitch", "[extractor]") {
  const ExtractedProfile& p = debian().profile;
  CHECK(p.nyiBytecodes == std::vector<std::string>{"UCLO", "FNEW"});
  CHECK(p.neverStitch == std::vector<std::string>{"error", "debug.sethook", "jit.flush"});
}

TEST_CASE("each recorder lists the trace errors it can raise", "[extractor]") {
  const ExtractedProfile& p = debian().profile;
  CHECK(fastFunction(p, "string.byte").errors == std::vector<std::string>{"STACKOV", "BADTYPE"});
  CHECK(fastFunction(p, "ffi.typeof").errors == std::vector<std::string>{"BADTYPE", "NYIFFU"});
  CHECK(fastFunction(p, "ffi.errno").errors == std::vector<std::string>{"NYICALL"});
  CHECK(fastFunction(p, "assert").errors.empty());
  CHECK(p.recorderErrors.at("nyi") == std::vector<std::string>{"TRACEUV", "SNAPOV"});
  CHECK(p.recorderErrors.at("clib_index") == std::vector<std::string>{"BADTYPE", "NOCACHE", "NYICONV"});
}

TEST_CASE("JIT parameters, flags, version and target are the live VM's", "[extractor]") {
  const ExtractedProfile& p = debian().profile;
  REQUIRE(p.params.size() == 15);
  CHECK((p.params.front().name == "maxtrace" && p.params.front().value == 1000));
  CHECK((p.params[5].name == "minstitch" && p.params[5].value == 0));
  CHECK((p.params[13].name == "sizemcode" && p.params[13].value == 64));
  CHECK((p.params.back().name == "maxmcode" && p.params.back().value == 512));
  CHECK(p.jitFlags == live().facts.jitFlags);
  CHECK(p.version == live().facts.version);
  CHECK(p.versionNum == 20100);
  CHECK_FALSE(p.openresty);
  CHECK(p.arch == live().facts.arch);
  CHECK(p.os == live().facts.os);
  CHECK(p.gc64);
}

TEST_CASE("C functions and returned functions: scanned, then the overlay's", "[extractor]") {
  const ExtractedProfile& p = debian().profile;
  CHECK(std::set<std::string>(p.cFunctions.begin(), p.cFunctions.end()) ==
        std::set<std::string>{"require", "module", "package.loadlib", "package.searchpath", "package.seeall"});
  const std::vector<std::pair<std::string, std::string>> returns = {{"coroutine.wrap", "coroutine.wrap_aux"},
                                                                    {"string.gmatch", "string.gmatch_aux"},  // scanned
                                                                    {"pairs", "next"},
                                                                    {"ipairs", "ipairs_aux"},
                                                                    {"io.lines", "C"},
                                                                    {"io.method.lines", "C"}};  // overlay
  CHECK(p.returnsFunction == returns);
}

TEST_CASE("regenerating from the sources yields the committed profile byte for byte", "[extractor]") {
  const std::string generated = toJson(debian().profile);
  CHECK(generated == readFile(kCommitted));
  const RecorderProfile loaded = RecorderProfile::fromJson(generated);
  CHECK(loaded.name == "debian-2.1-20220320");
  CHECK(loaded.id == computeProfileId(live().facts));
  CHECK(live().supported);
}

// scripts/setup.sh unpacks Debian's luajit2 source package there; without it
// the committed OpenResty profile cannot be regenerated here.
TEST_CASE("regenerating the OpenResty profile from luajit2's sources yields the committed file byte for byte",
          "[extractor][openresty]") {
  if (!fs::is_directory(kOpenrestyTree + "/src")) {
    WARN("skipped: " << kOpenrestyTree << " does not exist (scripts/setup.sh unpacks it)");
    return;
  }
  const std::string generated = toJson(extractProfile({kOpenrestyTree, "", kOpenrestyOverlay}));
  CHECK(generated == readFile(kOpenrestyCommitted));
  const RecorderProfile loaded = RecorderProfile::fromJson(generated);
  CHECK(loaded.name == "openresty-2.1-20230119");
  CHECK(loaded.openresty);
  CHECK(loaded.param("minstitch", -1) == 3);
  const RecorderProfile* registered = findProfile("openresty-2.1-20230119");
  REQUIRE(registered);
  CHECK(loaded.id == registered->id);
}

TEST_CASE("a tree without a needed file names that file", "[extractor][errors]") {
  BrokenTree tree;
  SECTION("no lj_traceerr.h") {
    fs::remove(tree.file("lj_traceerr.h"));
    const ExtractError e = tree.extractError();
    CHECK(e.file() == "lj_traceerr.h");
    CHECK_THAT(e.what(), Catch::Contains("not found"));
  }
  SECTION("no lj_record.c") {
    fs::remove(tree.file("lj_record.c"));
    CHECK(tree.extractError().file() == "lj_record.c");
  }
  SECTION("no Makefile") {
    fs::remove(tree.file("Makefile"));
    CHECK(tree.extractError().file() == "Makefile");
  }
  SECTION("not a directory") {
    CHECK_THROWS_AS(extractProfile({(tree.dir() / "nowhere").string(), "", ""}), ExtractError);
  }
}

TEST_CASE("a tree with a malformed file names the file and what is missing", "[extractor][errors]") {
  BrokenTree tree;
  SECTION("a lib_string.c without LJLIB annotations") {
    writeFile(tree.file("lib_string.c"), "/* nothing here */\n");
    const ExtractError e = tree.extractError();
    CHECK(e.file() == "lib_string.c");
    CHECK_THAT(e.what(), Catch::Contains("no LJLIB_* annotations"));
  }
  SECTION("an empty lj_bc.h") {
    writeFile(tree.file("lj_bc.h"), "");
    const ExtractError e = tree.extractError();
    CHECK(e.file() == "lj_bc.h");
    CHECK_THAT(e.what(), Catch::Contains("BCDEF"));
  }
  SECTION("an empty lj_traceerr.h") {
    writeFile(tree.file("lj_traceerr.h"), "");
    CHECK(tree.extractError().file() == "lj_traceerr.h");
  }
  SECTION("a recorder named by LJLIB_REC that no recorder source defines") {
    tree.replace("lib_math.c", "LJLIB_ASM(math_abs)\t\tLJLIB_REC(.)", "LJLIB_ASM(math_abs)\t\tLJLIB_REC(math_nosuch)");
    const ExtractError e = tree.extractError();
    CHECK(e.file() == "lib_math.c");
    CHECK_THAT(e.what(), Catch::Contains("recff_math_nosuch"));
  }
  SECTION("recff_nyi without its switch over fast-function ids") {
    tree.replace("lj_ffrecord.c", "case FF_error:\n\tcase FF_debug_sethook:\n\tcase FF_jit_flush:",
                 "case 1000:\n\tcase 1001:\n\tcase 1002:");
    const ExtractError e = tree.extractError();
    CHECK(e.file() == "lj_ffrecord.c");
    CHECK_THAT(e.what(), Catch::Contains("recff_nyi"));
  }
  SECTION("an unknown library definition tag") {
    tree.replace("lib_os.c", "LJLIB_CF(os_time)", "LJLIB_BOGUS LJLIB_CF(os_time)");
    const ExtractError e = tree.extractError();
    CHECK(e.file() == "lib_os.c");
    CHECK_THAT(e.what(), Catch::Contains("LJLIB_BOGUS"));
  }
}

// A file cut short must not yield a profile with facts missing (a library
// file that loses functions shifts every later ffid): every case is an error.
TEST_CASE("files cut short or full of junk give an error naming a file, never a crash", "[extractor][errors]") {
  BrokenTree tree;
  const auto [name, junk] = GENERATE(table<const char*, bool>({{"lj_ffrecord.c", false},
                                                               {"lj_record.c", false},
                                                               {"lib_string.c", false},
                                                               {"luajit.h", false},
                                                               {"lj_bc.h", true},
                                                               {"lj_jit.h", true},
                                                               {"lj_crecord.c", true},
                                                               {"Makefile", true}}));
  const std::string text = readFile(tree.file(name));
  const std::string garbage("\177ELF\0\001\377 junk", 12);
  writeFile(tree.file(name), junk ? garbage : text.substr(0, text.size() / 2));
  INFO(name << (junk ? " full of junk" : " cut in half"));
  const ExtractError e = tree.extractError();
  CHECK(fs::exists(tree.file(e.file())));
}

TEST_CASE("a failed extraction leaves no output file behind", "[extractor][errors]") {
  BrokenTree tree;
  fs::remove(tree.file("lj_bc.h"));
  const fs::path out = tree.dir() / "profile.json";
  CHECK_THROWS_AS(writeFileAtomically(out.string(), toJson(extractProfile({tree.dir().string(), "", ""}))),
                  ExtractError);
  CHECK_FALSE(fs::exists(out));
  writeFileAtomically(out.string(), "{}\n");
  CHECK(readFile(out) == "{}\n");
  for (const auto& entry : fs::directory_iterator(tree.dir()))
    CHECK(entry.path().filename().string().rfind(".profile.json.tmp", 0) == std::string::npos);
}

TEST_CASE("the overlay is read strictly: every entry gives its reason", "[extractor][errors]") {
  BrokenTree tree;  // for its folder
  const fs::path overlay = tree.dir() / "overlay.json";
  ExtractedProfile profile = debian().profile;
  profile.returnsFunction.clear();
  auto overlayError = [&](const std::string& path) -> ExtractError {
    try {
      applyOverlay(path, profile);
    } catch (const ExtractError& e) {
      return e;
    }
    FAIL("the overlay was accepted");
    throw std::logic_error("unreachable");
  };
  SECTION("the committed overlay applies") {
    applyOverlay(kOverlay, profile);
    CHECK(profile.returnsFunction.size() == 4);
  }
  SECTION("an entry without why") {
    writeFile(overlay, R"({"returnsFunction": [{"function": "pairs", "returns": "next", "why": ""}]})");
    const ExtractError e = overlayError(overlay.string());
    CHECK(e.file() == overlay.string());
    CHECK_THAT(e.what(), Catch::Contains("why"));
  }
  SECTION("a function this build does not have") {
    writeFile(overlay, R"({"returnsFunction": [{"function": "table.clone", "returns": "C", "why": "x"}]})");
    CHECK_THAT(overlayError(overlay.string()).what(), Catch::Contains("table.clone"));
  }
  SECTION("a C function the scan already found") {
    writeFile(overlay, R"({"cFunctions": [{"name": "require", "why": "x"}]})");
    CHECK_THAT(overlayError(overlay.string()).what(), Catch::Contains("already"));
  }
  SECTION("an unknown key") {
    writeFile(overlay, R"({"cfunctions": []})");
    CHECK_THAT(overlayError(overlay.string()).what(), Catch::Contains("cfunctions"));
  }
  SECTION("not JSON") {
    writeFile(overlay, "{");
    CHECK(overlayError(overlay.string()).file() == overlay.string());
  }
  SECTION("no overlay file") {
    const std::string missing = (tree.dir() / "missing.json").string();
    CHECK(overlayError(missing).file() == missing);
  }
}
