// Bad inputs on the command line: every one gets a one-line message that
// names it, the other inputs are still analyzed and reported, nothing
// crashes, and the exit status is 3 when an input could not be read or
// compiled (the documented code), whatever else was found.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <nlohmann/json.hpp>

#include "../support/process.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::readFile;
using ljcheck::testing::writeFile;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A closure created in a loop body: NYIBC:FNEW on line 4, as in the fixture.
const std::string kClosureLoop =
    "-- a closure per iteration\n"
    "local n = 0\n"
    "for i = 1, 3000 do\n"
    "  local f = function(x) return x + 1 end\n"
    "  n = f(n)\n"
    "end\n"
    "assert(n == 3000)\n";
const std::string kGoodFinding = "good.lua:4:";  // how the good file's finding starts in text output

// A scratch project of its own per test, holding good.lua beside the bad input.
std::string project(const std::string& name) {
  std::string dir = ljcheck::testing::freshDirectory(std::string(LJCHECK_BINARY_DIR) + "/cli-tests/" + name);
  writeFile(dir + "/good.lua", kClosureLoop);
  return dir;
}

// Runs ljcheck in `dir` (the project root) and insists it ended by itself.
ProcessResult ljcheckIn(const std::string& dir, std::vector<std::string> args, int timeoutSeconds = 120) {
  args.insert(args.begin(), LJCHECK_EXE);
  ProcessResult r = ljcheck::testing::runProcess(args, dir, timeoutSeconds);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(!r.timedOut);
  REQUIRE(r.signal == 0);  // never a crash
  REQUIRE(r.exitCode >= 0);
  return r;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The lines of `text` that mention `what`.
std::string linesWith(const std::string& text, const std::string& what) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (line.find(what) != std::string::npos) out += line + "\n";
    start = end + 1;
  }
  return out;
}

// The checks every bad input shares: one message naming it, the good file
// still reported, and exit status 3.
void checkRefusedBesideGoodFile(const ProcessResult& r, const std::string& input, const std::string& message) {
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exitCode == 3);
  CHECK(linesWith(r.out, input + ":") == input + ": error: " + message + "\n");
  CHECK(count(r.out, kGoodFinding) == 1);
}

bool runningAsRoot() { return geteuid() == 0; }

}  // namespace

TEST_CASE("a syntax error is reported with LuaJIT's message and line, and other files are still linted", "[cli][bad-input]") {
  std::string dir = project("syntax-error");
  writeFile(dir + "/broken.lua", "local t = {\n  1,\n  2\nprint(t)\n");
  ProcessResult r = ljcheckIn(dir, {"lint", "--brief", "."});
  checkRefusedBesideGoodFile(r, "broken.lua:4", "'}' expected (to close '{' at line 1) near 'print'");

  ProcessResult j = ljcheckIn(dir, {"lint", "--brief", "--format", "json", "."});
  CHECK(j.exitCode == 3);
  json report = json::parse(j.out);
  REQUIRE(report.at("errors").size() == 1);
  CHECK(report["errors"][0] == json{{"path", "broken.lua"}, {"line", 4}, {"kind", "syntax"},
                                    {"message", "'}' expected (to close '{' at line 1) near 'print'"}});
  CHECK(report.at("predictions").size() == 1);
  CHECK(j.err == "broken.lua:4: error: '}' expected (to close '{' at line 1) near 'print'\n");

  // LuaJIT shortens a long chunk name to "...<tail>" in its message; the path is still said once.
  std::string deep = "very/" + std::string(80, 'd') + "/deep.lua";
  writeFile(dir + "/" + deep, "x = \n\n");
  ProcessResult longPath = ljcheckIn(dir, {"lint", "--brief", deep});
  CHECK(longPath.exitCode == 3);
  CHECK(longPath.out == deep + ":3: error: unexpected symbol near '<eof>'\n");
}

TEST_CASE("a binary file named *.lua is refused as not Lua source", "[cli][bad-input]") {
  std::string dir = project("binary-file");
  writeFile(dir + "/blob.lua", std::string("local a = 1\0\x01\x02\xff\xfe", 17));
  checkRefusedBesideGoodFile(ljcheckIn(dir, {"lint", "--brief", "."}), "blob.lua", "binary file, not Lua source");
}

