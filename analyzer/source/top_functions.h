// The functions of a Lua chunk that are not nested in another function: the
// main chunk's child prototypes, in the order LuaJIT creates them, with the
// byte offsets of the tokens that bound each (the language server compiles
// one of them alone after an edit inside it, function_splice.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ljcheck {

struct TopFunction {
  // `function a.b:c(` and `local function f(` are statements; anything
  // else (`M.f = function(`, `f(function(`) is an expression.
  enum class Form { Statement, Local, Expression };
  Form form = Form::Statement;
  std::size_t keyword = 0;  // its `function`
  std::size_t open = 0;     // the `(` of its parameters
  std::size_t end = 0;      // its `end`
  std::size_t blocks = 0;   // the blocks (do, if, while, for, repeat) it is nested in
};

struct TopFunctions {
  std::vector<TopFunction> functions;  // in source order
  std::size_t mainJumps = 0;           // goto, break and labels outside every function
};

// Of source that LuaJIT compiled without error; nullopt when its tokens do
// not nest as a compiled chunk's do.
std::optional<TopFunctions> topFunctions(std::string_view source);

// Whether `function`, the text of a function from its `function` keyword,
// ends with the `end` at offset `end` and not before: the block its first
// token opens closes with its last token, there.
bool endsAt(std::string_view function, std::size_t end);

}  // namespace ljcheck
