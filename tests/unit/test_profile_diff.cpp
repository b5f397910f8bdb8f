// Comparing recorder profiles: the two committed profiles differ in exactly
// the facts fixtures/README.md documents (OpenResty's extra fast functions,
// its larger JIT limits and minstitch 3), and nowhere else.
#include <catch2/catch.hpp>

#include "ljcheck/profile_diff.h"

using namespace ljcheck;
using Names = std::vector<std::string>;

namespace {

const RecorderProfile& debian() { return *findProfile("debian-2.1-20220320"); }
const RecorderProfile& openresty() {
  const RecorderProfile* p = findProfile("openresty-2.1-20230119");
  REQUIRE(p);
  return *p;
}

const ValueChange* change(const std::vector<ValueChange>& changes, const std::string& name) {
  for (const auto& c : changes)
    if (c.name == name) return &c;
  return nullptr;
}

FastFunctionDef& fastFunction(RecorderProfile& p, const std::string& name) {
  for (auto& f : p.fastFunctions)
    if (f.name == name) return f;
  FAIL("no fast function " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("Debian to OpenResty: the build, the JIT limits and minstitch", "[registry][diff]") {
  const ProfileDiff d = diffProfiles(debian(), openresty());
  CHECK(d.fromName == "debian-2.1-20220320");
  CHECK(d.toName == "openresty-2.1-20230119");
  CHECK(d.toId == openresty().id);
  CHECK_FALSE(d.identical());

  REQUIRE(d.build.size() == 1);  // same version string, arch, os, GC64
  CHECK((d.build[0].name == "openresty" && d.build[0].from == "false" && d.build[0].to == "true"));
  CHECK(d.jitFlags.empty());

  REQUIRE(d.params.size() == 4);
  const ValueChange* minstitch = change(d.params, "minstitch");
  REQUIRE(minstitch);
  CHECK((minstitch->from == "0" && minstitch->to == "3"));
  CHECK(change(d.params, "maxtrace")->to == "8000");
  CHECK(change(d.params, "maxrecord")->to == "16000");
  CHECK((change(d.params, "maxmcode")->from == "512" && change(d.params, "maxmcode")->to == "40960"));
  CHECK_FALSE(change(d.params, "hotloop"));
}

TEST_CASE("Debian to OpenResty: fast functions added, recorded, renumbered", "[registry][diff]") {
  const ProfileDiff d = diffProfiles(debian(), openresty());
  CHECK(d.fastFunctions.added == Names{"thread.exdata", "thread.exdata2", "table.clone", "table.isarray",
                                       "table.nkeys", "table.isempty", "jit.prngstate"});
  CHECK(d.fastFunctions.removed.empty());
  // OpenResty records its own additions, except jit.prngstate (it stitches).
  CHECK(d.recorded.added ==
        Names{"thread.exdata", "thread.exdata2", "table.clone", "table.isarray", "table.nkeys", "table.isempty"});
  // Both builds record table.insert and table.concat with the same recorder.
  CHECK(d.recorded.removed.empty());
  CHECK(d.recorders.empty());
  CHECK(debian().fastFunction("table.concat")->recorded());
  CHECK(openresty().fastFunction("table.insert")->recorder == debian().fastFunction("table.insert")->recorder);
  // thread.exdata is inserted before math.abs: every later ffid shifts by two.
  CHECK(d.fastFunctionsRenumbered > 150);
  CHECK(d.neverStitch.empty());
  CHECK(d.cFunctions.empty());
  CHECK(d.returnsFunction.empty());
}

TEST_CASE("Debian to OpenResty: bytecodes, NYIBC and trace errors agree", "[registry][diff]") {
  const ProfileDiff d = diffProfiles(debian(), openresty());
  CHECK(d.bytecodes.empty());
  CHECK(d.bytecodesRenumbered.empty());
  CHECK(d.bytecodeModes.empty());
  CHECK(d.nyiBytecodes.empty());
  CHECK(d.traceErrors.empty());
  CHECK(d.traceErrorsRenumbered.empty());
  CHECK(d.traceErrorMessages.empty());
  CHECK(d.recorderNames.added ==
        Names{"table_clone", "table_isarray", "table_isempty", "table_nkeys", "thread_exdata", "thread_exdata2"});
  CHECK(d.recorderNames.removed.empty());
  CHECK(d.recorderErrors.empty());
}

TEST_CASE("a profile compared with itself is identical, and the reverse diff swaps sides", "[registry][diff]") {
  CHECK(diffProfiles(openresty(), openresty()).identical());
  const ProfileDiff back = diffProfiles(openresty(), debian());
  CHECK(back.fastFunctions.removed.size() == 7);
  CHECK(back.fastFunctions.added.empty());
  CHECK(back.recorded.removed.size() == 6);
  CHECK((change(back.params, "minstitch")->from == "3" && change(back.params, "minstitch")->to == "0"));
}

TEST_CASE("every kind of change is found by name, not by number", "[registry][diff]") {
  RecorderProfile changed = debian();
  changed.version = "LuaJIT 2.1.1713484068";
  fastFunction(changed, "table.insert").recorder.clear();      // no longer recorded
  fastFunction(changed, "string.gsub").recorder = "string_gsub";  // newly recorded
  fastFunction(changed, "string.byte").recorder = "string_byte";  // another recorder
  changed.traceErrors[7].message = "NYI: bytecode %s";           // NYIBC names the bytecode
  changed.nyiBytecodes.erase("UCLO");
  changed.nyiBytecodes.insert("VARG");
  changed.neverStitch.insert("jit.off");
  changed.recorderErrors["table_insert"].push_back("NYITMIX");
  std::swap(changed.bytecodes[0], changed.bytecodes[1]);
  changed.params["minstitch"] = 3;

  const ProfileDiff d = diffProfiles(debian(), changed);
  CHECK(change(d.build, "version")->to == "LuaJIT 2.1.1713484068");
  CHECK(d.recorded.added == Names{"string.gsub"});
  CHECK(d.recorded.removed == Names{"table.insert"});
  REQUIRE(d.recorders.size() == 1);
  CHECK((d.recorders[0].name == "string.byte" && d.recorders[0].from == "string_range" &&
         d.recorders[0].to == "string_byte"));
  REQUIRE(d.traceErrorMessages.size() == 1);
  CHECK((d.traceErrorMessages[0].name == "NYIBC" && d.traceErrorMessages[0].to == "NYI: bytecode %s"));
  CHECK(d.nyiBytecodes.added == Names{"VARG"});
  CHECK(d.nyiBytecodes.removed == Names{"UCLO"});
  CHECK(d.neverStitch.added == Names{"jit.off"});
  REQUIRE(d.recorderErrors.count("table_insert"));
  CHECK(d.recorderErrors.at("table_insert").added == Names{"NYITMIX"});
  CHECK(d.bytecodes.empty());
  CHECK(d.bytecodesRenumbered == Names{"ISGE", "ISLT"});
  CHECK(d.params.size() == 1);
}
