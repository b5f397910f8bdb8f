// `.ljcheck.toml`: found upward from the working directory or named with
// --config, ignored with --no-config; flags win over it; errors name
// file:line:column. Also --exclude and files reached through two paths.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <set>

#include "ljcheck/fixture_annotations.h"

#include "../support/cli.h"
#include "../support/text_search.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::runLjcheck;
using ljcheck::testing::scratchDirectory;
using ljcheck::testing::writeFile;

using ljcheck::testing::has;

namespace {

// NYIBC:FNEW (blacklist, "error") on line 3 and STITCH:print (a note) on line 4.
const std::string kTwoReasons = R"(local t = {}
for i = 1, 50000 do
  t[i] = function() return i end
  print(i)
end
return t
)";


// `lint --brief src` in `dir` under a .ljcheck.toml holding `toml`.
ProcessResult lintWithConfig(const std::string& dir, const std::string& toml) {
  writeFile(dir + "/.ljcheck.toml", toml);
  return runLjcheck({"lint", "--brief", "src"}, dir);
}

}  // namespace

TEST_CASE("config: found upward, [reasons] levels, overrides per path, flags win", "[cli][config]") {
  std::string dir = scratchDirectory("config-levels");
  writeFile(dir + "/src/a.lua", kTwoReasons);
  writeFile(dir + "/tests/t.lua", kTwoReasons);
  writeFile(dir + "/.ljcheck.toml", R"(fail-on = "error"
[reasons]
"STITCH:print" = "off"
NYIBC = "warning"

[[overrides]]
files = ["tests"]
reasons = { FNEW = "off" }
)");
  // Run from a subfolder: the file is found upward, its globs are relative to it.
  ProcessResult r = runLjcheck({"lint", "--brief", "../src", "../tests"}, dir + "/tests");
  INFO(r.out << r.err);
  CHECK(r.exitCode == 0);  // FNEW is a warning now, below fail-on = error
  CHECK(has(r.out, "src/a.lua:3:"));  // outside the root (tests/): shown absolute
  CHECK(has(r.out, "warning: "));
  CHECK_FALSE(has(r.out, "[STITCH:print]"));
  CHECK_FALSE(has(r.out, "tests/t.lua"));  // the override turns FNEW off there

  SECTION("a flag overrides the file") {
    ProcessResult flag = runLjcheck({"lint", "--brief", "--fail-on", "warning", "src"}, dir);
    CHECK(flag.exitCode == 1);
  }
  SECTION("--no-config ignores it") {
    ProcessResult none = runLjcheck({"lint", "--brief", "--no-config", "src"}, dir);
    CHECK(none.exitCode == 1);
    CHECK(has(none.out, "[STITCH:print]"));
    CHECK(has(none.out, "error: "));
  }
  SECTION("--config names another file") {
    writeFile(dir + "/other.toml", "[reasons]\nUCLO = \"off\"\n");
    ProcessResult other = runLjcheck({"lint", "--brief", "--config", "other.toml", "src"}, dir);
    CHECK(other.exitCode == 1);  // NYIBC:FNEW is an error again
    CHECK_FALSE(has(other.out, "[NYIBC:UCLO]"));
    CHECK(has(other.out, "[NYIBC:FNEW]"));
    CHECK(has(other.out, "[STITCH:print]"));
  }
}

TEST_CASE("config errors name file:line:column and exit 2", "[cli][config]") {
  std::string dir = scratchDirectory("config-errors");
  writeFile(dir + "/src/a.lua", kTwoReasons);
  auto run = [&](const std::string& toml) { return lintWithConfig(dir, toml); };
  ProcessResult unknown = run("profile = \"debian-2.1-20220320\"\nfail_on = \"error\"\n");
  CHECK(unknown.exitCode == 2);
  CHECK(has(unknown.err, ".ljcheck.toml:2:11: unknown key 'fail_on'"));
  ProcessResult type = run("\n\njobs = \"four\"\n");
  CHECK(type.exitCode == 2);
  CHECK(has(type.err, ".ljcheck.toml:3:8: 'jobs' must be an integer"));
  ProcessResult level = run("[reasons]\nNYIBC = \"loud\"\n");
  CHECK(level.exitCode == 2);
  CHECK(has(level.err, ".ljcheck.toml:2:9: reasons.\"NYIBC\" must be off, error, warning or note"));
  ProcessResult glob = run("exclude = [\"vendor/**\", \"[unclosed\"]\n");
  CHECK(glob.exitCode == 2);
  CHECK(has(glob.err, ".ljcheck.toml:1:11: 'exclude': the glob '[unclosed' opens a character class with '[' at "
                      "column 1 that no ']' closes"));
  CHECK(run("exclude = [\"[]x]*\", \"\\\\[lit\", \"[!a]b\"]\n").exitCode == 1);  // closed classes, an escaped '['
  ProcessResult syntax = run("exclude = [\"a\"\n");
  CHECK(syntax.exitCode == 2);
  CHECK(has(syntax.err, ".ljcheck.toml:2:1: not valid TOML: missing array separator `,` after a value"));
  CHECK_FALSE(has(syntax.err, "toml::"));
  CHECK(syntax.out.empty());
  // toml11 puts its caret at the bad string; its own position was the line's start.
  CHECK(has(run("profile = \"abc\n").err, ".ljcheck.toml:1:11: not valid TOML: not a valid string"));
  CHECK(has(run("profile = abc\n").err, ".ljcheck.toml:1:11: not valid TOML: not a TOML value"));
  ProcessResult missing = runLjcheck({"lint", "--config", "absent.toml", "src"}, dir);
  CHECK(missing.exitCode == 2);
  CHECK(has(missing.err, "absent.toml: cannot read the config file: no such file or directory"));
}

