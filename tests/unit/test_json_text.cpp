// JSON string escaping: plain runs are found eight bytes at a time, so every
// byte that needs escaping or replacing is tried at every offset around an
// eight-byte word, and each result is read back by a strict JSON parser.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "output/json_text.h"

using namespace ljcheck;

namespace {

std::string readBack(const std::string& literal) { return nlohmann::json::parse(literal).get<std::string>(); }

}  // namespace

TEST_CASE("JSON strings: each special byte at every offset around an eight-byte word", "[output][json]") {
  struct Case {
    std::string in, out;  // `out`: what a JSON reader gets back
  };
  const Case cases[] = {
      {"\"", "\""},         {"\\", "\\"},       {"\n", "\n"},
      {"\t", "\t"},         {"\r", "\r"},       {std::string(1, '\0'), std::string(1, '\0')},
      {"\x01", "\x01"},     {"\x1f", "\x1f"},   {"\x7f", "\x7f"},
      {" ", " "},           {"\xc3\xa9", "\xc3\xa9"},  // é: UTF-8, kept as it is
      {"\xe2\x82\xac", "\xe2\x82\xac"},                // €
      {"\xff", "\xef\xbf\xbd"},                        // not UTF-8: U+FFFD
      {"\xc3", "\xef\xbf\xbd"},                        // a sequence cut short
  };
  for (const Case& c : cases) {
    for (std::size_t before = 0; before <= 17; ++before) {
      for (std::size_t after : {0u, 1u, 7u, 8u, 9u}) {
        const std::string text = std::string(before, 'a') + c.in + std::string(after, 'b');
        std::string literal;
        appendJsonString(literal, text);
        INFO("before " << before << ", after " << after << ", literal " << literal);
        CHECK(literal.front() == '"');
        CHECK(literal.back() == '"');
        CHECK(readBack(literal) == std::string(before, 'a') + c.out + std::string(after, 'b'));
      }
    }
  }
}

TEST_CASE("JSON strings: plain text is copied as it is, and the part after the quote pairs with it",
          "[output][json]") {
  const std::string text = "STITCH:string.gsub is not compiled (lj_ffrecord.c); the loop at line 12 runs 3000 times";
  std::string literal;
  appendJsonString(literal, text);
  CHECK(literal == "\"" + text + "\"");
  std::string afterQuote = "\"";
  appendJsonStringAfterQuote(afterQuote, text);
  CHECK(afterQuote == literal);
  std::string empty;
  appendJsonString(empty, "");
  CHECK(empty == "\"\"");
}
