// File names are bytes from outside: a name with a newline, a comma, a quote,
// an escape sequence or bytes that are not UTF-8 must neither break a format
// nor rewrite the terminal, and the machine formats must keep it losslessly.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "../support/cli.h"
#include "lint_output.h"

using ljcheck::testing::ProcessResult;
using ljcheck::testing::runLjcheck;
using nlohmann::json;

namespace {

// One FNEW prediction each, in a directory of their own.
const std::vector<std::string> kNames{
    "new\nline.lua",
    "comma, \"quote\".lua",
    "bad\xff\xfe.lua",
    "esc\x1b[2J\x1b[1;1H.lua",
    "cr\rreturn.lua",
};

// One directory per format: ctest runs these test cases in parallel, and a
// shared one was emptied and refilled under another case's lint.
std::string oddNamesDirectory(const std::string& format) {
  std::string dir = ljcheck::testing::scratchDirectory("odd-names-" + format);
  std::string fixture = ljcheck::testing::readFile(std::string(LJCHECK_SOURCE_DIR) + "/" + ljcheck::testing::kFnewFixture);
  for (const auto& name : kNames) ljcheck::testing::writeFile(dir + "/" + name, fixture);
  return dir;
}

ProcessResult lint(const std::string& dir, const std::string& format) {
  ProcessResult r = runLjcheck({"lint", "--format", format, "."}, dir);
  CHECK(r.exitCode == 1);
  CHECK(r.err.empty());
  return r;
}

const std::set<std::string> kNameSet(kNames.begin(), kNames.end());

}  // namespace

TEST_CASE("odd file names: CSV stays RFC 4180 and keeps every byte", "[cli][names][csv]") {
  std::string dir = oddNamesDirectory("csv");
  auto rows = ljcheck::testing::parseCsv(lint(dir, "csv").out);
  REQUIRE(rows.size() == kNames.size() + 1);
  std::set<std::string> paths;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    CHECK(rows[i].size() == 9);
    paths.insert(rows[i][0]);
  }
  CHECK(paths == kNameSet);
}

TEST_CASE("odd file names: JSON stays valid, a name that is not UTF-8 keeps its bytes in pathBytes",
          "[cli][names][json]") {
  std::string dir = oddNamesDirectory("json");
  json report = json::parse(lint(dir, "json").out);  // nlohmann rejects invalid UTF-8
  std::set<std::string> paths;
  for (const auto& p : report.at("predictions")) {
    std::string path = p.at("path");
    if (p.contains("pathBytes")) {
      CHECK(path == "bad\xef\xbf\xbd\xef\xbf\xbd.lua");  // U+FFFD twice: readable, not the name
      path = ljcheck::testing::percentDecode(p.at("pathBytes"));
    }
    paths.insert(path);
  }
  CHECK(paths == kNameSet);
  // Only the name that needs it carries pathBytes.
  std::size_t withBytes = 0;
  for (const auto& p : report.at("predictions")) withBytes += p.contains("pathBytes") ? 1 : 0;
  CHECK(withBytes == 1);
}

TEST_CASE("odd file names: SARIF stays valid and its URIs decode to the names", "[cli][names][sarif]") {
  std::string dir = oddNamesDirectory("sarif");
  json sarif = json::parse(lint(dir, "sarif").out);
  std::set<std::string> paths;
  for (const auto& r : sarif.at("runs")[0].at("results")) {
    const json& artifact = r.at("locations")[0].at("physicalLocation").at("artifactLocation");
    std::string uri = artifact.at("uri");
    CHECK(uri.find_first_of(" \"\n\r\x1b") == std::string::npos);  // what a URI may not hold is encoded
    paths.insert(ljcheck::testing::percentDecode(uri));
  }
  CHECK(paths == kNameSet);
}

TEST_CASE("odd file names: text shows control bytes escaped, one line per diagnostic", "[cli][names][text]") {
  std::string dir = oddNamesDirectory("text");
  ProcessResult r = lint(dir, "text");
  for (char c : {'\x1b', '\r', '\xff', '\xfe'}) CHECK(r.out.find(c) == std::string::npos);
  auto out = ljcheck::testing::lines(r.out);
  REQUIRE(out.size() == 2 * kNames.size());  // each prediction and its note: no name added a line
  static const std::regex gcc(R"(^[^:]+:4:13: (error|note): .+$)");
  for (const auto& line : out) {
    INFO(line);
    CHECK(std::regex_match(line, gcc));
  }
  CHECK(r.out.find("new\\x0aline.lua:4:13: error: ") != std::string::npos);
  CHECK(r.out.find("esc\\x1b[2J\\x1b[1;1H.lua:4:13: error: ") != std::string::npos);
  CHECK(r.out.find("bad\\xff\\xfe.lua:4:13: error: ") != std::string::npos);
  CHECK(r.out.find("cr\\x0dreturn.lua:4:13: error: ") != std::string::npos);
  CHECK(r.out.find("comma, \"quote\".lua:4:13: error: ") != std::string::npos);  // printable text is kept
}

TEST_CASE("odd file names: a file error names the file escaped too", "[cli][names][text]") {
  std::string dir = ljcheck::testing::scratchDirectory("odd-error-name");
  ljcheck::testing::writeFile(dir + "/x\n./fake.lua:1:1: error: forged.lua", "for i = 1 do\n");
  ProcessResult r = runLjcheck({"lint", "."}, dir);
  CHECK(r.exitCode == 3);
  auto out = ljcheck::testing::lines(r.out);
  REQUIRE(out.size() == 1);  // the newline in the name forged no second diagnostic
  CHECK(out[0].rfind("x\\x0a./fake.lua:1:1: error: forged.lua:1: error: ", 0) == 0);
}
