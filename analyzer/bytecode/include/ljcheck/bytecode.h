// A LuaJIT bytecode dump, read into plain C++ values. The reader decodes
// opcodes by name through a recorder profile's bytecode list, never by fixed
// numbers: numbering differs between LuaJIT builds.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace ljcheck::bytecode {

// The bytecode names ljcheck knows (LuaJIT 2.1, lj_bc.h BCDEF), plus the bit
// operators of newer builds. The enum's values are ljcheck's own, unrelated
// to any LuaJIT numbering.
#define LJCHECK_OPCODES(_)                                                                       \
  _(ISLT) _(ISGE) _(ISLE) _(ISGT) _(ISEQV) _(ISNEV) _(ISEQS) _(ISNES) _(ISEQN) _(ISNEN)          \
  _(ISEQP) _(ISNEP) _(ISTC) _(ISFC) _(IST) _(ISF) _(ISTYPE) _(ISNUM) _(MOV) _(NOT) _(UNM)        \
  _(LEN) _(ADDVN) _(SUBVN) _(MULVN) _(DIVVN) _(MODVN) _(ADDNV) _(SUBNV) _(MULNV) _(DIVNV)        \
  _(MODNV) _(ADDVV) _(SUBVV) _(MULVV) _(DIVVV) _(MODVV) _(POW) _(CAT) _(KSTR) _(KCDATA)          \
  _(KSHORT) _(KNUM) _(KPRI) _(KNIL) _(UGET) _(USETV) _(USETS) _(USETN) _(USETP) _(UCLO)         \
  _(FNEW) _(TNEW) _(TDUP) _(GGET) _(GSET) _(TGETV) _(TGETS) _(TGETB) _(TGETR) _(TSETV)          \
  _(TSETS) _(TSETB) _(TSETM) _(TSETR) _(CALLM) _(CALL) _(CALLMT) _(CALLT) _(ITERC) _(ITERN)     \
  _(VARG) _(ISNEXT) _(RETM) _(RET) _(RET0) _(RET1) _(FORI) _(JFORI) _(FORL) _(IFORL) _(JFORL)   \
  _(ITERL) _(IITERL) _(JITERL) _(LOOP) _(ILOOP) _(JLOOP) _(JMP) _(BNOT) _(BAND) _(BOR) _(BXOR)  \
  _(BSHL) _(BSHR) _(BSAR) _(FUNCF) _(IFUNCF) _(JFUNCF) _(FUNCV) _(IFUNCV) _(JFUNCV) _(FUNCC)     \
  _(FUNCCW)

enum class Op : std::uint8_t {
#define LJCHECK_OP_ENUM(name) name,
  LJCHECK_OPCODES(LJCHECK_OP_ENUM)
#undef LJCHECK_OP_ENUM
  Unknown
};

std::string_view opName(Op op);
Op opFromName(std::string_view name);  // Op::Unknown when not known

// Maps a build's raw opcode numbers to Op, from the profile's bytecode names
// (index = the build's opcode number).
class OpcodeTable {
 public:
  explicit OpcodeTable(const std::vector<std::string>& namesByNumber);
  Op decode(std::uint8_t raw) const { return raw < ops_.size() ? ops_[raw] : Op::Unknown; }
  std::size_t size() const { return ops_.size(); }

 private:
  std::vector<Op> ops_;
};

// What an operand of an instruction names, after lj_bc.h's operand modes
// (BCDEF): a frame slot (dst, var, base), the top of the live slots (rbase,
// may equal the frame size), a constant of the prototype by kind, an upvalue,
// a jump, or a number that names nothing (lit, lits, pri). The reader checks
// every operand that names something against the prototype.
enum class Operand : std::uint8_t { None, Slot, SlotTop, Literal, String, Number, Cdata, Function, Table, Upvalue, Jump };
struct OperandModes {
  Operand a = Operand::None, b = Operand::None, cd = Operand::None;
};
// As lj_bc.h, except that JFORL, JITERL and JLOOP (whose D is a trace number in
// a running VM; lj_bcwrite.c writes them back as FORL, ITERL and LOOP) count
// as jumps, because the analyzer reads them as the loops they were patched from.
OperandModes operandModes(Op op);