TEST_CASE("an empty file is a clean file", "[cli][bad-input]") {
  std::string dir = project("empty-file");
  writeFile(dir + "/empty.lua", "");
  ProcessResult alone = ljcheckIn(dir, {"lint", "--brief", "empty.lua"});
  CHECK(alone.exitCode == 0);
  CHECK(alone.out.empty());
  CHECK(alone.err.empty());
  ProcessResult both = ljcheckIn(dir, {"lint", "--brief", "."});
  CHECK(both.exitCode == 1);
  CHECK(count(both.out, kGoodFinding) == 1);
}

TEST_CASE("a 50 MB file is refused as too large, without reading it", "[cli][bad-input]") {
  std::string dir = project("huge-file");
  {
    std::ofstream huge(dir + "/huge.lua", std::ios::binary);
    std::string block;
    for (int i = 0; i < 4096; ++i) block += "local x = 1\n";
    for (std::size_t written = 0; written < 50u << 20; written += block.size()) huge << block;
  }
  ProcessResult r = ljcheckIn(dir, {"lint", "--brief", "."}, 60);
  INFO(r.out << r.err);
  CHECK(r.exitCode == 3);
  CHECK(count(r.out, kGoodFinding) == 1);
  CHECK(linesWith(r.out, "huge.lua").find("huge.lua: error: file too large (") == 0);
  // The 50 MB were never loaded: the peak memory is that of linting good.lua alone.
  ProcessResult small = ljcheckIn(dir, {"lint", "--brief", "good.lua"});
  INFO("peak kB: " << r.maxResidentKb << " for the directory, " << small.maxResidentKb << " for good.lua");
  CHECK(r.maxResidentKb < small.maxResidentKb + 16 * 1024);

  SECTION("a device that never ends is read only up to the limit") {
    ProcessResult zero = ljcheckIn(dir, {"lint", "--brief", "/dev/zero", "good.lua"}, 60);
    CHECK(zero.exitCode == 3);
    CHECK(count(zero.out, kGoodFinding) == 1);
    CHECK(zero.out.find("/dev/zero: error: file too large (over ") != std::string::npos);
  }
  fs::remove(dir + "/huge.lua");
}

TEST_CASE("a path that does not exist is named, and the others are still linted", "[cli][bad-input]") {
  std::string dir = project("missing-path");
  ProcessResult r = ljcheckIn(dir, {"lint", "--brief", "good.lua", "missing.lua", "no/such/dir"});
  checkRefusedBesideGoodFile(r, "missing.lua", "no such file or directory");
  CHECK(r.out.find("no/such/dir: error: no such file or directory\n") != std::string::npos);
}

TEST_CASE("broken symlinks and directories named *.lua are handled", "[cli][bad-input]") {
  std::string dir = project("broken-links");
  fs::create_symlink("missing.lua", dir + "/broken.lua");
  fs::create_directories(dir + "/folder.lua");
  writeFile(dir + "/folder.lua/inner.lua", kClosureLoop);

  SECTION("walking the directory") {
    ProcessResult r = ljcheckIn(dir, {"lint", "--brief", "."});
    checkRefusedBesideGoodFile(r, "broken.lua", "cannot read: no such file or directory");
    CHECK(count(r.out, "folder.lua/inner.lua:4:") == 1);  // a directory is walked whatever its name
  }
  SECTION("named explicitly") {
    ProcessResult r = ljcheckIn(dir, {"lint", "--brief", "broken.lua", "good.lua"});
    checkRefusedBesideGoodFile(r, "broken.lua", "no such file or directory (broken symbolic link)");
  }
  SECTION("ljcheck run of a directory") {
    ProcessResult r = ljcheckIn(dir, {"run", "--", "folder.lua"});
    CHECK(r.exitCode == 127);
    CHECK(r.err.find("folder.lua") != std::string::npos);
  }
}

