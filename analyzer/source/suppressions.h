// `-- ljcheck: allow(...)` comments of a syntax tree (suppressions.cpp).
#pragma once

#include <tree_sitter/api.h>

#include <string_view>
#include <vector>

#include "ljcheck/source_map.h"

namespace ljcheck {

std::vector<SourceMap::Allow> allowComments(TSNode root, std::string_view source);

}  // namespace ljcheck
