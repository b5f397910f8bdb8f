// `-- ljcheck: allow(...)`, `allow-file(...)`, `push allow(...)` and `pop`
// comments of a syntax tree (suppressions.cpp).
#pragma once

#include <tree_sitter/api.h>

#include <string_view>
#include <vector>

#include "ljcheck/prediction.h"
#include "ljcheck/source_map.h"

namespace ljcheck {

struct SuppressionComments {
  std::vector<SourceMap::Allow> allows;
  // Unpaired push and pop markers; `path` is left empty for the caller.
  std::vector<DirectiveProblem> unpaired;
};

SuppressionComments suppressionComments(TSNode root, std::string_view source);

}  // namespace ljcheck