TEST_CASE("unreadable files and directories are named and skipped", "[cli][bad-input]") {
  std::string dir = project("unreadable");
  writeFile(dir + "/secret.lua", kClosureLoop);
  writeFile(dir + "/locked/inner.lua", kClosureLoop);
  writeFile(dir + "/zzz/after.lua", kClosureLoop);  // walked after the locked directory
  chmod((dir + "/secret.lua").c_str(), 0);
  chmod((dir + "/locked").c_str(), 0);

  // Permissions do not bind root: drop to nobody for the run when root.
  std::vector<std::string> command;
  if (runningAsRoot()) {
    if (!ljcheck::testing::runProcess({"setpriv", "--version"}).exitedNormally()) {
      WARN("running as root without setpriv: unreadable inputs cannot be tested");
      return;
    }
    command = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  }
  command.insert(command.end(), {LJCHECK_EXE, "lint", "--brief", "."});
  ProcessResult r = ljcheck::testing::runProcess(command, dir);
  chmod((dir + "/locked").c_str(), 0755);
  chmod((dir + "/secret.lua").c_str(), 0644);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exitedNormally());
  CHECK(r.exitCode == 3);
  CHECK(r.out.find("secret.lua: error: cannot open file: permission denied\n") != std::string::npos);
  CHECK(r.out.find("locked: error: cannot read directory: permission denied\n") != std::string::npos);
  CHECK(count(r.out, kGoodFinding) == 1);
  CHECK(count(r.out, "zzz/after.lua:4:") == 1);
}

TEST_CASE("symlink loops do not trap the directory walk", "[cli][bad-input]") {
  std::string dir = project("symlink-loops");
  fs::create_symlink("b.lua", dir + "/a.lua");
  fs::create_symlink("a.lua", dir + "/b.lua");
  fs::create_directories(dir + "/sub");
  fs::create_directory_symlink("..", dir + "/sub/up");
  fs::create_directory_symlink("../sub", dir + "/sub/self.lua");
  ProcessResult r = ljcheckIn(dir, {"lint", "--brief", "."}, 60);
  INFO(r.out << r.err);
  CHECK(r.exitCode == 3);
  CHECK(count(r.out, kGoodFinding) == 1);  // once: the link to the parent is not followed
  CHECK(count(r.out, "good.lua") == 1);
  CHECK(r.out.find("a.lua: error: cannot read: too many levels of symbolic links\n") != std::string::npos);
  CHECK(r.out.find("b.lua: error: cannot read: too many levels of symbolic links\n") != std::string::npos);

  ProcessResult named = ljcheckIn(dir, {"lint", "--brief", "a.lua", "good.lua"}, 60);
  checkRefusedBesideGoodFile(named, "a.lua", "too many levels of symbolic links");
}

TEST_CASE("a file name that is not UTF-8 is reported, and JSON output stays valid", "[cli][bad-input]") {
  std::string dir = project("non-utf8-name");
  const std::string name = "caf\xff\xfe.lua";
  writeFile(dir + "/" + name, kClosureLoop);
  ProcessResult text = ljcheckIn(dir, {"lint", "--brief", "."});
  CHECK(text.exitCode == 1);
  CHECK(text.out.find("caf\\xff\\xfe.lua:4:") != std::string::npos);  // bytes that are not UTF-8 as \xHH (docs/ci.md)

  ProcessResult j = ljcheckIn(dir, {"lint", "--brief", "--format", "json", "."});
  CHECK(j.exitCode == 1);
  json report;
  REQUIRE_NOTHROW(report = json::parse(j.out));
  REQUIRE(report.at("predictions").size() == 2);
  std::set<std::string> paths;
  for (const auto& p : report["predictions"]) paths.insert(p.at("path").get<std::string>());
  CHECK(paths == std::set<std::string>{"caf\xef\xbf\xbd\xef\xbf\xbd.lua", "good.lua"});  // U+FFFD for each bad byte
}

TEST_CASE("bytecode dumps: a good one is read, a cut or foreign one is refused by name", "[cli][bad-input]") {
  std::string dir = project("bytecode-dumps");
  ProcessResult dumped = ljcheck::testing::runProcess({"luajit", "-b", "-g", "good.lua", "dump.lua"}, dir);
  if (!dumped.exitedNormally() || dumped.exitCode != 0) {
    WARN("luajit -b is not available here: " << dumped.err);
    return;
  }
  std::string dump = readFile(dir + "/dump.lua");
  REQUIRE(dump.size() > 40);
  REQUIRE(dump.rfind("\x1bLJ", 0) == 0);
  writeFile(dir + "/cut.lua", dump.substr(0, dump.size() / 2));
  writeFile(dir + "/esc.lua", dump.substr(0, 1));
  std::string foreign = dump;
  foreign[4] = static_cast<char>(foreign[4] ^ 0x08);  // the FR2 flag: two-slot frames or not
  writeFile(dir + "/foreign.lua", foreign);

  ProcessResult r = ljcheckIn(dir, {"lint", "--brief", "."});
  INFO(r.out << r.err);
  CHECK(r.exitCode == 3);
  CHECK(count(r.out, "dump.lua:4:") == 1);  // a dump with debug info is linted like its source
  CHECK(count(r.out, kGoodFinding) == 1);
  CHECK(linesWith(r.out, "cut.lua").rfind("cut.lua: error: cannot read bytecode dump: truncated: ", 0) == 0);
  CHECK(linesWith(r.out, "esc.lua").rfind("esc.lua: error: cannot read bytecode dump: truncated: ", 0) == 0);
  CHECK(linesWith(r.out, "foreign.lua").rfind("foreign.lua: error: cannot read bytecode dump: foreign dump: ", 0) == 0);
  CHECK(count(r.out, "\n") == 5);  // one line each
}

