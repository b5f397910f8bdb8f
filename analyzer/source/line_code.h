// One line of Lua as a quick scan sees it, without the lexer: which bytes
// are code, outside quoted strings and the `--` comment. Long strings and
// long comments that span lines are not seen; the callers scan the VM's
// line where the syntax index has nothing (columns.cpp), or a line's text
// for its identity (site_fingerprints.cpp).
#pragma once

#include <string_view>
#include <vector>

namespace ljcheck {

// Per byte of the line: true for code, false inside a quoted string or the comment.
std::vector<bool> codeMask(std::string_view line);

// The line up to its `--` comment (one outside a quoted string).
std::string_view withoutComment(std::string_view line);

}  // namespace ljcheck
