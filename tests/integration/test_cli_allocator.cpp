// The ljcheck executable allocates with mimalloc when the build was asked to
// (-DLJCHECK_MIMALLOC=ON, cli/CMakeLists.txt; never in sanitizer builds), and
// with the C library's malloc otherwise:
// mimalloc says so on standard error when MIMALLOC_VERBOSE is set.
#include <catch2/catch.hpp>

#include <string>

#include "../support/process.h"
#include "../support/text_search.h"

using ljcheck::testing::has;
using ljcheck::testing::runShell;
using ljcheck::testing::shellQuote;

TEST_CASE("ljcheck runs on the allocator its build chose", "[cli][allocator]") {
  const std::string allocator = LJCHECK_ALLOCATOR;
  auto r = runShell("MIMALLOC_VERBOSE=1 " + shellQuote(LJCHECK_EXE) + " --version");
  REQUIRE(r.exitCode == 0);
  CHECK(has(r.out, "ljcheck "));
  if (allocator == "mimalloc")
    CHECK(has(r.err, "mimalloc: process init"));
  else
    CHECK_FALSE(has(r.err, "mimalloc"));
}
