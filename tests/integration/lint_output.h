// Readers for ljcheck lint's output formats in the integration tests: an
// RFC 4180 parser that rejects what the RFC does not allow, percent-decoding,
// lines; and the Lua sources whose predictions the format tests look at.
#pragma once

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace ljcheck::testing {

inline const std::string kFnewFixture = "fixtures/nyibc_fnew_in_loop.lua";    // NYIBC:FNEW on line 4
inline const std::string kGsubFixture = "fixtures/stitch_string_gsub.lua";    // STITCH:string.gsub on line 5
inline const std::string kCleanFixture = "fixtures/clean_numeric_loop.lua";

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) out.push_back(line);
  return out;
}

// RFC 4180: records end in CRLF, fields are quoted when they hold a comma,
// a quote or a line break, and a quote inside a quoted field is doubled.
inline std::vector<std::vector<std::string>> parseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += text[++i];
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      REQUIRE(field.empty());  // a quote only opens a field
      quoted = true;
    } else if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
    } else if (c == '\r') {
      REQUIRE((i + 1 < text.size() && text[i + 1] == '\n'));
      record.push_back(std::move(field));
      field.clear();
      records.push_back(std::move(record));
      record.clear();
      ++i;
    } else {
      REQUIRE(c != '\n');  // a bare LF never ends a record
      field += c;
    }
  }
  REQUIRE(!quoted);
  REQUIRE(field.empty());
  REQUIRE(record.empty());  // the last record ends in CRLF too
  return records;
}

// %HH sequences back to bytes (URIs, SARIF artifact locations, pathBytes).
inline std::string percentDecode(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace ljcheck::testing
