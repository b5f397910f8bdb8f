// `std` and `globals` in .ljcheck.toml: builtins under other names resolve
// as the builtins themselves, and bad names are config errors at
// file:line:column.
#include <catch2/catch.hpp>

#include "../support/cli.h"
#include "../support/text_search.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::runLjcheck;
using ljcheck::testing::scratchDirectory;
using ljcheck::testing::writeFile;

using ljcheck::testing::has;

namespace {

std::string hotLoop(const std::string& gsub) {
  return "local out = {}\nfor i = 1, 1000 do\n  local s = " + gsub +
         "(\"a-b\", \"-\", \"+\")\n  out[i] = s\nend\nreturn out\n";
}

std::string project(const std::string& name, const std::string& source, const std::string& config) {
  std::string dir = scratchDirectory(name);
  writeFile(dir + "/a.lua", source);
  if (!config.empty()) writeFile(dir + "/.ljcheck.toml", config);
  return dir;
}


}  // namespace

TEST_CASE("a global alias of a library is predicted exactly as the library", "[cli][config][std]") {
  ProcessResult plain = runLjcheck({"lint", "--brief", "--format", "csv", "a.lua"},
                                   project("std-plain", hotLoop("str.gsub"), "\n"));
  CHECK_FALSE(has(plain.out, "string.gsub"));  // an unknown global: nothing to predict
  ProcessResult aliased = runLjcheck({"lint", "--brief", "--format", "csv", "a.lua"},
                                     project("std-alias", hotLoop("str.gsub"), "[globals]\nstr = \"string\"\n"));
  ProcessResult builtin = runLjcheck({"lint", "--brief", "--format", "csv", "a.lua"},
                                     project("std-builtin", hotLoop("string.gsub"), "\n"));
  CHECK(has(aliased.out, "a.lua,3,STITCH:string.gsub,stop,info,loop,13,certain,false"));
  CHECK(aliased.out == builtin.out);
  // A local copy through the alias, as the task asks: local s = str.gsub.
  ProcessResult local = runLjcheck(
      {"lint", "--brief", "a.lua"},
      project("std-local", "local gsub = str.gsub\nlocal out = {}\nfor i = 1, 1000 do out[i] = gsub('a', 'a', 'b') end\n"
                           "return out\n",
              "[globals]\nstr = \"string\"\n"));
  CHECK(has(local.out, "[STITCH:string.gsub]"));
}

TEST_CASE("std lua52compat makes table.unpack the builtin unpack", "[cli][config][std]") {
  const std::string source =
      "local out, t = {}, {...}\nfor i = 1, 1000 do\n  out[i] = table.unpack(t)\n  out[i] = bit32.tohex(i)\nend\n"
      "return out\n";
  ProcessResult none = runLjcheck({"lint", "--brief", "a.lua"}, project("std-none", source, "\n"));
  CHECK(none.out.empty());  // table.unpack is no member of LuaJIT's table library
  ProcessResult compat =
      runLjcheck({"lint", "--brief", "a.lua"}, project("std-compat", source, "std = \"luajit+lua52compat\"\n"));
  CHECK(compat.out == "a.lua:3:12: note: call to unpack is not compiled: the trace is stitched around it "
                      "[STITCH:unpack]\n");
  CHECK(compat.err.empty());
}

TEST_CASE("unknown std names and aliases of no builtin are config errors", "[cli][config][std]") {
  auto run = [](const std::string& name, const std::string& toml) {
    return runLjcheck({"lint", "a.lua"}, project(name, "return 1\n", toml));
  };
  ProcessResult unknown = run("std-unknown", "jobs = 1\nstd = \"luajit+openresty\"\n");
  CHECK(unknown.exitCode == 2);
  CHECK(has(unknown.err, ".ljcheck.toml:2:7: unknown std 'openresty'; known: luajit, lua52compat"));
  ProcessResult target = run("std-target", "[globals]\nstr = \"strng\"\n");
  CHECK(target.exitCode == 2);
  CHECK(has(target.err, ".ljcheck.toml:2:7: 'str' = 'strng': 'strng' is not a builtin of the recorder profile"));
  ProcessResult list = run("std-list", "globals = [\"ngx\"]\n");
  CHECK(list.exitCode == 2);
  CHECK(has(list.err, ".ljcheck.toml:1:11: 'globals' is a table of builtins under other names"));
  ProcessResult clean = run("std-clean", "std = \"luajit\"\n[globals]\nstr = \"string\"\n");
  CHECK(clean.exitCode == 0);
  CHECK(clean.err.empty());
}

TEST_CASE("an aliased call is confirmed at run time as the builtin", "[cli][config][std][verify]") {
  // tests/data/std_alias: prelude.lua sets str = string, main.lua calls
  // str.gsub in a hot loop, .ljcheck.toml says str is string.
  const std::string data = std::string(LJCHECK_SOURCE_DIR) + "/tests/data/std_alias";
  const std::string dir = scratchDirectory("std-verify");
  ProcessResult lint = runLjcheck({"lint", "--format", "json", "main.lua"}, data);
  REQUIRE(lint.exitCode == 0);
  writeFile(dir + "/lint.json", lint.out);
  REQUIRE(runLjcheck({"run", "--json", dir + "/run.json", "--", "main.lua"}, data).exitCode == 0);
  ProcessResult verify = runLjcheck({"verify", "--static", dir + "/lint.json", "--runtime", dir + "/run.json"}, data);
  CHECK(verify.exitCode == 0);
  CHECK(has(verify.out, "confirmed    main.lua:5"));
  CHECK(has(verify.out, "STITCH:string.gsub"));
  CHECK(has(verify.out, "total: 1 confirmed, 0 missed, 0 latent"));
}
