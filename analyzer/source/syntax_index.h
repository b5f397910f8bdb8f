// The constructs predictions point at, from one file's tokens and their
// nesting, each with the line LuaJIT gives its instruction. lj_parse.c
// stamps an instruction with the line of the last token consumed before it
// is emitted (ls->lastline): FNEW with the closure's `end`, the UCLO at a
// block's end with the block's last token, RET (and a tail call's CALLT)
// with the return's last token, a call with the token that opens its
// arguments.
#pragma once

#include <string_view>
#include <vector>

#include "ljcheck/prediction.h"

namespace ljcheck {

struct SyntaxIndex {
  // A function expression or declaration; functions[0] is the chunk.
  struct Function {
    int firstLine = 0, lastLine = 0;  // its `function` and `end`: the prototype's lines
    SourceRange keyword, end;
    SourcePosition firstClosure;  // where the first function nested in it starts; line 0: none
  };
  struct Call {
    int line = 0;  // its arguments' opening token, a string argument's last line; a tail call's last line
    int function = 0;
    int order = 0;     // 1-based, in evaluation order among the calls of `function` on `line`
    std::string_view name;      // the callee's last name: gsub for s:gsub and string.gsub
    std::string_view spelling;  // a callee of plain names as written: string.gsub; else empty
    SourceRange callee;
    bool inLoop = false;  // in a loop body of `function` (a for clause runs once)
    std::size_t opener = 0;  // the token that opens its arguments
  };
  struct Loop {
    int firstLine = 0, lastLine = 0;
    int bodyLine = 0;  // the body's first token; 0 when empty
    SourceRange keyword;
    bool holdsClosure = false;
  };
  // The end of a statement block (loop, do, if branch), where LuaJIT closes
  // its captured locals.
  struct BlockEnd {
    int line = 0;  // the block's last token (a repeat loop's: its condition's)
    bool loopBody = false;
    bool holdsClosure = false;
    SourceRange keyword;  // end, until, else, elseif
  };
  // return, break, goto.
  struct Exit {
    int firstLine = 0, lastLine = 0;
    int function = 0;
    bool isReturn = false;
    bool closes = false;  // upvalues may be closed here: its loop or function creates a closure
    SourceRange keyword;
  };
  struct Token {
    int line = 0;
    SourceRange range;
  };

  // Sorted by line (an exit by its last), in source order within a line:
  // an outer block or loop before its inner ones, calls in evaluation order.
  std::vector<Function> functions;  // in source order; Call::function and Exit::function index it
  std::vector<int> functionsByFirstLine, functionsByLastLine;
  std::vector<Call> calls;
  std::vector<Loop> loops;
  std::vector<BlockEnd> blockEnds;
  std::vector<Exit> exits;
  std::vector<Token> varargs;

  explicit SyntaxIndex(std::string_view source);  // names view `source`: it must outlive the index
};

}  // namespace ljcheck