TEST_CASE("ljcheck run: a missing script, a failing script and os.exit", "[cli][bad-input][run]") {
  std::string dir = project("run-scripts");

  SECTION("a script that does not exist is named, exit 127") {
    ProcessResult r = ljcheckIn(dir, {"run", "--json", "out.json", "--", "missing.lua"});
    CHECK(r.exitCode == 127);  // as a shell's command not found: a script may exit 3 itself
    CHECK(r.err.find("missing.lua") != std::string::npos);
    CHECK(r.err.find("No such file or directory") != std::string::npos);
  }
  SECTION("a script that raises an error: its message on stderr, exit 1, reports still written") {
    writeFile(dir + "/fails.lua", kClosureLoop + "error('the script gave up')\n");
    ProcessResult r = ljcheckIn(dir, {"run", "--json", "fails.json", "--trace", "fails.csv", "--", "fails.lua"});
    CHECK(r.exitCode == 1);
    CHECK(r.err.find("fails.lua:8: the script gave up") != std::string::npos);
    json report = json::parse(readFile(dir + "/fails.json"));
    CHECK(report.at("kind") == "runtime");
    CHECK(report.at("sites").dump().find("\"fails.lua:4\"") != std::string::npos);
    CHECK(readFile(dir + "/fails.csv").find(",NYIBC:FNEW,blocker,fails.lua:4,") != std::string::npos);
  }
  SECTION("os.exit(3) is the script's status, told apart from run's own failures") {
    writeFile(dir + "/three.lua", "os.exit(3)\n");
    CHECK(ljcheckIn(dir, {"run", "--json", "three.json", "--", "three.lua"}).exitCode == 3);
    CHECK(std::filesystem::exists(dir + "/three.json"));
  }
  SECTION("os.exit(7) ends with status 7 after the reports are written") {
    writeFile(dir + "/exits.lua", kClosureLoop + "os.exit(7)\n");
    ProcessResult r = ljcheckIn(dir, {"run", "--json", "exits.json", "--trace", "exits.csv", "--", "exits.lua"});
    CHECK(r.exitCode == 7);
    json report = json::parse(readFile(dir + "/exits.json"));
    CHECK(report.at("sites").dump().find("\"exits.lua:4\"") != std::string::npos);
    CHECK(readFile(dir + "/exits.csv").find(",NYIBC:FNEW,blocker,exits.lua:4,") != std::string::npos);
  }
}

