// The reason pages: where a reasonId's page is, and how a page is made from
// the catalog and the smallest fixture that shows the code. That the
// committed docs/reasons/ is what the generator writes is checked end to end
// in tests/integration/test_cli_registry.cpp.
#include <catch2/catch.hpp>

#include <algorithm>

#include "ljcheck/reason_docs.h"

using namespace ljcheck;
using Catch::Contains;

namespace {

const ReasonCatalog& tinyCatalog() {
  static const ReasonCatalog catalog = ReasonCatalog::fromJson(R"({"catalogId": "ljcheck-reasons", "catalogVersion": 2,
    "aliases": [{"sinceVersion": 2, "from": "NYIFF", "to": "STITCH", "why": "renamed"}],
    "reasons": [
      {"code": "NYIBC", "class": "blocker", "severity": "warn", "title": "Bytecode the recorder does not compile",
       "explanation": "No recorder for it.", "advice": "Move it out of the loop."},
      {"code": "STITCH", "kind": "split", "class": "stop", "severity": "info", "title": "Stitched call",
       "explanation": "Split.", "advice": "Nothing."},
      {"code": "LINNER", "class": "stop", "severity": "info", "benign": true, "title": "Inner loop",
       "explanation": "Inner.", "advice": "Nothing."}]})");
  return catalog;
}

const std::vector<FixtureSource> kFixtures = {
    {"fixtures/nyibc_big.lua",
     "-- NYIBC:FNEW: big\nfor i = 1, 100 do\n  local f = function() end -- expect: NYIBC:FNEW\nend\n"},
    {"fixtures/nyibc_small.lua", "-- NYIBC:UCLO: small\nlocal x -- expect: NYIBC:UCLO\n"},
    {"fixtures/a_latent.lua", "-- only latent\nlocal f -- latent: STITCH:print\n"},
    {"fixtures/stitch_tagged.lua",
     "-- STITCH\nprint() -- expect[openresty-2.1-20230119]: STITCH:print -- expect-runtime: LINNER\n"},
};

}  // namespace

TEST_CASE("a reasonId's page is its code's, under docs/reasons/", "[registry][docs]") {
  CHECK(reasonDocsPage("NYIBC:FNEW") == "docs/reasons/NYIBC.md");
  CHECK(reasonDocsPage("NYIBC") == "docs/reasons/NYIBC.md");
  CHECK(reasonDocsPage("STITCH:string.gsub") == "docs/reasons/STITCH.md");
  CHECK(reasonDocsPage("RETURN:C") == "docs/reasons/RETURN.md");
  CHECK(reasonDocsPage("LINNER") == "docs/reasons/LINNER.md");
  // A code the catalog does not hold (an unknown build's trace error) has no page.
  CHECK(reasonDocsPage("TRACEERR99").empty());
  CHECK(reasonDocsPage("../../etc/passwd").empty());
}

TEST_CASE("one page per catalog code and an index", "[registry][docs]") {
  auto pages = renderReasonDocs(ReasonCatalog::builtin(), builtinProfiles(), {});
  CHECK(pages.size() == ReasonCatalog::builtin().reasons().size() + 1);
  for (const auto& r : ReasonCatalog::builtin().reasons()) {
    INFO(r.code);
    REQUIRE(pages.count(r.code + ".md"));
    CHECK_THAT(pages.at(r.code + ".md"), Contains("# " + r.code + ": " + r.title) && Contains(r.advice));
    CHECK_THAT(pages.at("README.md"), Contains("[" + r.code + "](" + r.code + ".md)"));
  }
  CHECK_THAT(pages.at("NYIBC.md"), Contains("message `NYI: bytecode %d`"));
  CHECK_THAT(pages.at("NYIBC.md"), Contains("No fixture in `fixtures/` shows this reason yet."));
}

TEST_CASE("a page quotes the smallest fixture that expects its code", "[registry][docs]") {
  auto pages = renderReasonDocs(tinyCatalog(), {}, kFixtures);
  const std::string& nyibc = pages.at("NYIBC.md");
  CHECK_THAT(nyibc, Contains("[`fixtures/nyibc_small.lua`](../../fixtures/nyibc_small.lua) shows it on "
                             "line 2 (`expect: NYIBC:UCLO`)"));
  CHECK_THAT(nyibc, Contains("```lua\n-- NYIBC:UCLO: small\nlocal x -- expect: NYIBC:UCLO\n```"));
  CHECK_THAT(nyibc, Contains("**reasonIds in the fixtures**: `NYIBC:FNEW`, `NYIBC:UCLO`"));
  CHECK_THAT(nyibc, !Contains("nyibc_big.lua"));
  CHECK_THAT(nyibc, Contains("`-- ljcheck: allow(NYIBC)`") &&
                        Contains("`allow(NYIBC:FNEW)` accepts that subject only"));
  CHECK_THAT(pages.at("LINNER.md"), Contains("`-- ljcheck: allow(LINNER)`") && !Contains("subject"));
  // A latent annotation is no example; a profile-tagged one is, and says so.
  const std::string& stitch = pages.at("STITCH.md");
  CHECK_THAT(stitch, Contains("line 2 (`expect[openresty-2.1-20230119]: STITCH:print`)"));
  CHECK_THAT(stitch, Contains("a trace split around a call the recorder does not compile"));
  CHECK_THAT(pages.at("LINNER.md"), Contains("line 2 (`expect-runtime: LINNER`)") && Contains("**benign**"));
  CHECK_THAT(pages.at("README.md"), Contains("| `NYIFF` | 2 | `STITCH` | renamed |"));
}

TEST_CASE("the same inputs give the same pages", "[registry][docs]") {
  auto reversed = kFixtures;
  std::reverse(reversed.begin(), reversed.end());
  CHECK(renderReasonDocs(tinyCatalog(), {}, kFixtures) == renderReasonDocs(tinyCatalog(), {}, reversed));
}