TEST_CASE("exclude globs from the file and --exclude leave files out", "[cli][config][exclude]") {
  std::string dir = scratchDirectory("config-exclude");
  writeFile(dir + "/src/a.lua", kTwoReasons);
  writeFile(dir + "/src/vendor/v.lua", kTwoReasons);
  writeFile(dir + "/src/gen/g.lua", kTwoReasons);
  ProcessResult all = runLjcheck({"lint", "--brief", "--no-config", "src"}, dir);
  CHECK(has(all.out, "src/vendor/v.lua"));
  ProcessResult cli = runLjcheck({"lint", "--brief", "--no-config", "--exclude", "src/vendor", "--exclude",
                                  "*/g.lua", "src"},
                                 dir);
  CHECK(has(cli.out, "src/a.lua"));
  CHECK_FALSE(has(cli.out, "vendor"));
  CHECK_FALSE(has(cli.out, "g.lua"));
  // A glob the config would refuse is refused on the command line too, not
  // taken as a name that matches nothing.
  ProcessResult unclosed = runLjcheck({"lint", "--brief", "--no-config", "--exclude", "src/[vendor", "src"}, dir);
  CHECK(unclosed.exitCode == 2);
  CHECK(unclosed.out.empty());
  CHECK(has(unclosed.err, "--exclude: the glob 'src/[vendor' opens a character class with '[' at column 5 that no "
                          "']' closes"));
  writeFile(dir + "/.ljcheck.toml", "exclude = [\"src/vendor/\"]\n");
  ProcessResult file = runLjcheck({"lint", "--brief", "src"}, dir);
  CHECK(has(file.out, "src/gen/g.lua"));
  CHECK_FALSE(has(file.out, "vendor"));
  // Only excluded files given: a pass, but said, or a mistyped glob would pass CI unseen.
  ProcessResult nothing = runLjcheck({"lint", "--brief", "src/vendor/v.lua"}, dir);
  CHECK(nothing.exitCode == 0);
  CHECK(nothing.out.empty());
  CHECK(has(nothing.err, "warning: no Lua files to lint under the paths given"));
  // Standard input under an excluded name is left out as the file would be.
  ProcessResult stdinExcluded = ljcheck::testing::runShell(
      "cd " + ljcheck::testing::shellQuote(dir) + " && " + LJCHECK_EXE +
      " lint --brief --stdin-filename src/vendor/v.lua - < src/vendor/v.lua");
  CHECK(stdinExcluded.exitCode == 0);
  CHECK(stdinExcluded.out.empty());
  CHECK(has(stdinExcluded.err, "standard input, as src/vendor/v.lua, is excluded"));
}

TEST_CASE("a file reached through two paths is linted once", "[cli][exclude]") {
  std::string dir = scratchDirectory("two-paths");
  writeFile(dir + "/src/a.lua", kTwoReasons);
  REQUIRE(::symlink("src", (dir + "/alias").c_str()) == 0);
  ProcessResult r = runLjcheck({"lint", "--brief", "--no-config", "src", "alias"}, dir);
  std::size_t count = 0;
  for (std::size_t at = r.out.find("[NYIBC:FNEW]"); at != std::string::npos; at = r.out.find("[NYIBC:FNEW]", at + 1))
    ++count;
  CHECK(count == 1);
}