TEST_CASE("ljcheck verify names a report it cannot use", "[cli][bad-input][verify]") {
  std::string dir = project("verify-inputs");
  ProcessResult lint = ljcheckIn(dir, {"lint", "--brief", "--format", "json", "good.lua"});
  REQUIRE(lint.exitCode == 1);
  writeFile(dir + "/lint.json", lint.out);
  REQUIRE(ljcheckIn(dir, {"run", "--json", "run.json", "--", "good.lua"}).exitCode == 0);
  writeFile(dir + "/malformed.json", "{\"tool\": \"ljcheck\", \"kind\": \"lint\", \"predictions\": [");

  SECTION("malformed JSON") {
    ProcessResult r = ljcheckIn(dir, {"verify", "--static", "malformed.json", "--runtime", "run.json"});
    CHECK(r.exitCode == 3);
    CHECK(r.err.rfind("ljcheck verify: malformed.json: not valid JSON", 0) == 0);
    CHECK(count(r.err, "\n") == 1);
  }
  SECTION("a runtime report given as --static") {
    ProcessResult r = ljcheckIn(dir, {"verify", "--static", "run.json", "--runtime", "run.json"});
    CHECK(r.exitCode == 3);
    CHECK(r.err.find("run.json: expected a lint report") != std::string::npos);
  }
  SECTION("a lint report given as --runtime") {
    ProcessResult r = ljcheckIn(dir, {"verify", "--static", "lint.json", "--runtime", "lint.json"});
    CHECK(r.exitCode == 3);
    CHECK(r.err.find("lint.json: expected a runtime report") != std::string::npos);
  }
  SECTION("a file that does not exist") {
    ProcessResult r = ljcheckIn(dir, {"verify", "--static", "lint.json", "--runtime", "run.json", "--runtime",
                                      "missing.json"});
    CHECK(r.exitCode == 3);
    CHECK(r.err == "ljcheck verify: missing.json: cannot open file: no such file or directory\n");
  }
  SECTION("reports from different recorder profiles are refused unless allowed") {
    json other = json::parse(readFile(dir + "/run.json"));
    other["traceProfile"]["id"] = "LuaJIT-2.1.ROLLING/arm64/OSX/other-build";
    other["traceProfile"]["name"] = "some-other-build";
    writeFile(dir + "/other.json", other.dump());
    ProcessResult refused = ljcheckIn(dir, {"verify", "--static", "lint.json", "--runtime", "other.json"});
    CHECK(refused.exitCode == 2);
    CHECK(refused.out.empty());
    CHECK(refused.err.find("refusing to join lint.json") != std::string::npos);
    CHECK(refused.err.find("some-other-build") != std::string::npos);
    CHECK(refused.err.find("--allow-profile-mismatch") != std::string::npos);

    ProcessResult allowed =
        ljcheckIn(dir, {"verify", "--static", "lint.json", "--runtime", "other.json", "--allow-profile-mismatch"});
    CHECK(allowed.exitCode == 0);
    CHECK(allowed.out.find("confirmed") != std::string::npos);
    CHECK(allowed.out.find("good.lua:4") != std::string::npos);
  }
}

namespace {

// The opcode number of `name` in the system LuaJIT (jit.vmdef), which wrote the dump; -1 when unknown.
int opcodeNumber(const std::string& name) {
  ProcessResult r = ljcheck::testing::runProcess(
      {"luajit", "-e",
       "local names = require('jit.vmdef').bcnames for i = 0, #names / 6 - 1 do "
       "if names:sub(i * 6 + 1, i * 6 + 6):match('^%S+') == '" + name + "' then io.write(i) end end"});
  return r.exitedNormally() && r.exitCode == 0 && !r.out.empty() ? std::stoi(r.out) : -1;
}

}  // namespace

TEST_CASE("a dump whose loop jumps out of its prototype is refused by name, at -j 1 and -j 2", "[cli][bad-input][forged]") {
  std::string dir = project("forged-dump");
  ProcessResult dumped = ljcheck::testing::runProcess({"luajit", "-b", "-g", "good.lua", "dump.lua"}, dir);
  int forl = opcodeNumber("FORL");
  if (!dumped.exitedNormally() || dumped.exitCode != 0 || forl < 0) {
    WARN("luajit -b or jit.vmdef is not available here: " << dumped.err);
    return;
  }
  // The main chunk's FORL jumps back (D below 0x8000): point it 32767 instructions back.
  std::string dump = readFile(dir + "/dump.lua");
  std::size_t at = std::string::npos;
  for (std::size_t i = 0; i + 3 < dump.size(); ++i)
    if (static_cast<unsigned char>(dump[i]) == forl && static_cast<unsigned char>(dump[i + 3]) == 0x7f) {
      at = i;
      break;
    }
  REQUIRE(at != std::string::npos);
  dump[at + 2] = dump[at + 3] = '\0';
  fs::remove(dir + "/dump.lua");
  writeFile(dir + "/forged.lua", dump);

  for (const std::string jobs : {"1", "2"}) {
    INFO("-j " << jobs);
    ProcessResult r = ljcheckIn(dir, {"lint", "--brief", "-j", jobs, "."});
    INFO(r.out << r.err);
    CHECK(r.exitCode == 3);
    CHECK(count(r.out, kGoodFinding) == 1);
    std::string refusal = linesWith(r.out, "forged.lua");
    CHECK(refusal.rfind("forged.lua: error: cannot read bytecode dump: prototype #1, pc ", 0) == 0);
    CHECK(refusal.find("(FORL): jump target pc -") != std::string::npos);
    CHECK(refusal.find("internal error") == std::string::npos);
    CHECK(count(r.out, "\n") == 2);

    ProcessResult j = ljcheckIn(dir, {"lint", "--brief", "-j", jobs, "--format", "json", "."});
    json report;
    REQUIRE_NOTHROW(report = json::parse(j.out));
    REQUIRE(report.at("errors").size() == 1);
    CHECK(report["errors"][0].at("path") == "forged.lua");
    CHECK(report.at("predictions").size() == 1);
  }
}

