// Whether a root trace that starts before a blocker gets to it: a call on
// the way that the recorder does not inline ends the root trace there (a
// stitch, a RETURN, a link to the trace of a loop the callee runs), and the
// blocker then aborts only the trace that resumes after it, which has a
// parent and is never penalized, so never blacklisted (`luajit -jv`:
// `stitch os.time`, then one abort of `(1/stitch)`).
#pragma once

#include "rules/rule.h"

namespace ljcheck::rules {

// The line of the first call in [from, to) of the function `fn` views that
// may end or split a root trace, 0 when every call there is inlined: a fast
// function the profile records in the form used, or a Lua function of this
// file that runs no loop and makes only such calls (looked into three
// levels deep). A callee the file does not resolve counts as one that may.
int splittingCallBetween(const FunctionView& fn, int from, int to);

}  // namespace ljcheck::rules