struct Instruction {
  Op op = Op::Unknown;
  std::uint8_t raw = 0;  // the build's opcode number
  std::uint8_t a = 0, b = 0, c = 0;
  std::uint16_t d = 0;
  int line = 0;  // source line, 0 in a stripped dump
  // Target pc of a jump-mode D operand (JMP, FORI, FORL, ITERL, LOOP, ISNEXT, UCLO).
  int jumpTarget(int pc) const { return pc + 1 + (static_cast<int>(d) - 0x8000); }
};

// A value in a template table (TDUP).
using TableValue = std::variant<std::monostate, bool, std::int64_t, double, std::string>;
struct TemplateTable {
  std::vector<TableValue> array;
  std::vector<std::pair<TableValue, TableValue>> hash;
};

struct GcConstant {
  enum class Kind { Child, Table, Int64, UInt64, Complex, String };
  Kind kind = Kind::String;
  std::string str;        // String
  std::size_t child = 0;  // Child: index into Chunk::prototypes
  TemplateTable table;    // Table
  std::uint64_t bits = 0; // Int64/UInt64 value
  double re = 0, im = 0;  // Complex

  // A string constant with this text (the lengths compared first: most
  // scans over a prototype's constants look for one short name).
  bool isString(std::string_view text) const { return kind == Kind::String && std::string_view(str) == text; }
};

struct NumConstant {
  bool isInteger = false;
  std::int32_t integer = 0;
  double number = 0;
  double value() const { return isInteger ? integer : number; }
};

struct VarInfo {
  std::string name;  // "(for index)" etc. for internal names
  int startpc = 0, endpc = 0;
};

struct UpvalueRef {
  bool parentLocal = false;  // true: slot of the parent; false: parent's upvalue
  bool immutable = false;
  std::uint16_t index = 0;   // slot or upvalue index
};

struct Prototype {
  enum Flags : std::uint8_t { HasChild = 0x01, Vararg = 0x02, Ffi = 0x04 };
  std::uint8_t flags = 0;
  std::uint8_t numparams = 0, framesize = 0;
  // Instruction at pc k is code[k - 1]; pc 0 is the FUNCF/FUNCV header, not dumped.
  std::vector<Instruction> code;
  std::vector<UpvalueRef> upvalues;
  std::vector<GcConstant> gc;  // in operand order: gc[D] is what a D operand names
  std::vector<NumConstant> num;
  int firstline = 0, numline = 0;
  std::vector<std::string> upvalueNames;
  std::vector<VarInfo> vars;
  std::vector<std::size_t> children;  // indices into Chunk::prototypes, in gc order
  std::size_t parent = SIZE_MAX;      // index of the enclosing prototype; SIZE_MAX for main

  bool isVararg() const { return flags & Vararg; }
  int lastline() const { return firstline + numline; }
  const Instruction& at(int pc) const { return code.at(static_cast<std::size_t>(pc - 1)); }
  int size() const { return static_cast<int>(code.size()); }  // highest pc
  // The string constant a D (or C) operand names; null when it names none.
  const std::string* stringConstant(int d) const {
    if (d < 0 || static_cast<std::size_t>(d) >= gc.size()) return nullptr;
    const GcConstant& k = gc[static_cast<std::size_t>(d)];
    return k.kind == GcConstant::Kind::String ? &k.str : nullptr;
  }
};

struct Chunk {
  std::string chunkName;  // as written: "@path.lua", empty when stripped
  bool stripped = false, bigEndian = false, fr2 = false, ffi = false;
  std::vector<Prototype> prototypes;  // children first; the last one is the main chunk
  const Prototype& main() const { return prototypes.back(); }
};

// Thrown for input that is not a dump this reader can decode: names the input
// and says what was wrong and at which byte.
class DumpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ReadOptions {
  bool expectFr2 = true;  // the build's frame layout (GC64); a mismatch is a foreign dump
  // The embedded compiler's own dump, or bytes read and checked before: the
  // operands name what exists (LuaJIT writes no other), so they are not
  // checked again. The framing (lengths, counts, the end) still is.
  bool trusted = false;
};

// Reads a whole dump. `inputName` is used in error messages only.
Chunk readDump(std::string_view bytes, const OpcodeTable& opcodes, std::string_view inputName,
               const ReadOptions& options = {});

}  // namespace ljcheck::bytecode
