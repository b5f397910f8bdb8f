// Splicing one recompiled top-level function into the last dump (see
// function_splice.h). The LuaJIT facts it rests on, from lj_parse.c and
// lj_bcwrite.c:
// - A prototype's bytes come from its own FuncState, except its upvalue
//   refs: slot and name of each captured local (the declarations give the
//   same ones) and PROTO_UV_IMMUTABLE, which fs_fixup_uv2 sets unless some
//   function of the parent's scope, or the parent, assigns the local
//   (VSTACK_VAR_RW); here only the function itself can.
// - Its first line is that of `function` (a statement) or of `(` (a
//   `local function` or an expression), its lines are relative to that;
//   its `end`'s line ends it.
// - The parent takes from it a constant slot (the same) and PROTO_FFI.
// - Parsing it can fail for its context only through the syntax depth
//   (LJ_MAX_XLEVEL), the variable stack shared with the enclosing
//   functions (LJ_MAX_VSTACK) and the shared instruction stack
//   (LJ_MAX_BCINS).
// - Prototypes are written children first, so a function and everything
//   nested in it are consecutive prototypes, the function last.
#include "source/function_splice.h"

#include <algorithm>
#include <cstring>

#include "ljcheck/dump_layout.h"

namespace ljcheck {
namespace {

using bytecode::Chunk;
using bytecode::Prototype;

constexpr int kMaxSyntaxLevel = 200;                  // LJ_MAX_XLEVEL, lj_def.h
constexpr std::size_t kMaxVariableStack = 65536 - 60;  // LJ_MAX_VSTACK, lj_parse.c
constexpr std::size_t kMaxInstructions = 1u << 26;     // LJ_MAX_BCINS, lj_def.h
// Bounds per byte of a function's text: every variable, goto and label
// stack entry takes a name, `self` (a `:`), `for` (three hidden variables)
// or `break`; no token emits more than a few instructions.
constexpr std::size_t kStackEntriesPerByte = 2;
constexpr std::size_t kInstructionsPerByte = 16;
constexpr std::size_t kEndLength = 3;  // `end`

struct Edit {
  std::size_t begin = 0;   // first byte that differs
  std::size_t oldEnd = 0;  // end of the replaced bytes in the old text
  std::size_t newEnd = 0;  // and of their replacement in the new one
};

// The common prefix and suffix, found a block at a time with memcmp (a
// 100 KB document is compared on every edit), then byte by byte.
Edit difference(std::string_view before, std::string_view after) {
  constexpr std::size_t kBlock = 256;
  const std::size_t shorter = std::min(before.size(), after.size());
  std::size_t prefix = 0;
  while (prefix + kBlock <= shorter && std::memcmp(before.data() + prefix, after.data() + prefix, kBlock) == 0)
    prefix += kBlock;
  while (prefix < shorter && before[prefix] == after[prefix]) ++prefix;
  const std::size_t most = shorter - prefix;
  std::size_t suffix = 0;
  while (suffix + kBlock <= most &&
         std::memcmp(before.data() + before.size() - suffix - kBlock, after.data() + after.size() - suffix - kBlock,
                     kBlock) == 0)
    suffix += kBlock;
  while (suffix < most && before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix]) ++suffix;
  return {prefix, before.size() - suffix, after.size() - suffix};
}

bool isIdentifierByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_' || u >= 0x80;
}

bool hasLineBreak(std::string_view text) { return text.find_first_of("\r\n") != std::string_view::npos; }

std::size_t subtreeSize(const Chunk& chunk, std::size_t index) {
  std::size_t n = 1;
  for (std::size_t child : chunk.prototypes[index].children) n += subtreeSize(chunk, child);
  return n;
}

// The main chunk's locals in scope where it creates child `child`, in slot
// order: the ones live at its FNEW (startpc <= pc < endpc, pcs counting the
// FUNCV header as 0). A `local function`'s own name, in scope in its body
// but live only after the FNEW, is declared by the statement itself.
// Internal names ("(for index)") get names no Lua text can spell: a 0xFF
// byte is an identifier byte to lj_lex.c, and never part of UTF-8.
std::optional<std::vector<std::string>> localsInScope(const Prototype& main, std::size_t child) {
  std::optional<std::size_t> constant;
  for (std::size_t k = 0; k < main.gc.size(); ++k)
    if (main.gc[k].kind == bytecode::GcConstant::Kind::Child && main.gc[k].child == child) constant = k;
  if (!constant) return std::nullopt;
  int fnew = 0;
  for (int pc = 1; pc <= main.size() && fnew == 0; ++pc)
    if (main.at(pc).op == bytecode::Op::FNEW && main.at(pc).d == *constant) fnew = pc;
  if (fnew == 0) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& v : main.vars) {
    if (v.startpc > fnew || fnew >= v.endpc) continue;
    bool internal = v.name.empty() || v.name[0] == '(';
    names.push_back(internal ? "\xff" + std::to_string(names.size()) : v.name);
  }
  return names;
}

