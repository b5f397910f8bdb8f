// The registry: the reason catalog, the committed recorder profile and its
// agreement with the LuaJIT this binary embeds.
#include <catch2/catch.hpp>
#include <algorithm>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include <memory>
#include <regex>

#include "ljcheck/abort_mapping.h"
#include "ljcheck/profile.h"
#include "ljcheck/reason.h"
#include "../support/process.h"

using namespace ljcheck;

namespace {

using State = std::unique_ptr<lua_State, decltype(&lua_close)>;

State openVm() {
  State L(luaL_newstate(), &lua_close);
  luaL_openlibs(L.get());
  return L;
}

// Evaluates a Lua expression that yields a list, as strings.
std::vector<std::string> luaList(lua_State* L, const char* chunk) {
  REQUIRE(luaL_loadstring(L, chunk) == 0);
  REQUIRE(lua_pcall(L, 0, 1, 0) == 0);
  std::vector<std::string> out;
  for (int i = 1;; ++i) {
    lua_rawgeti(L, -1, i);
    if (lua_isnil(L, -1)) break;
    out.emplace_back(lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  lua_pop(L, 2);
  return out;
}

}  // namespace

TEST_CASE("the catalog holds every trace error of the profile, plus STITCH and RETURN", "[registry]") {
  const auto& catalog = ReasonCatalog::builtin();
  CHECK(catalog.id() == "ljcheck-reasons");
  CHECK(catalog.version() >= 1);
  const auto& profile = defaultProfile();
  REQUIRE(profile.traceErrors.size() == 35);
  for (const auto& te : profile.traceErrors) {
    const Reason* r = catalog.find(te.name);
    INFO(te.name);
    REQUIRE(r);
    CHECK(!r->title.empty());
    CHECK(!r->advice.empty());
  }
  CHECK(catalog.find("STITCH"));
  CHECK(catalog.find("RETURN"));
  CHECK(catalog.reasons().size() == 37);
  CHECK(catalog.find("NYIBC")->reasonClass == ReasonClass::Blocker);
  CHECK(catalog.find("LINNER")->benign);
  CHECK_FALSE(catalog.find("STITCH")->benign);
}

TEST_CASE("the committed Debian profile equals the LuaJIT this binary embeds", "[registry]") {
  const auto& profile = defaultProfile();
  CHECK(profile.name == "debian-2.1-20220320");
  CHECK(profile.supported);
  State vm = openVm();
  lua_State* L = vm.get();
  auto bcnames = luaList(L,
                         "local v = require('jit.vmdef') local t = {}"
                         " for i = 0, #v.bcnames / 6 - 1 do t[#t + 1] = v.bcnames:sub(6 * i + 1, 6 * i + 6):gsub(' +$', '') end"
                         " return t");
  auto ffnames = luaList(L, "local v = require('jit.vmdef') local t = {} for i = 0, #v.ffnames do t[#t + 1] = v.ffnames[i] end return t");
  auto traceerr = luaList(L, "local v = require('jit.vmdef') local t = {} for i = 0, #v.traceerr do t[#t + 1] = v.traceerr[i] end return t");
  auto identity = luaList(L, "return {jit.version, jit.arch, jit.os}");
  auto flags = luaList(L, "local t = {select(2, jit.status())} local opt = {}"
                          " for _, f in ipairs(t) do if f:match('^%l') then opt[#opt + 1] = f end end return opt");

  CHECK(profile.bytecodeNames() == bcnames);
  REQUIRE(profile.fastFunctions.size() == ffnames.size());
  for (std::size_t i = 0; i < ffnames.size(); ++i) CHECK(profile.fastFunctions[i].name == ffnames[i]);
  REQUIRE(profile.traceErrors.size() == traceerr.size());
  for (std::size_t i = 0; i < traceerr.size(); ++i) CHECK(profile.traceErrors[i].message == traceerr[i]);
  CHECK(identity == std::vector<std::string>{profile.version, profile.arch, profile.os});
  CHECK(flags == profile.jitFlags);

  ProfileFacts live{identity[0], identity[1], identity[2], flags, bcnames, ffnames, traceerr};
  CHECK(computeProfileId(live) == profile.id);
  CHECK(findProfile(profile.id) == &profile);
  CHECK(findProfile("debian-2.1-20220320") == &profile);
  CHECK(findProfile("no-such-profile") == nullptr);
}

TEST_CASE("a profile id changes when any list it digests changes", "[registry]") {
  ProfileFacts facts = defaultProfile().facts();
  std::string id = computeProfileId(facts);
  CHECK(id.rfind("LuaJIT-2.1.0-beta3/x64/Linux/", 0) == 0);
  ProfileFacts more = facts;
  more.fastFunctionNames.push_back("table.isempty");
  CHECK(computeProfileId(more) != id);
  ProfileFacts renamed = facts;
  renamed.traceErrorMessages[7] = "NYI: bytecode %s";
  CHECK(computeProfileId(renamed) != id);
}

TEST_CASE("raw aborts map to reasonIds through the profile, never by number alone", "[registry]") {
  const auto& profile = defaultProfile();
  std::vector<std::string> bytecodes = profile.bytecodeNames(), irOps = {"LT", "GE"}, fastFunctions;
  for (const auto& ff : profile.fastFunctions) fastFunctions.push_back(ff.name);
  VmNameTables names{bytecodes, fastFunctions, irOps};
  auto id = [&](const char* code, int subject, const char* message = "") {
    return resolveAbort(profile, {*profile.traceErrorCode(code), subject, message, {}}, names).reasonId.str();
  };
  int fnew = static_cast<int>(std::find(bytecodes.begin(), bytecodes.end(), "FNEW") - bytecodes.begin());
  CHECK(id("NYIBC", fnew, "NYI: bytecode %d") == "NYIBC:FNEW");
  CHECK(resolveAbort(profile, {*profile.traceErrorCode("NYIBC"), fnew, "NYI: bytecode %d", {}}, names).vmText ==
        "NYI: bytecode " + std::to_string(fnew));
  int typeOf = static_cast<int>(profile.fastFunction("ffi.typeof") - profile.fastFunctions.data());
  CHECK(id("NYIFFU", typeOf) == "NYIFFU:ffi.typeof");
  CHECK(id("NYIFFU", kPlainCFunction) == "NYIFFU:C");
  CHECK(id("NYIIR", 1) == "NYIIR:GE");
  // Codes without a subject never carry one, whatever the argument.
  CHECK(id("LLEAVE", 3) == "LLEAVE");
  auto lua = resolveAbort(profile, {-1, kNoSubject, "", "attempt to call a nil value"}, names);
  CHECK(lua.reasonId.str() == "RECERR");
  CHECK(lua.vmText == "attempt to call a nil value");
  // Splits name the builtin, or C for a plain C function.
  CHECK(resolveSplit(SplitKind::Stitch, typeOf, names).reasonId.str() == "STITCH:ffi.typeof");
  CHECK(resolveSplit(SplitKind::Return, kPlainCFunction, names).reasonId.str() == "RETURN:C");
  CHECK(resolveSplit(SplitKind::Stitch, kPlainCFunction, names).vmText == "stitch at C");
  // A profile the registry does not hold maps by message text.
  RecorderProfile external = profile;
  external.supported = false;
  CHECK(traceErrorName(external, 99, "inner loop in root trace") == "LINNER");
  CHECK(traceErrorName(external, 99, "no such message") == "TRACEERR99");
}

TEST_CASE("reasonIds are built by the registry's constructors and order as their text", "[registry]") {
  CHECK(ReasonId::refusedBytecode("FNEW").str() == "NYIBC:FNEW");
  CHECK(ReasonId::refusedFastFunction("ffi.typeof").str() == "NYIFFU:ffi.typeof");
  CHECK(ReasonId::split(SplitKind::Stitch, "string.gsub").str() == "STITCH:string.gsub");
  CHECK(ReasonId::split(SplitKind::Return, kPlainCSubject).str() == "RETURN:C");
  CHECK(ReasonId::traceError("LINNER").str() == "LINNER");
  CHECK(ReasonId::traceError("LINNER", "ignored").str() == "LINNER");
  CHECK(ReasonId::parse("STITCH:string.gsub") == ReasonId::split(SplitKind::Stitch, "string.gsub"));
  std::vector<std::string> texts = {"NYIBC", "NYIBC:FNEW", "NYIBC:UCLO", "NYIBC2", "NYIBCX", "NYI", "STITCH:C",
                                    "STITCH:string.gsub", "RETURN:C", "CJITOFF", "A:b", "A"};
  for (const auto& a : texts)
    for (const auto& b : texts) {
      INFO(a << " vs " << b);
      CHECK((ReasonId::parse(a) < ReasonId::parse(b)) == (a < b));
    }
}

TEST_CASE("reports written under an older catalog version are upgraded through aliases", "[registry]") {
  auto catalog = ReasonCatalog::fromJson(R"({"catalogId": "ljcheck-reasons", "catalogVersion": 3,
    "aliases": [{"sinceVersion": 2, "from": "NYIFF", "to": "STITCH"}],
    "reasons": [{"code": "STITCH", "class": "stop", "severity": "info"}]})");
  CHECK(catalog.upgrade("NYIFF:string.gsub", 1) == "STITCH:string.gsub");
  CHECK(catalog.upgrade("NYIFF:string.gsub", 2) == "NYIFF:string.gsub");
  CHECK(catalog.upgrade("STITCH:print", 1) == "STITCH:print");
  CHECK_THROWS_WITH(ReasonCatalog::fromJson("{"), Catch::Contains("reason catalog"));
  // A version out of int's range is refused, not converted (found by the fuzz campaign under UBSan).
  CHECK_THROWS_WITH(ReasonCatalog::fromJson(R"({"catalogId": "x", "catalogVersion": 1.66667e+92, "reasons": []})"),
                    Catch::Contains("field 'catalogVersion' must be a whole number"));
  CHECK_THROWS_WITH(ReasonCatalog::fromJson(R"({"catalogId": "x", "catalogVersion": 1, "reasons": [{"code": "A", "class": "nope", "severity": "info"}]})"),
                    Catch::Contains("bad class"));
}

// The built-in catalog's one alias: LuaJIT 2.0's NYIFF became a stitch in
// 2.1. Version 0 stands for reports keyed on LuaJIT's own trace-error names,
// before the catalog existed; tests/data/catalog-v0/ holds such reports.
TEST_CASE("the built-in catalog reads NYIFF from before version 1 as STITCH", "[registry]") {
  const auto& catalog = ReasonCatalog::builtin();
  CHECK(catalog.version() == 1);
  REQUIRE(catalog.aliases().size() == 1);
  const ReasonAlias& alias = catalog.aliases().front();
  CHECK((alias.from == "NYIFF" && alias.to == "STITCH" && alias.sinceVersion == 1));
  CHECK_THAT(alias.why, Catch::Contains("NYI: FastFunc %s"));
  CHECK(catalog.find(alias.to));
  CHECK_FALSE(catalog.find(alias.from));
  CHECK(catalog.upgrade("NYIFF:string.gsub", 0) == "STITCH:string.gsub");
  CHECK(catalog.upgrade("NYIFF", 0) == "STITCH");
  CHECK(catalog.upgrade("NYIFFU:ffi.typeof", 0) == "NYIFFU:ffi.typeof");  // a prefix is not the code
  CHECK(catalog.upgrade("NYIFF:string.gsub", 1) == "NYIFF:string.gsub");
}

TEST_CASE("blacklisting takes the loop runs the profile's hot-counter constants give", "[registry]") {
  for (const auto& profile : builtinProfiles()) {
    INFO(profile.name);
    CHECK(profile.hotCounters.at("loopStep") == 2);
    CHECK(profile.hotCounters.at("penaltyMin") == 72);
    CHECK(profile.hotCounters.at("penaltyMax") == 60000);
    CHECK(profile.hotCounters.at("penaltyRandomBits") == 4);
    // 56 turns to the first try, then penalties 72, 159, 333, ... 44529
    // (doubled plus 15) halved per turn: 11 aborts.
    RecorderProfile::Blacklisting b = profile.loopBlacklisting();
    CHECK(b.aborts == 11);
    CHECK(b.runs == 44487);
    // Without the constants the profile claims nothing.
    RecorderProfile bare = profile;
    bare.hotCounters.clear();
    CHECK(bare.loopBlacklisting().runs == 0);
    bare = profile;
    bare.hotCounters["penaltyRandomBits"] = 0;
    CHECK(bare.loopBlacklisting().runs == 36894);
    CHECK(profile.loopBlacklisting().fewestRuns == 36894);  // the same count as with no random bits
  }
}

TEST_CASE("a profile's hot-counter constants are checked as it loads, and may be absent", "[registry]") {
  const std::string text =
      ljcheck::testing::readFile(std::string(LJCHECK_SOURCE_DIR) + "/registry/profiles/debian-2.1-20220320.json");
  REQUIRE(text.find("\"loopStep\": 2") != std::string::npos);
  std::string wrong = text;
  wrong.replace(wrong.find("\"loopStep\": 2"), 13, "\"loopStep\": \"2\"");
  CHECK_THROWS_WITH(RecorderProfile::fromJson(wrong), Catch::Contains("hotCounters.loopStep must be an integer"));
  // A profile written before the constants were extracted loads, and claims no blacklisting.
  std::string older = std::regex_replace(text, std::regex(R"(  "hotCounters": \{[^}]*\},\n)"), "");
  REQUIRE(older.find("hotCounters") == std::string::npos);
  const RecorderProfile loaded = RecorderProfile::fromJson(older);
  CHECK(loaded.hotCounters.empty());
  CHECK(loaded.loopBlacklisting().runs == 0);
}
