// ctest runs each Catch test case by its name, which CMake keeps in a list:
// a ';' in a name cuts it there, the truncated name matches no test case,
// and Catch reports success having run nothing (two test cases went
// unnoticed that way). Every test source under tests/ is checked.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

TEST_CASE("no test case name holds a semicolon, which ctest would cut off", "[tests]") {
  // The name: the string literals right after TEST_CASE(, joined.
  const std::regex testCase(R"re(TEST_CASE\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+))re");
  std::size_t seen = 0;
  for (const auto& entry : fs::recursive_directory_iterator("tests")) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::sregex_iterator it(text.begin(), text.end(), testCase), end; it != end; ++it) {
      ++seen;
      INFO(entry.path().string() << ": " << (*it)[1].str());
      CHECK((*it)[1].str().find(';') == std::string::npos);
    }
  }
  CHECK(seen > 300);  // the sources were found (run from the repository root, as ctest does)
}