// The chunk that compiles top-level function `f` of `text` (its `end` at
// `end`) alone, its first line on `line`, after `declarations`. A statement
// stays one, in as many `do` blocks as it is nested in: the syntax depth
// it has in the document. An expression is returned, `padding` parentheses
// deep.
std::string aloneChunk(std::string_view text, const TopFunction& f, std::size_t end, int line,
                       const std::string& declarations, int padding) {
  const std::string_view function = text.substr(f.keyword, end + kEndLength - f.keyword);
  std::string out(static_cast<std::size_t>(line - 1), '\n');
  out += declarations;
  if (f.form == TopFunction::Form::Expression) {
    out += "return ";
    out.append(static_cast<std::size_t>(padding), '(');
    out += function;
    out.append(static_cast<std::size_t>(padding), ')');
    return out;
  }
  for (std::size_t i = 0; i < f.blocks; ++i) out += "do ";
  if (f.form == TopFunction::Form::Local) out += "local ";
  out += function;
  for (std::size_t i = 0; i < f.blocks; ++i) out += " end";
  return out;
}

// A function compiled alone: its chunk's dump as read.
struct Alone {
  bytecode::DumpRereader reader;
  Chunk chunk;
  const Prototype& function() const { return chunk.prototypes[chunk.prototypes.size() - 2]; }
  // Its prototypes' bytes with the upvalue refs' immutability of `real`.
  std::string run(const Prototype& real) const {
    const auto& layout = reader.last();
    const std::size_t last = chunk.prototypes.size() - 2;
    if (chunk.prototypes[last].upvalues.size() != real.upvalues.size()) return {};
    std::string bytes(bytecode::prototypeRun(layout, 0, last));
    const std::size_t begin = layout.headerLength;
    const auto [start, length] = layout.spans[last];
    const std::size_t refs =
        start - begin +
        bytecode::upvalueRefsAt(std::string_view(layout.dump).substr(start, length), chunk.stripped);
    for (std::size_t i = 0; i < real.upvalues.size(); ++i)
      bytecode::setUpvalueImmutable(bytes, refs + 2 * i, real.upvalues[i].immutable, chunk.bigEndian);
    return bytes;
  }
};

std::optional<Alone> compileAlone(LuaCompiler& compiler, const std::string& text,
                                  const bytecode::OpcodeTable& opcodes, std::string_view chunkPath) {
  CompileResult compiled = compiler.compile(text, chunkPath);
  if (!compiled.ok()) return std::nullopt;
  Alone alone;
  alone.chunk = alone.reader.read(compiled.dump, opcodes, chunkPath);
  const auto& protos = alone.chunk.prototypes;
  if (protos.size() < 2 || protos.back().children.size() != 1 || protos.back().children[0] != protos.size() - 2)
    return std::nullopt;
  return alone;
}

// Which upvalues a function compiled alone assigns: there nothing else can.
std::vector<bool> assigned(const Prototype& alone) {
  std::vector<bool> out;
  for (const auto& uv : alone.upvalues) out.push_back(!uv.immutable);
  return out;
}

bool sameCaptures(const Prototype& a, const Prototype& b) {
  if (a.upvalues.size() != b.upvalues.size() || a.upvalueNames != b.upvalueNames) return false;
  for (std::size_t i = 0; i < a.upvalues.size(); ++i)
    if (a.upvalues[i].parentLocal != b.upvalues[i].parentLocal || a.upvalues[i].index != b.upvalues[i].index)
      return false;
  return true;
}

// Whether every upvalue keeps its immutability in the whole chunk: an
// immutable one must stay unassigned, and a mutable one that only this
// function may have assigned must stay assigned by it.
bool sameMutability(const Prototype& real, const std::vector<bool>& assignedBefore, const Prototype& alone) {
  for (std::size_t i = 0; i < real.upvalues.size(); ++i) {
    const bool assignsNow = !alone.upvalues[i].immutable;
    if (real.upvalues[i].immutable && assignsNow) return false;
    if (!real.upvalues[i].immutable && assignedBefore[i] && !assignsNow) return false;
  }
  return true;
}

}  // namespace

