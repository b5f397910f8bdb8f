// The expectation comments of a fixture (fixtures/README.md, "Format"): the
// reason pages read them to pick each reason's example, the fixture tests to
// hold both halves to them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ljcheck {

struct FixtureAnnotation {
  int line = 0;
  std::string kind;     // "expect", "expect-runtime", "latent" or "timing"
  std::string profile;  // the [PROFILE] or [!PROFILE] tag without brackets; "" for every profile
  std::vector<std::string> reasonIds;
};

// Every annotation of every line but the first, in line order.
std::vector<FixtureAnnotation> readFixtureAnnotations(std::string_view source);

}  // namespace ljcheck