TEST_CASE("config nested 50,000 deep or not a file is a config error, not a crash", "[cli][config]") {
  // Found by fuzz/fuzz_config: toml11 descends recursively and ran out of stack.
  std::string dir = scratchDirectory("config-deep");
  writeFile(dir + "/src/a.lua", kTwoReasons);
  writeFile(dir + "/.ljcheck.toml", "a = " + std::string(50000, '[') + std::string(50000, ']') + "\n");
  ProcessResult arrays = runLjcheck({"lint", "--brief", "src"}, dir);
  CHECK(arrays.exitCode == 2);
  CHECK(has(arrays.err, ".ljcheck.toml:1:69: arrays and inline tables nested more than 64 deep"));
  std::string tables = "[reasons]\nk = ";
  for (int i = 0; i < 50000; ++i) tables += "{a=";
  writeFile(dir + "/.ljcheck.toml", "# brackets in comments [[[ and strings do not count\nx = \"[[[[\"\n" + tables + "\n");
  ProcessResult inline_ = runLjcheck({"lint", "--brief", "src"}, dir);
  CHECK(inline_.exitCode == 2);
  CHECK(has(inline_.err, ".ljcheck.toml:4:"));
  CHECK(has(inline_.err, "nested more than 64 deep"));
  ProcessResult folder = runLjcheck({"lint", "--brief", "--config", "src", "src"}, dir);
  CHECK(folder.exitCode == 2);
  CHECK(has(folder.err, "src: the config is not a regular file"));
}

TEST_CASE("a config that is not UTF-8 is a config error naming the byte", "[cli][config]") {
  // Found by fuzz/fuzz_config: toml11 3.7.1 reads past its buffer while
  // reporting a multi-line literal string that is not UTF-8.
  std::string dir = scratchDirectory("config-utf8");
  writeFile(dir + "/src/a.lua", kTwoReasons);
  writeFile(dir + "/.ljcheck.toml", "std = [\"ok\"]\nraw = \'\'\'\nab\xff\'\'\'\n");
  ProcessResult r = runLjcheck({"lint", "--brief", "src"}, dir);
  CHECK(r.exitCode == 2);
  CHECK(has(r.err, ".ljcheck.toml:3:3: not UTF-8 (a TOML file must be UTF-8 text)"));
}

TEST_CASE("a binary integer of 63 or more digits in the config is a config error, not an overflow", "[cli][config]") {
  // Found by the fuzz campaign (fuzz_config replayed under UBSan): toml11
  // 3.7.1 doubles a signed 64-bit place value per binary digit, which
  // overflows from the 63rd digit on.
  std::string dir = scratchDirectory("config-binary");
  writeFile(dir + "/src/a.lua", kTwoReasons);
  writeFile(dir + "/.ljcheck.toml",
            "# 0b" + std::string(70, '1') + " in a comment and in a string is not a number\n" +
            "x = \"0b" + std::string(70, '1') + "\"\nnums = [0b" + std::string(62, '1') + ", 0b" +
            std::string(63, '0') + "1]\n");
  ProcessResult r = runLjcheck({"lint", "--brief", "src"}, dir);
  CHECK(r.exitCode == 2);
  CHECK(has(r.err, ".ljcheck.toml:3:"));
  CHECK(has(r.err, "a binary integer of more than 62 digits (the TOML reader cannot take it)"));
  // 62 digits with underscores between them is the longest it takes.
  writeFile(dir + "/.ljcheck.toml", "nums = [0b" + std::string(31, '1') + "_" + std::string(31, '1') + "]\n");
  ProcessResult fine = runLjcheck({"lint", "--brief", "src"}, dir);
  CHECK_FALSE(has(fine.err, "binary integer"));
}

TEST_CASE("c-modules and cpath in the config, and --cpath, make calls into C modules STITCH:C",
          "[cli][config][c-modules]") {
  std::string dir = scratchDirectory("config-c-modules");
  writeFile(dir + "/src/a.lua",
            "local lpeg = require('lpeg')\nlocal n = 0\nfor i = 1, 3000 do\n  n = n + lpeg.match('x', 'x')\nend\n"
            "return n\n");
  ProcessResult none = runLjcheck({"lint", "--brief", "--no-config", "--cpath", dir + "/none/?.so", "src"}, dir);
  CHECK_FALSE(has(none.out, "STITCH:C"));
  writeFile(dir + "/vendor/lpeg.so", "");
  ProcessResult cli = runLjcheck({"lint", "--brief", "--no-config", "--cpath", "vendor/?.so", "src"}, dir);
  CHECK(has(cli.out, "src/a.lua:4"));
  CHECK(has(cli.out, "STITCH:C"));
  writeFile(dir + "/.ljcheck.toml", "cpath = \"vendor/?.so\"\n");
  ProcessResult fromFile = runLjcheck({"lint", "--brief", "../src"}, dir + "/vendor");  // relative to the config
  CHECK(has(fromFile.out, "STITCH:C"));
  writeFile(dir + "/.ljcheck.toml", "c-modules = [\"lpeg\"]\ncpath = \"none/?.so\"\n");
  ProcessResult declared = runLjcheck({"lint", "--brief", "src"}, dir);
  CHECK(has(declared.out, "STITCH:C"));
  writeFile(dir + "/.ljcheck.toml", "c-modules = \"\"\n");
  ProcessResult bad = runLjcheck({"lint", "--brief", "src"}, dir);
  CHECK(bad.exitCode == 2);
  CHECK(has(bad.err, ".ljcheck.toml:1:"));
}

