// The extractor lives in its own executable, ljcheck-extract: the ljcheck
// binary needs no libclang or LLVM library at load time, and `ljcheck registry
// extract` runs ljcheck-extract from its own folder with the arguments as given.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "../support/cli.h"

using Catch::Contains;
using ljcheck::testing::ProcessResult;
using ljcheck::testing::readFile;
using ljcheck::testing::runLjcheck;
using ljcheck::testing::runProcess;
using ljcheck::testing::scratchDirectory;
namespace fs = std::filesystem;

namespace {

const std::string kSourceDir = LJCHECK_SOURCE_DIR;
const std::string kExtractExe = (fs::path(LJCHECK_EXE).parent_path() / "ljcheck-extract").string();

// The shared libraries an ELF file asks the loader for: the NEEDED entries of
// its dynamic section, as `readelf -d` prints them ("Shared library: [name]").
std::vector<std::string> neededLibraries(const std::string& elf) {
  ProcessResult r = runProcess({"readelf", "-d", "-W", elf});
  INFO("readelf -d " << elf << ": " << r.err);
  REQUIRE(r.exitCode == 0);
  std::vector<std::string> needed;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("(NEEDED)") == std::string::npos) continue;
    const auto open = line.find('['), close = line.rfind(']');
    REQUIRE(open != std::string::npos);
    REQUIRE(close > open);
    needed.push_back(line.substr(open + 1, close - open - 1));
  }
  return needed;
}

bool namesLlvm(const std::string& library) {
  return library.find("clang") != std::string::npos || library.find("LLVM") != std::string::npos;
}

}  // namespace

TEST_CASE("the ljcheck binary needs no libclang or LLVM library", "[cli][extract]") {
  const std::vector<std::string> needed = neededLibraries(LJCHECK_EXE);
  REQUIRE_FALSE(needed.empty());  // a dynamic executable: the check below means something
  for (const auto& library : needed) {
    INFO(LJCHECK_EXE << " needs " << library);
    CHECK_FALSE(namesLlvm(library));
  }
  // The extractor is where libclang went: the same check finds it there.
  const std::vector<std::string> extractorNeeds = neededLibraries(kExtractExe);
  CHECK(std::any_of(extractorNeeds.begin(), extractorNeeds.end(), namesLlvm));
}

TEST_CASE("registry extract --help is ljcheck-extract's, under the name it was called by", "[cli][extract]") {
  ProcessResult r = runLjcheck({"registry", "extract", "--help"});
  INFO(r.out << r.err);
  CHECK(r.exitCode == 0);
  CHECK_THAT(r.out, Contains("Usage: ljcheck registry extract [OPTIONS]") && Contains("--luajit-src") &&
                        Contains("--overlay") && Contains("--name") && Contains("--out"));

  ProcessResult direct = runProcess({kExtractExe, "--help"});
  CHECK(direct.exitCode == 0);
  CHECK_THAT(direct.out, Contains("Usage: ljcheck-extract [OPTIONS]") && Contains("--luajit-src"));
}

TEST_CASE("registry extract through ljcheck-extract regenerates the committed profile", "[cli][extract]") {
  const std::string out = scratchDirectory("registry-extract") + "/debian.json";
  ProcessResult r = runLjcheck({"registry", "extract", "--out", out, "--luajit-src",
                                kSourceDir + "/third_party/luajit-src", "--overlay",
                                kSourceDir + "/registry/overlays/debian-2.1-20220320.json"});
  INFO(r.out << r.err);
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.empty());
  CHECK(readFile(out) == readFile(kSourceDir + "/registry/profiles/debian-2.1-20220320.json"));
}

TEST_CASE("registry extract keeps its exit codes: 2 for usage, 3 for a bad tree", "[cli][extract]") {
  ProcessResult usage = runLjcheck({"registry", "extract"});
  CHECK(usage.exitCode == 2);
  CHECK_THAT(usage.err, Contains("ljcheck registry extract: --luajit-src is required"));

  const std::string nowhere = scratchDirectory("registry-extract-bad") + "/nowhere";
  ProcessResult bad = runLjcheck({"registry", "extract", "--luajit-src", nowhere});
  CHECK(bad.exitCode == 3);
  CHECK(bad.out.empty());
  CHECK_THAT(bad.err, Contains("ljcheck registry extract: ") && Contains(nowhere));
}

TEST_CASE("registry extract without ljcheck-extract beside ljcheck names where it looked", "[cli][extract]") {
  const std::string dir = scratchDirectory("registry-extract-alone");
  const std::string lone = dir + "/ljcheck";
  fs::copy_file(LJCHECK_EXE, lone);
  ProcessResult r = runProcess({lone, "registry", "extract", "--luajit-src", dir});
  INFO(r.out << r.err);
  CHECK(r.exitCode == 3);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Contains("cannot run " + dir + "/ljcheck-extract"));
  // Help asked for is still answered, and says what is missing.
  ProcessResult help = runProcess({lone, "registry", "extract", "--help"});
  CHECK(help.exitCode == 0);
  CHECK_THAT(help.out, Contains("Usage: ljcheck registry extract"));
  CHECK_THAT(help.out, Contains(dir + "/ljcheck-extract: No such file or directory"));
}