TEST_CASE("a FIFO named on the command line is refused, not waited on", "[cli][bad-input][fifo]") {
  std::string dir = project("fifo");
  REQUIRE(mkfifo((dir + "/pipe.lua").c_str(), 0644) == 0);
  ProcessResult named = ljcheckIn(dir, {"lint", "--brief", "pipe.lua", "good.lua"}, 30);
  checkRefusedBesideGoodFile(named, "pipe.lua", "is a named pipe (FIFO), not a file");
  // Walking the directory skips it without a word, as it skips devices.
  ProcessResult walked = ljcheckIn(dir, {"lint", "--brief", "."}, 30);
  CHECK(walked.exitCode == 1);
  CHECK(count(walked.out, kGoodFinding) == 1);
  CHECK(walked.out.find("pipe.lua") == std::string::npos);
  fs::remove(dir + "/pipe.lua");
}

TEST_CASE("a FIFO that a linted file requires is not opened", "[cli][bad-input][fifo]") {
  // The search for what `require("pipe")` loads (C module or Lua file)
  // used to open ./pipe.lua, which waits for a writer.
  std::string dir = project("fifo-required");
  REQUIRE(mkfifo((dir + "/pipe.lua").c_str(), 0644) == 0);
  writeFile(dir + "/main.lua", "local p = require(\"pipe\")\nfor i = 1, 100 do p.f(i) end\n");
  ProcessResult r = ljcheckIn(dir, {"lint", "--brief", "main.lua", "good.lua"}, 30);
  CHECK(r.exitCode == 1);
  CHECK(count(r.out, kGoodFinding) == 1);
  fs::remove(dir + "/pipe.lua");
}

TEST_CASE("an expression nested 60,000 deep beside an ljcheck comment does not overflow the stack", "[cli][bad-input][deep]") {
  std::string dir = project("deep-expression");
  std::string deep = "local x = 1";
  for (int i = 0; i < 60000; ++i) deep += "+1";
  deep += "\n-- ljcheck: allow(NYIBC:UCLO)\nfor i = 1, 3000 do\n  local f = function() return i + x end\n  x = f()\nend\n"
          "return x\n";
  writeFile(dir + "/deep.lua", deep);
  ProcessResult r = ljcheckIn(dir, {"lint", "--brief", "deep.lua", "good.lua"}, 120);
  INFO(r.out << r.err);
  CHECK(r.exitCode == 1);
  CHECK(count(r.out, kGoodFinding) == 1);
  CHECK(count(r.out, "deep.lua:4:") == 1);  // the closure, still found
  CHECK(r.out.find("NYIBC:FNEW") != std::string::npos);
  CHECK(r.out.find("deep.lua:6") == std::string::npos);  // the UCLO at the loop's end, allowed by the comment
  CHECK(r.out.find("NYIBC:UCLO") == std::string::npos);
}