TEST_CASE("config values the command line also takes are checked at their place in the file", "[cli][config]") {
  std::string dir = scratchDirectory("config-values");
  writeFile(dir + "/src/a.lua", kTwoReasons);
  auto run = [&](const std::string& toml) { return lintWithConfig(dir, toml); };
  auto expectError = [&](const std::string& toml, const std::string& error) {
    ProcessResult r = run(toml);
    INFO(toml << " -> " << r.err);
    CHECK(r.exitCode == 2);
    CHECK(has(r.err, error));
    CHECK_FALSE(has(r.err, "--"));  // not told as if it were a flag
  };
  expectError("\nprofile = \"luajit\"\n", ".ljcheck.toml:2:11: unknown recorder profile 'luajit'; known: ");
  expectError("fail-on = \"errors\"\n", ".ljcheck.toml:1:11: 'fail-on' must be error (or blacklist)");
  expectError("confidence = \"sure\"\n", ".ljcheck.toml:1:14: 'confidence' must be certain, likely or possible");
  expectError("root = \"nowhere\"\n", ".ljcheck.toml:1:8: 'root' = 'nowhere': ");
  CHECK(run("profile = \"openresty-2.1-20230119\"\nroot = \"src\"\nconfidence = \"possible\"\n").exitCode == 1);
}

TEST_CASE("a [reasons] name nothing is called is an error with the nearest name", "[cli][config]") {
  std::string dir = scratchDirectory("config-reason-names");
  writeFile(dir + "/src/a.lua", kTwoReasons);
  auto run = [&](const std::string& toml) { return lintWithConfig(dir, toml); };
  ProcessResult typo = run("[reasons]\nNYBIC = \"off\"\n");
  CHECK(typo.exitCode == 2);
  CHECK(has(typo.err, ".ljcheck.toml:2:9: [reasons] \"NYBIC\": no reason, code or subject is called 'NYBIC' "
                      "(did you mean NYIBC?)"));
  ProcessResult subject = run("[reasons]\n\"STITCH:string.gusb\" = \"off\"\n");
  CHECK(has(subject.err, "(did you mean STITCH:string.sub?)"));
  CHECK(has(run("[reasons]\ngsub = \"off\"\n").err, "(did you mean string.gsub?)"));
  CHECK(has(run("[reasons]\n\"LINNER:x\" = \"off\"\n").err, "the reason LINNER has no subject"));
  CHECK(has(run("[reasons]\nNYIFF = \"off\"\n").err, "'NYIFF' is called STITCH since reason catalog version 1"));
  CHECK(has(run("[reasons]\nstring.gsub = \"off\"\n").err, "a name with a dot must be quoted"));
  ProcessResult inOverride = run("[[overrides]]\nfiles = [\"src\"]\nreasons = { FNWE = \"off\" }\n");
  CHECK(inOverride.exitCode == 2);
  CHECK(has(inOverride.err, "[[overrides]] reasons \"FNWE\""));
  CHECK(has(inOverride.err, "(did you mean FNEW?)"));
}

TEST_CASE("every reasonId the fixtures expect, its code and its subject are [reasons] names", "[cli][config]") {
  // The fixtures are the specification of what lint reports: each name a
  // user copies from a report must be accepted, on every profile.
  std::set<std::string> names;
  const std::string fixtures = std::string(LJCHECK_SOURCE_DIR) + "/fixtures";
  for (const auto& entry : std::filesystem::directory_iterator(fixtures)) {
    if (entry.path().extension() != ".lua") continue;
    for (const auto& a : ljcheck::readFixtureAnnotations(ljcheck::testing::readFile(entry.path().string())))
      for (const auto& id : a.reasonIds) {
        names.insert(id);
        auto colon = id.find(':');
        names.insert(id.substr(0, colon));
        if (colon != std::string::npos) names.insert(id.substr(colon + 1));
      }
  }
  REQUIRE(names.size() > 40);
  std::string toml = "[reasons]\n";
  for (const auto& n : names) toml += "\"" + n + "\" = \"warning\"\n";
  std::string dir = scratchDirectory("config-reason-names-fixtures");
  writeFile(dir + "/a.lua", "return 1\n");
  writeFile(dir + "/.ljcheck.toml", toml);
  for (const char* profile : {"debian-2.1-20220320", "openresty-2.1-20230119"}) {
    ProcessResult r = runLjcheck({"lint", "--brief", "--profile", profile, "a.lua"}, dir);
    INFO(profile << ": " << r.err);
    CHECK(r.exitCode == 0);
  }
}