const char* describe(SpliceOutcome outcome) {
  switch (outcome) {
    case SpliceOutcome::Spliced: return "spliced";
    case SpliceOutcome::NoLastDump: return "no last dump";
    case SpliceOutcome::Unchanged: return "unchanged";
    case SpliceOutcome::NotInOneFunction: return "not inside one function";
    case SpliceOutcome::LinesChanged: return "lines changed";
    case SpliceOutcome::TooLarge: return "too large";
    case SpliceOutcome::NotValidated: return "not validated";
    case SpliceOutcome::DoesNotCompile: return "does not compile alone";
    case SpliceOutcome::LinesMoved: return "lines moved";
    case SpliceOutcome::UpvaluesChanged: return "upvalues changed";
    case SpliceOutcome::FfiChanged: return "ffi flag changed";
    case SpliceOutcome::MutabilityChanged: return "mutability changed";
  }
  return "?";
}

std::optional<std::string> FunctionSplicer::decline(SpliceOutcome why) {
  outcome_ = why;
  return std::nullopt;
}

std::optional<std::string> FunctionSplicer::splice(std::string_view source,
                                                   const bytecode::DumpRereader::LastRead& last,
                                                   const bytecode::OpcodeTable& opcodes, LuaCompiler& compiler,
                                                   std::string_view chunkPath) {
  if (!known_ || !last.kept || last.chunk.prototypes.empty()) return decline(SpliceOutcome::NoLastDump);
  if (source == text_) {  // a full compile gives the same dump
    outcome_ = SpliceOutcome::Unchanged;
    splicedFunction_ = 0;
    growth_ = 0;
    return last.dump;
  }
  Target target;
  if (SpliceOutcome why = locate(source, last.chunk, target); why != SpliceOutcome::Spliced) return decline(why);
  const Chunk& chunk = last.chunk;
  const Prototype& real = chunk.prototypes[target.index];
  const std::size_t first = target.index + 1 - subtreeSize(chunk, target.index);
  const std::string_view realRun = bytecode::prototypeRun(last, first, target.index);
  const Checked* checked = check(target, real, realRun, opcodes, compiler, chunkPath);
  if (!checked) return decline(SpliceOutcome::NotValidated);

  // Compiled alone, the function could end early, at an `end` typed into
  // it, with what follows parsed as the main chunk's: its tokens must close
  // its first block at its `end` and not before.
  const TopFunction& f = functions_->functions[target.which];
  if (!endsAt(source.substr(f.keyword, target.newEnd + kEndLength - f.keyword), target.newEnd - f.keyword))
    return decline(SpliceOutcome::NotInOneFunction);
  std::optional<Alone> now = compileAlone(
      compiler, aloneChunk(source, f, target.newEnd, real.firstline, target.declarations, checked->padding), opcodes,
      chunkPath);
  if (!now) return decline(SpliceOutcome::DoesNotCompile);
  const Prototype& alone = now->function();
  if (alone.firstline != real.firstline || alone.numline != real.numline) return decline(SpliceOutcome::LinesMoved);
  if (!sameCaptures(alone, real)) return decline(SpliceOutcome::UpvaluesChanged);
  if ((alone.flags & Prototype::Ffi) != (real.flags & Prototype::Ffi)) return decline(SpliceOutcome::FfiChanged);
  if (!sameMutability(real, checked->assigns, alone)) return decline(SpliceOutcome::MutabilityChanged);

  const std::size_t runBegin = static_cast<std::size_t>(realRun.data() - last.dump.data());
  std::string dump;
  dump.reserve(last.dump.size() + now->reader.last().dump.size());
  dump.append(last.dump, 0, runBegin);
  dump += now->run(real);
  dump.append(last.dump, runBegin + realRun.size());
  checked_[target.which].assigns = assigned(alone);
  splicedFunction_ = target.which;
  growth_ = target.growth;
  outcome_ = SpliceOutcome::Spliced;
  return dump;
}