TEST_CASE("ljcheck verify: counts near 2^63 from two runs saturate, and a negative count is refused by name", "[cli][bad-input][verify]") {
  std::string dir = project("verify-counts");
  ProcessResult lint = ljcheckIn(dir, {"lint", "--brief", "--format", "json", "good.lua"});
  REQUIRE(lint.exitCode == 1);
  writeFile(dir + "/lint.json", lint.out);
  REQUIRE(ljcheckIn(dir, {"run", "--json", "run.json", "--", "good.lua"}).exitCode == 0);
  json run = json::parse(readFile(dir + "/run.json"));
  REQUIRE(!run.at("sites").empty());
  const std::int64_t nearMax = std::numeric_limits<std::int64_t>::max() - 10;
  for (auto& site : run["sites"]) site["count"] = nearMax;
  writeFile(dir + "/a.json", run.dump());
  writeFile(dir + "/b.json", run.dump());

  ProcessResult joined =
      ljcheckIn(dir, {"verify", "--static", "lint.json", "--runtime", "a.json", "--runtime", "b.json", "--format", "json"});
  INFO(joined.out << joined.err);
  CHECK(joined.exitCode == 0);
  json v = json::parse(joined.out);
  std::size_t observed = 0;
  for (const auto& site : v.at("sites")) {
    if (!site.contains("observedCount") || site["observedCount"].get<std::int64_t>() == 0) continue;
    ++observed;
    CHECK(site["observedCount"].get<std::int64_t>() == std::numeric_limits<std::int64_t>::max());
  }
  CHECK(observed > 0);

  run["sites"][0]["count"] = -5;
  writeFile(dir + "/negative.json", run.dump());
  ProcessResult refused = ljcheckIn(dir, {"verify", "--static", "lint.json", "--runtime", "negative.json"});
  CHECK(refused.exitCode != 0);
  CHECK(refused.out.empty());
  CHECK(refused.err.rfind("ljcheck verify: negative.json: site ", 0) == 0);
  CHECK(refused.err.find("has a negative count (-5)") != std::string::npos);
  CHECK(count(refused.err, "\n") == 1);
  CHECK(refused.exitCode == 3);  // an input that cannot be used, as for any malformed report

  run["sites"][0]["count"] = 1e300;  // no longer a whole number the join can add
  writeFile(dir + "/huge.json", run.dump());
  ProcessResult huge = ljcheckIn(dir, {"verify", "--static", "lint.json", "--runtime", "huge.json"});
  CHECK(huge.exitCode == 3);
  CHECK(huge.err.find("huge.json: site ") != std::string::npos);
  CHECK(huge.err.find("has a count that is not a whole number") != std::string::npos);
}

TEST_CASE("ljcheck report: sample counts near 2^63 from two runs saturate in the totals", "[cli][bad-input][verify]") {
  // Every state count may be near 2^63 - 1: adding the states of one run, or
  // the same state of two runs, must neither wrap to a negative total nor be
  // undefined behaviour (UBSan fails the ASan stage on it).
  std::string dir = project("report-sample-counts");
  ProcessResult lint = ljcheckIn(dir, {"lint", "--brief", "--format", "json", "good.lua"});
  REQUIRE(lint.exitCode == 1);
  writeFile(dir + "/lint.json", lint.out);
  REQUIRE(ljcheckIn(dir, {"run", "--json", "run.json", "--", "good.lua"}).exitCode == 0);
  json run = json::parse(readFile(dir + "/run.json"));
  const std::int64_t nearMax = std::numeric_limits<std::int64_t>::max() - 10;
  run["samples"] = {{"intervalMs", 10}, {"compiled", nearMax}, {"interpreted", nearMax},
                    {"lines", json::array({{{"zonePath", ""}, {"compiled", nearMax}, {"interpreted", nearMax}}})}};
  writeFile(dir + "/a.json", run.dump());
  writeFile(dir + "/b.json", run.dump());
  ProcessResult md = ljcheckIn(
      dir, {"report", "--format", "md", "--static", "lint.json", "--runtime", "a.json", "--runtime", "b.json"});
  INFO(md.out << md.err);
  CHECK(md.exitCode == 0);
  CHECK(md.out.find("Samples: " + std::to_string(std::numeric_limits<std::int64_t>::max()) + ",") != std::string::npos);
  CHECK(md.out.find("Samples: -") == std::string::npos);
}

