// The language server re-lints an edited document from what it kept of the
// last analysis (analyzer.h, AnalysisReuse). Whatever it keeps, after every
// edit it must publish what a fresh `ljcheck lint` of the same text finds.
// Random one-line edits of real files, the real `ljcheck lsp` fed one
// session, a fresh `ljcheck lint --format json` per version.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../support/cli.h"
#include "lsp/framing.h"

using Json = nlohmann::json;
namespace fs = std::filesystem;
using ljcheck::testing::runLjcheck;

namespace {

std::string frame(const Json& message) {
  std::ostringstream out;
  ljcheck::lsp::writeFrame(out, message.dump());
  return out.str();
}

// The bodies of the frames `ljcheck lsp` wrote.
std::vector<Json> frames(const std::string& out) {
  std::vector<Json> messages;
  std::istringstream in(out);
  for (auto f = ljcheck::lsp::readFrame(in); f.status != ljcheck::lsp::Frame::Status::End;
       f = ljcheck::lsp::readFrame(in)) {
    INFO(f.error);
    REQUIRE(f.status == ljcheck::lsp::Frame::Status::Message);
    messages.push_back(Json::parse(f.body));
  }
  return messages;
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', start)) {
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  lines.push_back(text.substr(start));
  return lines;
}

// One edit inside one line: [from, to) of `line` (0-based, bytes; the files
// are ASCII, so bytes are UTF-16 units too) becomes `text`.
struct LineEdit {
  int line = 0;
  int from = 0, to = 0;
  std::string text;
};

std::string edited(const std::string& text, const LineEdit& e) {
  std::vector<std::string> lines = splitLines(text);
  std::string& l = lines[static_cast<std::size_t>(e.line)];
  l = l.substr(0, static_cast<std::size_t>(e.from)) + e.text + l.substr(static_cast<std::size_t>(e.to));
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  return out;
}

// What a user types: a digit changed (trip counts, constants), a closure,
// a vararg, a call or a line put in, a name changed, a piece of the line
// deleted, one library function called instead of another.
LineEdit randomEdit(const std::string& text, std::mt19937& random) {
  std::vector<std::string> lines = splitLines(text);
  auto pick = [&](std::size_t n) { return static_cast<int>(std::uniform_int_distribution<std::size_t>(0, n - 1)(random)); };
  LineEdit e;
  e.line = pick(lines.size());
  const std::string& l = lines[static_cast<std::size_t>(e.line)];
  const int length = static_cast<int>(l.size());
  static const std::vector<std::string> inserts = {
      "local _f = function() return 1 end ", "print(...) ", "x", "(", "1", "for _i = 1, 100 do end ",
      "string.gsub(\"a\", \"a\", \"b\") ", "local _u = {} ", "end ", "return ",
      "local _n = 1\n",  // a line more: every function below moves
  };
  // Names swapped for names of the same length: the bytecode changes, its
  // size does not (a fast function for one without a recorder, and back).
  static const std::vector<std::pair<std::string, std::string>> swaps = {
      {"gsub", "find"}, {"sqrt", "ceil"}, {"pairs", "print"}, {"insert", "concat"}};
  std::vector<LineEdit> swapsHere;
  for (std::size_t i = 0; i < lines.size(); ++i)
    for (const auto& [a, b] : swaps)
      for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}})
        for (auto at = lines[i].find(from); at != std::string::npos; at = lines[i].find(from, at + 1))
          swapsHere.push_back({static_cast<int>(i), static_cast<int>(at), static_cast<int>(at + from.size()), to});
  switch (pick(5)) {
    case 4:
      if (!swapsHere.empty()) return swapsHere[static_cast<std::size_t>(pick(swapsHere.size()))];
      [[fallthrough]];
    case 0: {  // a digit changed
      std::vector<int> digits;
      for (int i = 0; i < length; ++i)
        if (l[static_cast<std::size_t>(i)] >= '0' && l[static_cast<std::size_t>(i)] <= '9') digits.push_back(i);
      if (!digits.empty()) {
        e.from = digits[static_cast<std::size_t>(pick(digits.size()))];
        e.to = e.from + 1;
        e.text = std::string(1, static_cast<char>('0' + pick(10)));
        return e;
      }
      [[fallthrough]];
    }
    case 1:  // something inserted at the start of the line or at a random column
      e.from = e.to = pick(2) ? 0 : pick(static_cast<std::size_t>(length) + 1);
      e.text = inserts[static_cast<std::size_t>(pick(inserts.size()))];
      return e;
    case 2:  // one character replaced by a letter
      if (length > 0) {
        e.from = pick(static_cast<std::size_t>(length));
        e.to = e.from + 1;
        e.text = std::string(1, static_cast<char>('a' + pick(26)));
        return e;
      }
      return e;
    default:  // a piece deleted
      e.from = pick(static_cast<std::size_t>(length) + 1);
      e.to = std::min(length, e.from + pick(8));
      return e;
  }
}

