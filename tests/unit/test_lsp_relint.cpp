// The language server's re-lint after edits publishes what a fresh analysis
// of the same text publishes: the diagnostics it copies from the previous
// publish (lsp/published_diagnostics.h) must never differ from the ones it
// would have written. Real files, real edits, the real server in process.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ljcheck/analyzer.h"
#include "ljcheck/lsp_server.h"
#include "lsp/documents.h"
#include "lsp/framing.h"
#include "lsp/published_diagnostics.h"
#include "../support/process.h"

using Json = nlohmann::json;

namespace {

const char* const kUri = "file:///work/relint.lua";

std::string frame(const Json& message) {
  std::ostringstream out;
  ljcheck::lsp::writeFrame(out, message.dump());
  return out.str();
}

Json position(int line, int character) { return {{"line", line}, {"character", character}}; }

Json edit(int line0, int char0, int line1, int char1, const std::string& text) {
  return {{"range", {{"start", position(line0, char0)}, {"end", position(line1, char1)}}}, {"text", text}};
}

// Runs a session (initialize, the messages, shutdown, exit) through the
// server and returns the params of every publishDiagnostics, in order.
std::vector<Json> serve(const std::vector<Json>& messages) {
  std::string input = frame({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", {{"capabilities", Json::object()}}}});
  for (const auto& m : messages) input += frame(m);
  input += frame({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}});
  input += frame({{"jsonrpc", "2.0"}, {"method", "exit"}});
  std::istringstream in(input);
  std::ostringstream out;
  ljcheck::LanguageServerOptions options;
  options.docsUrl = "file:///docs/";
  REQUIRE(ljcheck::serveLanguageServer(in, out, options) == 0);
  std::istringstream written(out.str());
  std::vector<Json> published;
  for (auto f = ljcheck::lsp::readFrame(written); f.status == ljcheck::lsp::Frame::Status::Message;
       f = ljcheck::lsp::readFrame(written)) {
    Json m = Json::parse(f.body);
    if (m.value("method", "") == "textDocument/publishDiagnostics") published.push_back(m["params"]);
  }
  return published;
}

Json didOpen(int version, const std::string& text) {
  return {{"jsonrpc", "2.0"},
          {"method", "textDocument/didOpen"},
          {"params", {{"textDocument", {{"uri", kUri}, {"languageId", "lua"}, {"version", version}, {"text", text}}}}}};
}

Json didChange(int version, const Json& change) {
  return {{"jsonrpc", "2.0"},
          {"method", "textDocument/didChange"},
          {"params", {{"textDocument", {{"uri", kUri}, {"version", version}}}, {"contentChanges", Json::array({change})}}}};
}

// Edits around the first finding's line: columns that shift in bytes and
// not in UTF-16 units, text after the construct, lines added and removed,
// a syntax error and its repair.
std::vector<Json> editsAround(int line) {
  return {
      edit(line, 0, line, 0, "--[[\xC3\xA9]] "),  // é before the construct
      edit(line, 4, line, 5, "x"),                // é replaced: bytes shift back
      edit(line, 100000, line, 100000, " -- \xC3\xBC"),  // after the construct
      edit(0, 0, 0, 0, "local unused_a = 1\n"),           // every line moves down
      edit(line + 1, 0, line + 1, 0, "local = \n"),       // a syntax error
      edit(line + 1, 0, line + 2, 0, ""),                 // repaired
      edit(0, 0, 1, 0, ""),                               // every line moves back
      edit(line, 0, line, 8, ""),                         // the comment removed
  };
}

}  // namespace

TEST_CASE("after each edit the server publishes what a fresh analysis of the same text does", "[lsp]") {
  auto file = GENERATE(as<std::string>{}, "fixtures/nyibc_fnew_masks_branch_return.lua",
                       "fixtures/nyibc_uclo_return_after_callee_loop.lua", "fixtures/stitch_gmatch_loop_closure.lua",
                       "fixtures/linner_called_from_aborting_loop.lua", "examples/particles/world.lua");
  CAPTURE(file);
  std::string text = ljcheck::testing::readFile(std::string(LJCHECK_SOURCE_DIR) + "/" + file);
  std::vector<Json> opened = serve({didOpen(1, text)});
  REQUIRE(opened.size() == 1);
  REQUIRE(!opened[0]["diagnostics"].empty());
  int line = opened[0]["diagnostics"][0]["range"]["start"]["line"].get<int>();

  ljcheck::lsp::DocumentStore mirror;  // the text after each edit, for the fresh analyses
  mirror.open(kUri, 1, text);
  std::vector<Json> session{didOpen(1, text)};
  std::vector<Json> fresh;
  int version = 1;
  for (const Json& change : editsAround(line)) {
    ++version;
    session.push_back(didChange(version, change));
    const auto& after = mirror.change(kUri, version, Json::array({change}), ljcheck::lsp::PositionEncoding::Utf16);
    std::vector<Json> alone = serve({didOpen(version, after.text)});
    REQUIRE(alone.size() == 1);
    fresh.push_back(alone[0]);
  }
  std::vector<Json> edited = serve(session);
  REQUIRE(edited.size() == fresh.size() + 1);
  bool sawSyntaxError = false;
  for (std::size_t i = 0; i < fresh.size(); ++i) {
    CAPTURE(i);
    CHECK(edited[i + 1]["version"] == fresh[i]["version"]);
    CHECK(edited[i + 1]["diagnostics"] == fresh[i]["diagnostics"]);
    for (const auto& d : fresh[i]["diagnostics"]) sawSyntaxError |= d["code"] == "syntax";
  }
  CHECK(sawSyntaxError);  // the edits did reach the code
}

TEST_CASE("a re-publish copies the diagnostics an edit elsewhere did not change", "[lsp]") {
  std::string text = ljcheck::testing::readFile(std::string(LJCHECK_SOURCE_DIR) + "/fixtures/nyibc_fnew_masks_branch_return.lua");
  ljcheck::lsp::DocumentStore store;
  ljcheck::lsp::Document& d = store.open(kUri, 1, text + "\nlocal tail = 1\n");
  auto analyze = [&] { d.result = ljcheck::analyzeSource(d.text, d.path, ljcheck::defaultProfile()); };
  analyze();
  REQUIRE(d.result.predictions.size() >= 2);
  ljcheck::lsp::PublishedDiagnostics published;
  ljcheck::lsp::DiagnosticStyle style;
  std::string first = published.params(d, style);
  CHECK(published.reused() == 0);
  int last = ljcheck::lsp::LineIndex(d.text).lineCount() - 2;  // `local tail = 1`
  store.change(kUri, 2, Json::array({edit(last, 13, last, 14, "2")}), style.encoding);
  analyze();
  std::string second = published.params(d, style);
  CHECK(published.reused() == d.result.predictions.size());
  CHECK(second == ljcheck::lsp::publishParams(d, style));
  CHECK(second != first);  // the version moved on
}