TEST_CASE("ljcheck verify: a line or sample count of 1e48 is refused by name", "[cli][bad-input][verify]") {
  // Found by fuzz/fuzz_reports: converting such a float to int was undefined behaviour.
  std::string dir = project("verify-huge-fields");
  ProcessResult lint = ljcheckIn(dir, {"lint", "--brief", "--format", "json", "good.lua"});
  REQUIRE(lint.exitCode == 1);
  writeFile(dir + "/lint.json", lint.out);
  REQUIRE(ljcheckIn(dir, {"run", "--json", "run.json", "--", "good.lua"}).exitCode == 0);
  json run = json::parse(readFile(dir + "/run.json"));
  REQUIRE(!run.at("sites").empty());
  json line = run;
  line["sites"][0]["line"] = 2.33333e48;
  writeFile(dir + "/line.json", line.dump());
  ProcessResult refused = ljcheckIn(dir, {"verify", "--static", "lint.json", "--runtime", "line.json"});
  CHECK(refused.exitCode == 3);
  CHECK(refused.err.find("line.json: 'line' must be a whole number") != std::string::npos);
  json fallback = run;
  fallback["sites"][0]["fallback"] = "yes";
  writeFile(dir + "/fallback.json", fallback.dump());
  ProcessResult flag = ljcheckIn(dir, {"verify", "--static", "lint.json", "--runtime", "fallback.json"});
  CHECK(flag.exitCode == 3);
  CHECK(flag.err.find("fallback.json: 'fallback' must be true or false, not \"yes\"") != std::string::npos);
  json cause = run;
  cause["sites"][0]["blacklistedBy"] = "x.lua:3";
  writeFile(dir + "/cause.json", cause.dump());
  ProcessResult by = ljcheckIn(dir, {"verify", "--static", "lint.json", "--runtime", "cause.json"});
  CHECK(by.exitCode == 3);
  CHECK(by.err.find("cause.json: 'blacklistedBy' must be an object, not \"x.lua:3\"") != std::string::npos);
  json aborts = run;
  aborts["totalAborts"] = 1e300;
  writeFile(dir + "/aborts.json", aborts.dump());
  ProcessResult total = ljcheckIn(dir, {"verify", "--static", "lint.json", "--runtime", "aborts.json"});
  CHECK(total.exitCode == 3);
  CHECK(total.err.find("aborts.json: 'totalAborts' must be a whole number") != std::string::npos);
  json version = run;  // found by the fuzz campaign under UBSan
  version["formatVersion"] = 9.22337e+19;
  writeFile(dir + "/version.json", version.dump());
  ProcessResult format = ljcheckIn(dir, {"verify", "--static", "lint.json", "--runtime", "version.json"});
  CHECK(format.exitCode == 3);
  CHECK(format.err.find("version.json: 'formatVersion' must be a whole number") != std::string::npos);
  json catalog = run;  // found by the fuzz campaign under UBSan, as above
  catalog["reasonCatalogVersion"] = 8.88889e+84;
  writeFile(dir + "/catalog.json", catalog.dump());
  ProcessResult catalogVersion = ljcheckIn(dir, {"verify", "--static", "lint.json", "--runtime", "catalog.json"});
  CHECK(catalogVersion.exitCode == 3);
  CHECK(catalogVersion.err.find("catalog.json: 'reasonCatalogVersion' must be a whole number") != std::string::npos);
}

TEST_CASE("a report that cannot be written is an error, whatever the command and whatever the script does",
          "[cli][bad-input]") {
  std::string dir = project("write-failures");
  writeFile(dir + "/exits.lua", kClosureLoop + "os.exit(5)\n");
  writeFile(dir + "/good.lua", kClosureLoop);
  REQUIRE(ljcheckIn(dir, {"run", "--json", "run.json", "--", "good.lua"}).exitCode == 0);
  REQUIRE(ljcheckIn(dir, {"lint", "--format", "json", "--fail-on", "none", "good.lua"}).exitCode == 0);
  writeFile(dir + "/lint.json", ljcheckIn(dir, {"lint", "--format", "json", "--fail-on", "none", "good.lua"}).out);
  // Standard output on a full disk: sh redirects it to /dev/full.
  auto toFullDisk = [&](const std::string& args) {
    return ljcheck::testing::runProcess({"/bin/sh", "-c", "exec '" LJCHECK_EXE "' " + args + " > /dev/full"}, dir);
  };
  for (const std::string& args : {std::string("verify --static lint.json --runtime run.json"),
                                  std::string("verify --static lint.json --runtime run.json --format json"),
                                  std::string("report --static lint.json --runtime run.json --format md")}) {
    INFO(args);
    ljcheck::testing::ProcessResult r = toFullDisk(args);
    CHECK(r.exitCode == 3);
    CHECK(r.err.find("cannot write to standard output") != std::string::npos);
  }
  // A report file that cannot be written at os.exit: run's own failure (125),
  // not the script's 5.
  ljcheck::testing::ProcessResult exits = ljcheckIn(dir, {"run", "-q", "--json", "/dev/full", "--", "exits.lua"});
  CHECK(exits.exitCode == 125);
  CHECK(exits.err.find("cannot write report file '/dev/full'") != std::string::npos);
  // A baseline that is a directory is named, a usage error.
  std::filesystem::create_directories(dir + "/baseline-dir");
  ljcheck::testing::ProcessResult baseline = ljcheckIn(dir, {"lint", "--baseline", "baseline-dir", "good.lua"});
  CHECK(baseline.exitCode == 2);
  CHECK(baseline.err.find("--baseline baseline-dir: cannot read the baseline: not a regular file") != std::string::npos);
}
