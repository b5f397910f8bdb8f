// The reason pages under docs/reasons/: one Markdown page per catalog code
// (what it means, the smallest fixture that shows it, what to do) and an
// index, generated from the catalog, the profiles and the fixtures by
// `ljcheck registry docs`; and the page a reasonId links to.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ljcheck/profile.h"
#include "ljcheck/reason.h"

namespace ljcheck {

// Where the pages live, relative to the repository root.
inline constexpr std::string_view kReasonDocsDir = "docs/reasons";

// The page of a reasonId's code, relative to the repository root:
// "docs/reasons/NYIBC.md" for NYIBC:FNEW. "" when the built-in catalog has
// no such code (TRACEERR99 from an unknown build), so no link is broken.
std::string reasonDocsPage(std::string_view reasonId);

// A fixture as the pages quote it.
struct FixtureSource {
  std::string path;  // fixtures/x.lua, relative to the repository root
  std::string text;
};

// Every page by file name: one per code ("NYIBC.md") and the index
// ("README.md"). The same inputs give the same bytes.
std::map<std::string, std::string> renderReasonDocs(const ReasonCatalog& catalog,
                                                    const std::vector<RecorderProfile>& profiles,
                                                    const std::vector<FixtureSource>& fixtures);

}  // namespace ljcheck
