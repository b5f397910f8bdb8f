// A prediction: one site where the analyzer expects the trace recorder to
// abort or split a trace, in the registry's vocabulary.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ljcheck/reason.h"

namespace ljcheck {

// Where the construct runs: in a loop body, in a function body outside any
// loop (traced when the function gets hot or is inlined into a hot loop),
// or in the main chunk outside loops.
enum class Context { Loop, Function, Main };
std::string_view toString(Context c);

// How sure the analyzer is that the recorder reports this site when the
// code runs hot, ordered: a larger value is surer. Certain: the recorder
// always refuses the construct and the site is known to be traced. Likely:
// refused, but whether it is traced, or the value it depends on, is inferred
// (a function that escapes, a table that may get a metatable elsewhere).
// Possible: structural predictions that depend on run-time trip counts,
// recursion depth or hot-counter timing.
enum class Confidence { Possible = 0, Likely = 1, Certain = 2 };
std::string_view toString(Confidence c);
std::optional<Confidence> parseConfidence(std::string_view text);  // "certain", "likely", "possible"

// A place in a source file: 1-based line, and 1-based column counted in
// bytes from the start of the line (an editor that counts UTF-16 or
// characters converts); column 0 when unknown.
struct SourcePosition {
  int line = 0;
  int column = 0;
};

// A span of source text, end exclusive; may cover several lines.
struct SourceRange {
  SourcePosition start, end;
  bool found() const { return start.line > 0 && start.column > 0; }
};

// An earlier certain abort that stops every trace before it reaches a site.
struct MaskingSite {
  std::string path;
  int line = 0;  // the VM's line: the join key, as in `location`
  ReasonId reasonId;
  // Where the masking prediction itself is shown (its range), when it is a
  // prediction of the same file that the source located; else not found.
  SourceRange range;
  std::string location() const { return path + ":" + std::to_string(line); }
  // path:line:col at the range's start where found, else `location`: how
  // text output names the site, at the position its own row shows.
  std::string shownLocation() const {
    if (!range.found()) return location();
    return path + ":" + std::to_string(range.start.line) + ":" + std::to_string(range.start.column);
  }
  // path:line at the range's start where found: for outputs whose columns
  // count something else than bytes (SARIF and GitHub count UTF-16 units).
  std::string shownLine() const {
    return path + ":" + std::to_string(range.found() ? range.start.line : line);
  }
};

struct Prediction {
  ReasonId reasonId;  // NYIBC:FNEW, STITCH:string.gsub
  ReasonClass reasonClass = ReasonClass::Risk;
  Severity severity = Severity::Warn;
  std::string path;  // relative to the project root
  int line = 0;  // the VM's line of the instruction: the join key with run-time reports
  // The construct on `line` (bytes, 1-based, end exclusive): `range`'s columns
  // when the range lies on `line`, else 0.
  int column = 0;
  int endColumn = 0;
  // The construct itself, for editors: a closure's `function` keyword (FNEW
  // is on the line of its `end`), a loop's keyword, the `end`, `break` or
  // `return` that closes upvalues, a return's keyword, a call's callee.
  // Not found (all 0) when the source does not show it.
  SourceRange range;
  // What the bytecode says to find the construct among several on `line`
  // (not written to reports): the first line of the function holding the
  // instruction (0 for the main chunk; -1 when unknown), and for calls which
  // call instruction of that function on `line` it is, 1-based in bytecode
  // order (0 when unknown). The source map counts the function's calls on
  // the line in evaluation order, the order LuaJIT emits them in.
  int functionLine = -1;
  int occurrence = 0;
  Context context = Context::Function;
  std::string construct;  // closure, upvalue close, vararg, call
  // The bytecode instruction the prediction is about (CALL, ITERC, FNEW,
  // MULVV for a metamethod), as LuaJIT names it; empty when it is none (a
  // function's entry, a loop). verify tells an unexercised site from a latent
  // one by it.
  std::string instruction;
  // Of a call: the instruction on the same line that loads its callee
  // (GGET for `error(...)`, TGETS for `s:find(...)`); empty when none. Two
  // calls on one line share CALL: verify counts a call exercised only when
  // its callee's load ran too (audit 79: `if s:find(p) then error(...) end`).
  std::string calleeInstruction;
  std::string callee;     // for calls: the resolved name, e.g. string.gsub
  // For a call whose split comes from its callee's tail call: the name the
  // call is written with, to find it on its line (not written to reports).
  std::string calledAs;
  std::string function;   // enclosing function: "name" or "<main>" or "<anonymous:12>"
  std::string message;
  std::string advice;
  Confidence confidence = Confidence::Likely;
  // One sentence: what the analyzer resolved and why it matters to the recorder.
  std::string reasoning;
  // The abort that masks this site, when one does. A masked site is not a
  // finding of its own: fix the masking site first.
  std::optional<MaskingSite> maskedBy;
  // Of a blocker whose loop is blacklisted: a function of the same file
  // that loop's interpreted calls blacklist in turn (rules/interpreted_calls.h):
  // the line of its entry and its name. verify counts that entry's LLEAVE and
  // the BLACKL of traces that call it as following this site.
  struct BlacklistedEntry {
    int line = 0;
    std::string function;
  };
  std::optional<BlacklistedEntry> blacklistsEntry;
  // What the lint baseline and SARIF's partialFingerprints know the site by
  // besides reasonId, path and function (site_fingerprints.cpp): a hash of
  // the text of the construct's first line without blanks, and which
  // occurrence of that (reasonId, function, text) in the file it is,
  // 0-based. Assigned before allow comments drop predictions, so hiding one
  // site never renumbers another; occurrence -1 until assigned (a bytecode
  // dump has no text).
  std::uint64_t siteTextHash = 0;
  int siteOccurrence = -1;

  std::string location() const { return path + ":" + std::to_string(line); }
  bool masked() const { return maskedBy.has_value(); }
};

// A file the analyzer could not analyze: unreadable, not text, or not valid Lua.
struct FileError {
  enum class Kind { Io, Syntax, Input };
  Kind kind = Kind::Io;
  std::string path;
  int line = 0;
  std::string message;
};

// A problem with a `-- ljcheck:` comment itself rather than with the code:
// a `push` never popped, a `pop` with no `push`, or an allow that suppresses
// no prediction. Reported beside the predictions under an ID of its own
// (directiveId), lower case so it can never be taken for a reasonId.
struct DirectiveProblem {
  enum class Kind { UnpairedPush, UnpairedPop, UnusedAllow, UnknownReason };
  Kind kind = Kind::UnusedAllow;
  std::string path;
  int line = 0, column = 0;  // the comment's start; column in bytes, 1-based
  Severity severity = Severity::Warn;
  std::string message;
  // unknown-reason: the ID as written, where it stands, and the known one
  // nearest it (empty when none is near), for an editor's replacing quickfix.
  std::string id, nearest;
  SourcePosition idStart;
};
// "unpaired-push", "unpaired-pop", "unused-allow", "unknown-reason".
std::string_view directiveId(DirectiveProblem::Kind kind);

struct FileResult {
  std::string path;
  std::vector<Prediction> predictions;
  std::vector<FileError> errors;
  std::vector<DirectiveProblem> directives;
  // The rules ran over its bytecode (it compiled, or its dump read): verify
  // judges observations only in such files (lint JSON's `linted`).
  bool analyzed = false;
};

}  // namespace ljcheck
