// A prediction: one site where the analyzer expects the trace recorder to
// abort or split a trace, in the registry's vocabulary.
#pragma once

#include <string>
#include <vector>

#include "ljcheck/reason.h"

namespace ljcheck {

// Where the construct runs: in a loop body, in a function body outside any
// loop (traced when the function gets hot or is inlined into a hot loop),
// or in the main chunk outside loops.
enum class Context { Loop, Function, Main };
std::string_view toString(Context c);

struct Prediction {
  std::string reasonId;  // NYIBC:FNEW, STITCH:string.gsub
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

  std::string location() const { return path + ":" + std::to_string(line); }
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
