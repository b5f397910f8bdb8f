// A module function that tail-calls a library function the recorder does not
// compile (`function M.words(s) return s:gmatch("%a+") end`): the tail call
// leaves no frame of the module function behind, so the VM reports the split
// at the line that called it, in the calling file. What one file exports of
// these, and another imports, by "module:member".
#pragma once

#include <functional>
#include <map>
#include <string>

namespace ljcheck::flow {

struct TailCalledBuiltin {
  std::string builtin;            // the fast function's name: "string.gmatch"
  bool receiverInferred = false;  // `return s:gmatch(p)`: s taken for a string by what the method gets
  int line = 0;                   // the tail call's line in the defining file
  std::string definedIn = {};     // that file, as reports show it (set where it is imported)
  // A stitch every path to the tail call runs through, in the defining file
  // (rules::stitchBeforeTailCall): the tail call then ends the trace (RETURN).
  int stitchLine = 0;
  std::string stitchCallee = {};
  // A branch of the defining function can go around the tail call: the
  // data decides whether hot calls get there (audit 67: `if M.level >= 3
  // then return print(...) end`, never taken).
  bool behindBranch = false;
  // A fast function the recorder compiles, called in a form it refuses with
  // an abort (`return ffi.new("uint8_t[?]", n, 0)`: NYICONV): the abort's
  // code, and why, as the defining file's FFI rule says it. Empty for a
  // split.
  std::string abortCode = {};
  std::string abortMessage = {};
  std::string abortWhy = {};
};

inline bool sameTailCall(const TailCalledBuiltin& a, const TailCalledBuiltin& b) {
  return a.builtin == b.builtin && a.receiverInferred == b.receiverInferred && a.line == b.line &&
         a.definedIn == b.definedIn && a.stitchLine == b.stitchLine && a.stitchCallee == b.stitchCallee &&
         a.behindBranch == b.behindBranch && a.abortCode == b.abortCode && a.abortMessage == b.abortMessage &&
         a.abortWhy == b.abortWhy;
}

using ImportedTailCalls = std::map<std::string, TailCalledBuiltin, std::less<>>;

}  // namespace ljcheck::flow
