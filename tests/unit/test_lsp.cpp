// The language server's pieces the editors do not isolate: framing that
// recovers from a bad header, and incremental sync that counts UTF-16 code
// units (surrogate pairs included) or bytes, as negotiated.
#include <catch2/catch.hpp>
#include <sstream>
#include <stdexcept>

#include "ljcheck/analyzer.h"
#include "lsp/diagnostics.h"
#include "lsp/documents.h"
#include "lsp/framing.h"
#include "lsp/positions.h"

using namespace ljcheck::lsp;

namespace {

nlohmann::json change(int line0, int char0, int line1, int char1, const std::string& text) {
  return nlohmann::json::array({{{"range",
                                  {{"start", {{"line", line0}, {"character", char0}}},
                                   {"end", {{"line", line1}, {"character", char1}}}}},
                                 {"text", text}}});
}

}  // namespace

TEST_CASE("framing reads messages and resynchronises after a bad header", "[lsp]") {
  std::ostringstream written;
  writeFrame(written, "{\"a\":1}");
  REQUIRE(written.str() == "Content-Length: 7\r\n\r\n{\"a\":1}");
  std::istringstream in("Content-Length: x\r\n\r\n{}" + written.str() + "\r\n" + written.str() + "Content-Length: 9\r\n\r\n{}");
  Frame bad = readFrame(in);
  CHECK(bad.status == Frame::Status::BadHeader);
  CHECK_THAT(bad.error, Catch::Matchers::Contains("bad Content-Length 'x'"));
  Frame first = readFrame(in);
  REQUIRE(first.status == Frame::Status::Message);
  CHECK(first.body == "{\"a\":1}");
  CHECK(readFrame(in).body == "{\"a\":1}");
  CHECK(readFrame(in).status == Frame::Status::End);  // a body cut short: the client is gone
}

TEST_CASE("incremental changes count UTF-16 code units by default", "[lsp]") {
  DocumentStore store;
  // "𝄞" is one character, four bytes, two UTF-16 units; "é" two bytes, one unit.
  store.open("file:///t.lua", 1, "local a = '\xF0\x9D\x84\x9E' .. 'é' .. b\nreturn a\n");
  Document& d = store.change("file:///t.lua", 2, change(0, 25, 0, 26, "é"), PositionEncoding::Utf16);
  CHECK(d.text == "local a = '\xF0\x9D\x84\x9E' .. 'é' .. é\nreturn a\n");
  CHECK(d.version == 2);
  store.change("file:///t.lua", 3, change(0, 10, 1, 0, "1\n"), PositionEncoding::Utf16);
  CHECK(d.text == "local a = 1\nreturn a\n");
}

TEST_CASE("incremental changes count bytes under utf-8", "[lsp]") {
  DocumentStore store;
  store.open("file:///t.lua", 1, "x = 'é' .. y\n");
  Document& d = store.change("file:///t.lua", 2, change(0, 12, 0, 13, "z"), PositionEncoding::Utf8);
  CHECK(d.text == "x = 'é' .. z\n");
}

TEST_CASE("a bad change names what is wrong and leaves the text alone", "[lsp]") {
  DocumentStore store;
  store.open("file:///t.lua", 1, "return 1\n");
  CHECK_THROWS_WITH(store.change("file:///t.lua", 2, change(0, 5, 0, 2, "x"), PositionEncoding::Utf16),
                    Catch::Matchers::Contains("ends before it starts"));
  CHECK_THROWS_WITH(store.change("file:///u.lua", 2, change(0, 0, 0, 0, "x"), PositionEncoding::Utf16),
                    Catch::Matchers::Contains("not open: file:///u.lua"));
  CHECK(store.find("file:///t.lua")->text == "return 1\n");
  CHECK(store.find("file:///t.lua")->version == 1);
}

TEST_CASE("positions convert byte columns for the client's encoding", "[lsp]") {
  LineIndex lines("a\r\nx = '\xF0\x9D\x84\x9E' .. f\n");
  CHECK(lines.line(0) == "a");
  Position utf16 = lines.position(2, 15, PositionEncoding::Utf16);  // byte column of `f`
  CHECK(utf16.line == 1);
  CHECK(utf16.character == 12);
  CHECK(lines.position(2, 15, PositionEncoding::Utf8).character == 14);
  CHECK(lines.offset({1, 12}, PositionEncoding::Utf16) == 3 + 14);
  CHECK(uriToPath("file:///tmp/a%20b.lua") == "/tmp/a b.lua");
}

TEST_CASE("suppression comment problems are published as diagnostics coded by their id", "[lsp][suppressions]") {
  Document document;
  document.uri = "file:///p/a.lua";
  document.path = "/p/a.lua";
  document.text = "local x = 1\n  -- ljcheck: pop\nreturn x\n";
  document.result = ljcheck::analyzeSource(document.text, document.path, ljcheck::defaultProfile());
  auto params = nlohmann::json::parse(publishParams(document, DiagnosticStyle{}));
  const auto& diagnostics = params.at("diagnostics");
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0]["code"] == "unpaired-pop");
  CHECK(diagnostics[0]["severity"] == 2);
  CHECK(diagnostics[0]["range"]["start"] == nlohmann::json{{"line", 1}, {"character", 2}});
  CHECK(diagnostics[0]["range"]["end"]["line"] == 1);
}