Json position(int line, int character) { return {{"line", line}, {"character", character}}; }

// A lint report with only the predictions and errors of `path`.
Json onlyFile(Json report, const std::string& path) {
  for (const char* list : {"predictions", "errors"}) {
    Json kept = Json::array();
    for (const Json& item : report[list])
      if (item.value("path", "") == path) kept.push_back(item);
    report[list] = kept;
  }
  return report;
}

// A finding as both outputs show it: reasonId, line, severity, confidence,
// the construct's range (0-based, as LSP counts) and the masking site's line.
std::vector<std::string> fromLint(const Json& report, const std::string& text) {
  std::vector<std::string> rows;
  std::vector<std::string> lines = splitLines(text);
  for (const Json& p : report["predictions"]) {
    int line = p["line"];
    const Json& r = p["range"];
    bool found = r["start"]["line"].get<int>() > 0 && r["start"]["column"].get<int>() > 0;
    int l0 = found ? r["start"]["line"].get<int>() - 1 : line - 1;
    int c0 = found ? r["start"]["column"].get<int>() - 1 : 0;
    int l1 = found ? r["end"]["line"].get<int>() - 1 : line - 1;
    int c1 = found ? r["end"]["column"].get<int>() - 1 : static_cast<int>(lines[static_cast<std::size_t>(l0)].size());
    std::string masked = p.contains("maskedBy") ? p["maskedBy"]["reasonId"].get<std::string>() + "@" +
                                                      p["maskedBy"]["location"].get<std::string>().substr(
                                                          p["maskedBy"]["location"].get<std::string>().rfind(':') + 1)
                                                : "";
    rows.push_back(p["reasonId"].get<std::string>() + " line " + std::to_string(line) + " " +
                   p["severity"].get<std::string>() + " " + p["confidence"].get<std::string>() + " range " +
                   std::to_string(l0) + ":" + std::to_string(c0) + "-" + std::to_string(l1) + ":" +
                   std::to_string(c1) + " masked " + masked);
  }
  for (const Json& e : report["errors"])
    rows.push_back(e["kind"].get<std::string>() + " line " + std::to_string(e["line"].get<int>()));
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<std::string> fromLsp(const Json& params) {
  std::vector<std::string> rows;
  for (const Json& d : params["diagnostics"]) {
    const Json& r = d["range"];
    if (!d.contains("data")) {  // a file error: its line
      rows.push_back(d["code"].get<std::string>() + " line " + std::to_string(r["start"]["line"].get<int>() + 1));
      continue;
    }
    const Json& data = d["data"];
    std::string masked = data.contains("maskedBy") ? data["maskedBy"]["reasonId"].get<std::string>() + "@" +
                                                         data["maskedBy"]["location"].get<std::string>().substr(
                                                             data["maskedBy"]["location"].get<std::string>().rfind(':') + 1)
                                                   : "";
    rows.push_back(d["code"].get<std::string>() + " line " + std::to_string(data["line"].get<int>()) + " " +
                   data["severity"].get<std::string>() + " " + data["confidence"].get<std::string>() + " range " +
                   std::to_string(r["start"]["line"].get<int>()) + ":" + std::to_string(r["start"]["character"].get<int>()) +
                   "-" + std::to_string(r["end"]["line"].get<int>()) + ":" + std::to_string(r["end"]["character"].get<int>()) +
                   " masked " + masked);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace

// Where the edited document lies: on its own (no workspace root), alone in
// a workspace (as every editor names one, analyzed through the project the
// server keeps), or in a workspace beside the other files of its project
// fixture, which make its functions hot or give it their ctypes.
enum class Workspace { None, Alone, WithProject };

TEST_CASE("after random one-line edits the language server publishes what a fresh lint finds", "[lsp]") {
  auto [file, seed, workspace] = GENERATE(table<std::string, unsigned, Workspace>({
      {"examples/particles/world.lua", 11u, Workspace::None},
      {"examples/particles/world.lua", 11u, Workspace::Alone},
      {"fixtures/nyibc_fnew_masks_branch_return.lua", 32u, Workspace::None},
      {"fixtures/nyibc_fnew_masks_branch_return.lua", 32u, Workspace::Alone},
      {"fixtures/linner_called_from_aborting_loop.lua", 13u, Workspace::None},
      {"fixtures/linner_called_from_aborting_loop.lua", 13u, Workspace::Alone},
      {"fixtures/projects/hot_module/shapes.lua", 5u, Workspace::WithProject},
      {"fixtures/projects/cold_module/shapes.lua", 8u, Workspace::WithProject},
      {"fixtures/projects/ctype_module/main.lua", 5u, Workspace::WithProject},
      {"fixtures/projects/registered_ctypes/types.lua", 9u, Workspace::WithProject}}));
  CAPTURE(file, seed, static_cast<int>(workspace));
  constexpr std::size_t kEdits = 20;
  const std::string dir = ljcheck::testing::scratchDirectory(
      "lsp-random-edits-" + fs::path(file).parent_path().filename().string() + "-" + fs::path(file).stem().string() +
      "-" + std::to_string(seed) + (workspace == Workspace::None ? "" : "-workspace"));
  // Beside its project, the document keeps its name: the others require it by that name.
  const std::string name = workspace == Workspace::WithProject ? fs::path(file).filename().string() : "edited.lua";
  if (workspace == Workspace::WithProject)
    for (const auto& entry : fs::directory_iterator(fs::path(LJCHECK_SOURCE_DIR) / fs::path(file).parent_path()))
      fs::copy_file(entry.path(), fs::path(dir) / entry.path().filename());
  const std::string path = dir + "/" + name;
  const std::string uri = "file://" + path;
  std::string text = ljcheck::testing::readFile(std::string(LJCHECK_SOURCE_DIR) + "/" + file);
  int lastLine = 0;  // of the last edit
  REQUIRE(std::none_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }));

  Json initialize{{"capabilities", Json::object()}};
  if (workspace != Workspace::None) initialize["rootUri"] = "file://" + dir;
  std::string session = frame({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", initialize}});
  session += frame({{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"},
                    {"params", {{"textDocument", {{"uri", uri}, {"languageId", "lua"}, {"version", 1}, {"text", text}}}}}});
  // Each edit, and a fresh lint of the text after it. An edit that breaks
  // the syntax is undone by the next one (as one edit of the same line), the
  // way a user finishes typing, so the edits keep reaching the rules.
  std::mt19937 random(seed);
  std::vector<std::vector<std::string>> expected;  // by version - 2
  int withFindings = 0, broken = 0;
  std::string before;  // the text before the edit that broke it
  for (std::size_t i = 0; i < kEdits; ++i) {
    LineEdit e;
    if (!before.empty()) {
      e.line = lastLine;
      e.to = static_cast<int>(splitLines(text)[static_cast<std::size_t>(lastLine)].size());
      e.text = splitLines(before)[static_cast<std::size_t>(lastLine)];
    } else {
      e = randomEdit(text, random);
    }
    std::string after = edited(text, e);
    ljcheck::testing::writeFile(path, after);
    // Beside its project, the whole folder is linted (the other files' heat
    // and ctypes count) and the edited file's findings kept.
    auto lint = runLjcheck({"lint", "--no-config", "--format", "json", workspace == Workspace::WithProject ? "." : name}, dir);
    REQUIRE((lint.exitCode >= 0 && lint.exitCode <= 3));  // 3: the edit broke the syntax
    Json report = onlyFile(Json::parse(lint.out), name);
    expected.push_back(fromLint(report, after));
    withFindings += !report["predictions"].empty();
    bool syntaxError = !report["errors"].empty();
    broken += syntaxError;
    before = syntaxError && before.empty() ? text : "";
    lastLine = e.line;
    text = after;
    Json change{{"range", {{"start", position(e.line, e.from)}, {"end", position(e.line, e.to)}}}, {"text", e.text}};
    session += frame({{"jsonrpc", "2.0"}, {"method", "textDocument/didChange"},
                      {"params", {{"textDocument", {{"uri", uri}, {"version", static_cast<int>(i) + 2}}},
                                  {"contentChanges", Json::array({change})}}}});
  }
  session += frame({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}});
  session += frame({{"jsonrpc", "2.0"}, {"method", "exit"}});
  ljcheck::testing::writeFile(dir + "/session.txt", session);

  auto served = ljcheck::testing::runShell(ljcheck::testing::shellQuote(LJCHECK_EXE) + " lsp --no-config < " +
                                           ljcheck::testing::shellQuote(dir + "/session.txt"));
  REQUIRE(served.exitCode == 0);
  std::vector<Json> published;  // of the edited document (others may be re-published too)
  for (const Json& m : frames(served.out))
    if (m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
      published.push_back(m["params"]);
  REQUIRE(published.size() == expected.size() + 1);  // the open, then one per edit
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(published[i + 1]["version"] == static_cast<int>(i) + 2);
    CHECK(fromLsp(published[i + 1]) == expected[i]);
  }
  CHECK(withFindings > 0);  // the edits left code the rules speak about
  CHECK(broken > 0);        // and some broke it, for the server to recover from
}
