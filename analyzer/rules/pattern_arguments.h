// Evidence that an argument of a string-library call is a Lua pattern when
// the bytecode does not show its text: the local or upvalue it is read from
// is named for a pattern, or it is a parameter that a caller in this file
// fills with a string that has pattern special characters.
#pragma once

#include <string>
#include <string_view>

#include "rules/rule.h"

namespace ljcheck::rules {

struct PatternEvidence {
  bool found = false;     // false: nothing says the argument is a pattern
  std::string reasoning;  // a clause naming the evidence: "the argument is the parameter pattern"
};

// Names programmers give pattern strings: pattern, pat, patt, patn,
// trailing_ws_pattern, pat_sep; never path.
bool isPatternName(std::string_view name);

// What says the k-th argument (0-based) of the call at pc, a value of
// unknown text, is a Lua pattern with special characters.
PatternEvidence patternArgument(const FunctionView& fn, int pc, int k);

// The k-th argument of the call at pc is the literal false or nil (a plain
// flag that asks for a pattern search).
bool isFalseLiteral(const FunctionView& fn, int pc, int k);

}  // namespace ljcheck::rules