SpliceOutcome FunctionSplicer::locate(std::string_view source, const Chunk& chunk, Target& target) {
  const Edit edit = difference(text_, source);
  if (hasLineBreak(std::string_view(text_).substr(edit.begin, edit.oldEnd - edit.begin)) ||
      hasLineBreak(source.substr(edit.begin, edit.newEnd - edit.begin)))
    return SpliceOutcome::LinesChanged;
  if (!functions_) functions_ = topFunctions(text_);
  const Prototype& main = chunk.main();
  if (!functions_ || functions_->functions.size() != main.children.size()) return SpliceOutcome::NotInOneFunction;
  const auto& functions = functions_->functions;
  auto after = std::upper_bound(functions.begin(), functions.end(), edit.begin,
                                [](std::size_t at, const TopFunction& f) { return at < f.keyword; });
  if (after == functions.begin()) return SpliceOutcome::NotInOneFunction;
  target.which = static_cast<std::size_t>(after - functions.begin()) - 1;
  const TopFunction& f = functions[target.which];
  // Its name, its `(` and its `end` stay, and no identifier byte comes to
  // stand before the `end` (lj_char.h): the edit changes neither what the
  // main chunk does with the function nor where the function ends.
  target.growth = static_cast<std::ptrdiff_t>(source.size()) - static_cast<std::ptrdiff_t>(text_.size());
  target.newEnd = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(f.end) + target.growth);
  if (edit.begin <= f.open || edit.oldEnd > f.end || isIdentifierByte(source[target.newEnd - 1]))
    return SpliceOutcome::NotInOneFunction;

  target.index = main.children[target.which];
  const std::size_t newLength = target.newEnd - f.keyword;
  if (main.vars.size() + functions_->mainJumps + kStackEntriesPerByte * newLength >= kMaxVariableStack ||
      static_cast<std::size_t>(main.size()) + kInstructionsPerByte * newLength >= kMaxInstructions / 2)
    return SpliceOutcome::TooLarge;
  std::optional<std::vector<std::string>> locals = localsInScope(main, target.index);
  if (!locals) return SpliceOutcome::NotInOneFunction;
  for (const auto& name : *locals) target.declarations += (target.declarations.empty() ? "local " : ",") + name;
  if (!target.declarations.empty()) target.declarations += ' ';
  return SpliceOutcome::Spliced;
}

const FunctionSplicer::Checked* FunctionSplicer::check(const Target& target, const Prototype& real,
                                                       std::string_view realRun,
                                                       const bytecode::OpcodeTable& opcodes, LuaCompiler& compiler,
                                                       std::string_view chunkPath) {
  if (auto known = checked_.find(target.which); known != checked_.end()) return &known->second;
  const TopFunction& f = functions_->functions[target.which];
  // An expression's depth in the document is not known: the deepest
  // padding at which its old text compiles alone gives that depth or
  // more, since the document compiled.
  auto compiles = [&](int padding) {
    return compiler.compile(aloneChunk(text_, f, f.end, real.firstline, target.declarations, padding), chunkPath)
        .ok();
  };
  int low = 0;
  if (f.form == TopFunction::Form::Expression) {
    if (!compiles(0)) return nullptr;
    int high = kMaxSyntaxLevel;  // compiles at low, not at high
    while (high - low > 1) {
      const int mid = (low + high) / 2;
      (compiles(mid) ? low : high) = mid;
    }
  }
  std::optional<Alone> old = compileAlone(
      compiler, aloneChunk(text_, f, f.end, real.firstline, target.declarations, low), opcodes, chunkPath);
  if (!old || old->run(real) != realRun) return nullptr;
  return &checked_.emplace(target.which, Checked{low, assigned(old->function())}).first->second;
}

void FunctionSplicer::remember(std::string_view source, bool spliced) {
  text_.assign(source);
  known_ = true;
  if (!spliced || !functions_) {
    functions_.reset();
    checked_.clear();
    return;
  }
  // An unchanged text moved nothing (and the functions found for it may be
  // none: a file without any, kept through a syntax error).
  if (outcome_ != SpliceOutcome::Spliced) return;
  auto shift = [this](std::size_t& at) { at = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(at) + growth_); };
  auto& functions = functions_->functions;
  shift(functions[splicedFunction_].end);
  for (std::size_t i = splicedFunction_ + 1; i < functions.size(); ++i) {
    shift(functions[i].keyword);
    shift(functions[i].open);
    shift(functions[i].end);
  }
}

void FunctionSplicer::forget() {
  known_ = false;
  text_.clear();
  functions_.reset();
  checked_.clear();
}

}  // namespace ljcheck
