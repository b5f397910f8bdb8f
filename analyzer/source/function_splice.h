// The language server's shortcut after an edit inside one function: compile
// that function alone and splice its prototypes into the document's last
// dump, instead of compiling the whole document again.
//
// Applies when the edit lies strictly inside the parameters and body of one
// of the main chunk's child functions (after its `(`, before its `end`, with
// no identifier byte put right before the `end`) and adds or removes no
// line break. The function is
// compiled in a chunk of its own, on its original lines, after `local`
// declarations of the main chunk's locals in scope at its FNEW (same slots,
// same names): a statement (`function M.f(`, `local function f(`) as
// itself in as many `do` blocks as enclose it in the document, an
// expression as `return function(...) ... end` in as many parentheses as
// its old text allows (at least its depth in the document). Its old text,
// compiled so, must first give the old dump's bytes, which proves the span,
// the declarations and the line for this function. The result is the dump
// a full compile of the new text gives; whenever that cannot be shown (see
// SpliceOutcome), splice() declines and the caller compiles in full.
//
// Byte for byte, but for one thing LuaJIT itself does not keep: the order
// of a template table's hash part follows its keys' string ids
// (lj_str.c), which change when a string is collected and interned again,
// so two full compiles of one text in one VM may order it differently.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ljcheck/compile.h"
#include "ljcheck/dump_reread.h"
#include "source/top_functions.h"

namespace ljcheck {

enum class SpliceOutcome {
  Spliced,
  NoLastDump,         // no dump of the last text (first analysis, syntax error, a dump as input)
  Unchanged,          // the text is the last one: its dump is the last one
  NotInOneFunction,   // the edit is not strictly inside the body of one top-level function
  LinesChanged,       // the edit adds or removes a line break
  TooLarge,           // near a LuaJIT parser limit that the function alone would not meet
  NotValidated,       // compiled alone, the function's old text does not give its old bytes
  DoesNotCompile,     // compiled alone, the new text has an error (or nests deeper than the old)
  LinesMoved,         // the new prototype starts or ends on another line
  UpvaluesChanged,    // it captures other locals (or in another order)
  FfiChanged,         // it gains or loses a cdata literal (the main chunk's flag follows it)
  MutabilityChanged,  // an upvalue's immutability, which siblings share, would change
};
const char* describe(SpliceOutcome outcome);

class FunctionSplicer {
 public:
  // The dump of `source`, made from the dump `last` holds of the text
  // remember() was last given (that dump itself when `source` is that
  // text); nullopt: compile `source` in full.
  std::optional<std::string> splice(std::string_view source, const bytecode::DumpRereader::LastRead& last,
                                    const bytecode::OpcodeTable& opcodes, LuaCompiler& compiler,
                                    std::string_view chunkPath);
  // `source` is the text whose dump was just read and kept; `spliced`:
  // that dump came from the last splice().
  void remember(std::string_view source, bool spliced);
  // The last read holds no dump of a known text.
  void forget();
  // Of the last splice().
  SpliceOutcome outcome() const { return outcome_; }

 private:
  // What was shown for a top-level function: the depth its chunk of its own
  // needs, and which of its upvalues its current text assigns.
  struct Checked {
    int padding = 0;
    std::vector<bool> assigns;
  };
  // The edited function: where it is and what its chunk of its own declares.
  struct Target {
    std::size_t which = 0;      // index into functions_
    std::size_t index = 0;      // its prototype in the last dump
    std::ptrdiff_t growth = 0;  // bytes the text grew by
    std::size_t newEnd = 0;     // its `end` in the new text
    std::string declarations;   // `local a,b ` for the main chunk's locals in scope
  };
  std::optional<std::string> decline(SpliceOutcome why);
  // Finds the one function the edit lies in (Spliced) or says why not.
  SpliceOutcome locate(std::string_view source, const bytecode::Chunk& chunk, Target& target);
  // The target's Checked, shown on its first edit: its old text, compiled
  // alone, gives its old bytes (`realRun`); nullptr when it does not.
  const Checked* check(const Target& target, const bytecode::Prototype& real, std::string_view realRun,
                       const bytecode::OpcodeTable& opcodes, LuaCompiler& compiler, std::string_view chunkPath);

  std::string text_;
  bool known_ = false;
  std::optional<TopFunctions> functions_;  // of text_, found on the first edit after a full compile
  std::map<std::size_t, Checked> checked_;  // by index into functions_
  SpliceOutcome outcome_ = SpliceOutcome::NoLastDump;
  std::size_t splicedFunction_ = 0;  // of the last splice: which function, and how many bytes it grew
  std::ptrdiff_t growth_ = 0;
};

}  // namespace ljcheck
