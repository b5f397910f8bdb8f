// A prediction: one site where the analyzer expects the trace recorder to
// abort or split a trace, in the registry's vocabulary.
#pragma once

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

// An earlier certain abort that stops every trace before it reaches a site.
struct MaskingSite {
  std::string path;
  int line = 0;
  ReasonId reasonId;
  std::string location() const { return path + ":" + std::to_string(line); }
};

struct Prediction {
  ReasonId reasonId;  // NYIBC:FNEW, STITCH:string.gsub
  ReasonClass reasonClass = ReasonClass::Risk;
  Severity severity = Severity::Warn;
  std::string path;  // relative to the project root
  int line = 0;
  int column = 0;     // 1-based; 0 when unknown
  int endColumn = 0;  // 1-based, exclusive; 0 when unknown
  Context context = Context::Function;
  std::string construct;  // closure, upvalue close, vararg, call
  std::string callee;     // for calls: the resolved name, e.g. string.gsub
  std::string function;   // enclosing function: "name" or "<main>" or "<anonymous:12>"
  std::string message;
  std::string advice;
  Confidence confidence = Confidence::Likely;
  // One sentence: what the analyzer resolved and why it matters to the recorder.
  std::string reasoning;
  // The abort that masks this site, when one does. A masked site is not a
  // finding of its own: fix the masking site first.
  std::optional<MaskingSite> maskedBy;

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

struct FileResult {
  std::string path;
  std::vector<Prediction> predictions;
  std::vector<FileError> errors;
};

}  // namespace ljcheck
