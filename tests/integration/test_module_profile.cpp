// ljcheck.profile() inside foreign hosts: Debian's luajit and OpenResty's
// luajit2 each name their own registered profile, read live from the VM.
#include <catch2/catch.hpp>

#include <filesystem>

#include "../support/process.h"
#include "ljcheck/profile.h"

using ljcheck::testing::ProcessResult;
using Catch::Contains;

namespace {

// Prints the profile table's fields, one `key=value` a line, flags joined.
constexpr const char* kScript =
    "local p = require('ljcheck').profile()\n"
    "for _, k in ipairs({'name', 'id', 'supported', 'version', 'arch', 'os'}) do\n"
    "  print(k .. '=' .. tostring(p[k]))\n"
    "end\n"
    "print('flags=' .. table.concat(p.flags, ' '))\n"
    "jit.opt.start('-fold')\n"
    "local q = require('ljcheck').profile()\n"
    "print('without fold=' .. q.name .. ' ' .. tostring(q.supported) .. ' ' .. q.id:sub(1, 9))\n";

// A scratch folder per host: ctest may run the two tests at once.
std::string writeScript(const std::string& host) {
  const std::string dir =
      ljcheck::testing::freshDirectory(std::string(LJCHECK_BINARY_DIR) + "/cli-tests/module-profile-" + host);
  ljcheck::testing::writeFile(dir + "/profile.lua", kScript);
  return dir + "/profile.lua";
}

// The lines a host printed for a registered profile.
void checkRegistered(const ProcessResult& r, const ljcheck::RecorderProfile& expected) {
  INFO(r.out << r.err);
  REQUIRE(r.exitCode == 0);
  CHECK_THAT(r.out, Contains("name=" + expected.name + "\n"));
  CHECK_THAT(r.out, Contains("id=" + expected.id + "\n"));
  CHECK_THAT(r.out, Contains("supported=true\n"));
  CHECK_THAT(r.out, Contains("version=" + expected.version + "\n"));
  CHECK_THAT(r.out, Contains("arch=" + expected.arch + "\nos=" + expected.os + "\n"));
  std::string flags;
  for (const auto& f : expected.jitFlags) flags += (flags.empty() ? "" : " ") + f;
  CHECK_THAT(r.out, Contains("flags=" + flags + "\n"));
  // Turning an optimization off changes the facts: no registered build has them.
  CHECK_THAT(r.out, Contains("without fold=external false external:"));
}

}  // namespace

TEST_CASE("ljcheck.profile() in Debian's luajit names debian-2.1-20220320, supported", "[module][profile]") {
  checkRegistered(ljcheck::testing::runInLuajitHost("/usr/bin/luajit", writeScript("debian")),
                  *ljcheck::findProfile("debian-2.1-20220320"));
}

TEST_CASE("ljcheck.profile() in OpenResty's luajit2 names openresty-2.1-20230119, supported",
          "[module][profile][openresty]") {
  const std::string luajit2 = LJCHECK_LUAJIT2;
  if (!std::filesystem::exists(luajit2)) {
    WARN("skipped: " << luajit2 << " does not exist (scripts/setup.sh builds it)");
    return;
  }
  const ljcheck::RecorderProfile* openresty = ljcheck::findProfile("openresty-2.1-20230119");
  REQUIRE(openresty);
  checkRegistered(ljcheck::testing::runInLuajitHost(luajit2, writeScript("openresty")), *openresty);
}
