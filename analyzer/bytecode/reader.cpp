// Reads a LuaJIT 2.1 bytecode dump (the format of lj_bcwrite.c / lj_bcread.c,
// facts sheet §9) into a Chunk. Nothing here trusts a count or a length before
// checking it against the bytes that are left, nor an operand before checking
// that the slot, constant, upvalue or pc it names exists; every malformed input
// becomes a DumpError naming the input, what was wrong and the byte offset.
#include <cmath>
#include <cstring>
#include <initializer_list>

#include "dump_cursor.h"
#include "ljcheck/bytecode.h"
#include "ljcheck/dump_reread.h"

namespace ljcheck::bytecode {
namespace {

// From lj_bcdump.h.
constexpr std::uint8_t kVersion = 2;
enum : std::uint32_t { kFlagBigEndian = 0x01, kFlagStrip = 0x02, kFlagFfi = 0x04, kFlagFr2 = 0x08 };
constexpr std::uint32_t kKnownFlags = 0x0f;
enum : std::uint32_t { kGcChild, kGcTable, kGcInt64, kGcUInt64, kGcComplex, kGcString };
enum : std::uint32_t { kTabNil, kTabFalse, kTabTrue, kTabInt, kTabNum, kTabString };

// From lj_debug.h VARNAMEDEF: variable-info bytes 1..6 stand for these names.
constexpr std::string_view kInternalVarNames[] = {"(for index)",     "(for limit)", "(for step)",
                                                  "(for generator)", "(for state)", "(for control)"};
constexpr std::uint8_t kFirstNamedVar = 7;  // VARNAME__MAX

std::string hex(std::uint32_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), digits[v & 0xf]);
    v >>= 4;
  } while (v != 0);
  return "0x" + out;
}

double doubleFromBits(std::uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

std::uint64_t joinWords(std::uint32_t lo, std::uint32_t hi) {
  return (std::uint64_t{hi} << 32) | lo;
}

class DumpReader {
 public:
  // `previous`: the last read of the same document, whose unchanged
  // prototypes this read takes over (DumpRereader); null: decode everything.
  DumpReader(std::string_view bytes, const OpcodeTable& opcodes, std::string_view inputName,
             const ReadOptions& options, DumpRereader::LastRead* previous = nullptr)
      : in_(bytes, inputName), bytes_(bytes), opcodes_(opcodes), options_(options), inputSize_(bytes.size()),
        previous_(previous) {}

  Chunk read() {
    readHeader();
    headerLength_ = in_.offset();
    if (previous_ && (previous_->headerLength != headerLength_ ||
                      std::string_view(previous_->dump).substr(0, headerLength_) != bytes_.substr(0, headerLength_)))
      previous_ = nullptr;
    readPrototypes();
    return std::move(chunk_);
  }

  std::size_t headerLength() const { return headerLength_; }
  std::vector<std::pair<std::size_t, std::size_t>>& spans() { return spans_; }
  std::size_t reused() const { return reused_; }
  std::vector<char>& takenOver() { return takenOver_; }

 private:
  void readHeader() {
    if (inputSize_ == 0) in_.fail("empty input, not a LuaJIT bytecode dump");
    const std::uint8_t head[3] = {0x1b, 'L', 'J'};
    for (std::uint8_t expected : head) {
      if (in_.remaining() == 0) in_.fail("truncated: the input ends inside the dump signature");
      if (in_.byte("signature") != expected) in_.failAt("not a LuaJIT bytecode dump", 0);
    }
    const std::size_t versionAt = in_.offset();
    const std::uint8_t version = in_.byte("version");
    if (version != kVersion) {
      in_.failAt("unsupported dump version " + std::to_string(version) + " (this reader reads version " +
                     std::to_string(kVersion) + ")",
                 versionAt);
    }
    const std::size_t flagsAt = in_.offset();
    const std::uint32_t flags = in_.uleb128("header flags");
    if ((flags & ~kKnownFlags) != 0) {
      in_.failAt("unknown dump flags " + hex(flags & ~kKnownFlags) + " (known: " + hex(kKnownFlags) + ")",
                 flagsAt);
    }
    chunk_.bigEndian = (flags & kFlagBigEndian) != 0;
    chunk_.stripped = (flags & kFlagStrip) != 0;
    chunk_.ffi = (flags & kFlagFfi) != 0;
    chunk_.fr2 = (flags & kFlagFr2) != 0;
    if (chunk_.fr2 != options_.expectFr2) {
      in_.failAt(std::string("foreign dump: written by a VM with ") +
                     (chunk_.fr2 ? "two-slot frames (FR2, GC64)" : "one-slot frames (no FR2)") +
                     ", the selected build uses " + (options_.expectFr2 ? "two-slot" : "one-slot") +
                     " frames",
                 flagsAt);
    }
    in_.bigEndian = chunk_.bigEndian;
    if (!chunk_.stripped) {
      const std::uint32_t length = in_.uleb128("chunk name length");
      chunk_.chunkName = std::string(in_.take(length, "chunk name"));
    }
  }

  void readPrototypes() {
    for (;;) {
      const std::size_t lengthAt = in_.offset();
      if (in_.remaining() == 0) in_.fail("truncated: the input ends before the end-of-dump marker");
      const std::uint32_t length = in_.uleb128("prototype length");
      if (length == 0) break;
      const std::size_t index = chunk_.prototypes.size();
      auto name = [index] { return "prototype #" + std::to_string(index); };
      if (length > in_.remaining()) {
        in_.failAt("truncated: " + name() + " declares " + std::to_string(length) + " bytes but only " +
                       std::to_string(in_.remaining()) + " remain",
                   lengthAt);
      }
      const std::size_t start = in_.offset();
      Cursor::Limit outer = in_.narrow(length, "prototype #", index);
      spans_.emplace_back(start, length);
      const bool same = takeOver(index, start, length);
      takenOver_.push_back(same ? 1 : 0);
      if (!same) chunk_.prototypes.push_back(readPrototype(index));
      if (in_.offset() != in_.limitEnd()) {
        in_.failAt(name() + " declares " + std::to_string(length) + " bytes but its contents end after " +
                       std::to_string(in_.offset() - start),
                   start);
      }
      in_.restore(outer);
      unclaimed_.push_back(index);
    }
    if (in_.remaining() != 0) in_.fail("trailing bytes after the end-of-dump marker");
    if (chunk_.prototypes.empty()) in_.fail("dump holds no prototype");
    if (unclaimed_.size() != 1) {
      in_.fail(std::to_string(unclaimed_.size() - 1) +
               " prototype(s) before the main chunk are not the child of any prototype");
    }
  }

  // Takes prototype `index` over from the previous read when its bytes are
  // the same there, and claims its children as decoding would. False (and
  // nothing done) when it cannot: then decoding reports any problem.
  bool takeOver(std::size_t index, std::size_t start, std::size_t length) {
    if (!previous_ || index >= previous_->spans.size()) return false;
    const auto [oldStart, oldLength] = previous_->spans[index];
    if (oldLength != length || std::string_view(previous_->dump).substr(oldStart, length) != bytes_.substr(start, length))
      return false;
    Prototype& pt = previous_->chunk.prototypes[index];
    // Its children are the most recent unclaimed prototypes, popped from the
    // highest constant index down (readGcConstants).
    std::size_t claimed = 0;
    for (std::size_t i = pt.gc.size(); i-- > 0;) {
      if (pt.gc[i].kind != GcConstant::Kind::Child) continue;
      if (claimed == unclaimed_.size()) return false;
      const std::size_t child = unclaimed_[unclaimed_.size() - 1 - claimed++];
      if (!capturesFit(chunk_.prototypes[child], pt)) return false;
    }
    pt.children.clear();
    pt.parent = SIZE_MAX;
    for (std::size_t i = pt.gc.size(); i-- > 0;) {
      if (pt.gc[i].kind != GcConstant::Kind::Child) continue;
      pt.gc[i].child = unclaimed_.back();
      unclaimed_.pop_back();
    }
    for (const GcConstant& k : pt.gc) {
      if (k.kind != GcConstant::Kind::Child) continue;
      pt.children.push_back(k.child);
      chunk_.prototypes[k.child].parent = index;
    }
    chunk_.prototypes.push_back(std::move(pt));
    in_.skip(length);
    ++reused_;
    return true;
  }

  Prototype readPrototype(std::size_t index) {
    Prototype pt;
    pt.flags = in_.byte("prototype flags");
    pt.numparams = in_.byte("numparams");
    pt.framesize = in_.byte("framesize");
    const std::uint8_t numuv = in_.byte("numuv");
    const std::uint32_t numkgc = in_.uleb128("numkgc");
    const std::uint32_t numkn = in_.uleb128("numkn");
    const std::uint32_t numbc = in_.uleb128("numbc");
    std::uint32_t debugLength = 0;
    if (!chunk_.stripped) {
      debugLength = in_.uleb128("debug info length");
      if (debugLength != 0) {
        pt.firstline = static_cast<int>(in_.uleb128("firstline"));
        pt.numline = static_cast<int>(in_.uleb128("numline"));
      }
    }
    const std::size_t codeAt = in_.offset();
    readInstructions(pt, numbc);
    readUpvalues(pt, numuv);
    readGcConstants(pt, index, numkgc);
    readNumConstants(pt, numkn);
    if (!options_.trusted) checkOperands(pt, index, codeAt);
    if (debugLength != 0) readDebugInfo(pt, index, debugLength, numuv);
    return pt;
  }

  // The words are checked to fit once, then decoded without a bounds check each.
  void readInstructions(Prototype& pt, std::uint32_t count) {
    const std::size_t codeAt = in_.offset();
    const auto* word = reinterpret_cast<const unsigned char*>(in_.take(std::size_t{count} * 4, "instructions").data());
    const bool big = in_.bigEndian;
    pt.code.resize(count);
    for (std::size_t k = 0; k < count; ++k, word += 4) {
      Instruction& ins = pt.code[k];
      // lj_bc.h's layout, B:C:A:OP from the high byte down, in the writer's byte order.
      const unsigned char op = big ? word[3] : word[0], a = big ? word[2] : word[1];
      const unsigned char c = big ? word[1] : word[2], b = big ? word[0] : word[3];
      ins.raw = op;
      if (ins.raw >= opcodes_.size()) {
        in_.failAt("opcode " + std::to_string(ins.raw) + " outside the bytecode table of " +
                       std::to_string(opcodes_.size()) + " opcodes",
                   codeAt + 4 * k);
      }
      ins.op = opcodes_.decode(ins.raw);
      ins.a = a;
      ins.c = c;
      ins.b = b;
      ins.d = static_cast<std::uint16_t>((b << 8) | c);
    }
  }

  void readUpvalues(Prototype& pt, std::uint8_t count) {
    pt.upvalues.resize(count);
    for (UpvalueRef& uv : pt.upvalues) {
      const std::uint16_t raw = in_.raw16("upvalue descriptor");
      uv.parentLocal = (raw & 0x8000) != 0;  // PROTO_UV_LOCAL
      uv.immutable = (raw & 0x4000) != 0;    // PROTO_UV_IMMUTABLE
      uv.index = static_cast<std::uint16_t>(raw & 0x3fff);
    }
  }

  // The dump lists GC constants from the highest operand index down
  // (proto_kgc(pt, ~D)), so entry i is gc[numkgc - 1 - i].
  void readGcConstants(Prototype& pt, std::size_t index, std::uint32_t count) {
    in_.need(count, "GC constants");
    pt.gc.resize(count);
    for (std::size_t i = count; i-- > 0;) readGcConstant(pt, index, pt.gc[i]);
    for (const GcConstant& k : pt.gc) {
      if (k.kind != GcConstant::Kind::Child) continue;
      pt.children.push_back(k.child);
      chunk_.prototypes[k.child].parent = index;
    }
  }

  void readGcConstant(const Prototype& pt, std::size_t index, GcConstant& k) {
    const std::size_t at = in_.offset();
    const std::uint32_t type = in_.uleb128("GC constant type");
    switch (type) {
      case kGcChild:
        // Children are the prototypes read before and not yet claimed, the
        // most recent first (lj_bcread.c pops them off the Lua stack).
        if (unclaimed_.empty()) {
          in_.failAt(
              "child index out of range: child prototype constant with no unclaimed prototype before it", at);
        }
        k.kind = GcConstant::Kind::Child;
        k.child = unclaimed_.back();
        unclaimed_.pop_back();
        checkCaptures(chunk_.prototypes[k.child], k.child, pt, index, at);
        break;
      case kGcTable:
        k.kind = GcConstant::Kind::Table;
        k.table = readTemplateTable();
        break;
      case kGcInt64:
      case kGcUInt64: {
        k.kind = type == kGcInt64 ? GcConstant::Kind::Int64 : GcConstant::Kind::UInt64;
        const std::uint32_t lo = in_.uleb128("cdata constant");
        k.bits = joinWords(lo, in_.uleb128("cdata constant"));
        break;
      }
      case kGcComplex: {
        k.kind = GcConstant::Kind::Complex;
        std::uint32_t words[4];
        for (std::uint32_t& w : words) w = in_.uleb128("complex constant");
        k.re = doubleFromBits(joinWords(words[0], words[1]));
        k.im = doubleFromBits(joinWords(words[2], words[3]));
        break;
      }
      default:
        k.kind = GcConstant::Kind::String;
        k.str = std::string(in_.take(type - kGcString, "string constant"));
        break;
    }
  }

  TemplateTable readTemplateTable() {
    TemplateTable t;
    const std::uint32_t narray = in_.uleb128("template table array size");
    const std::uint32_t nhash = in_.uleb128("template table hash size");
    in_.need(std::size_t{narray} + 2 * std::size_t{nhash}, "template table");
    t.array.reserve(narray);
    for (std::uint32_t i = 0; i < narray; ++i) t.array.push_back(readTableValue());
    t.hash.reserve(nhash);
    for (std::uint32_t i = 0; i < nhash; ++i) {
      const std::size_t keyAt = in_.offset();
      TableValue key = readTableValue();
      // lj_tab_set raises on these keys, so LuaJIT refuses such a dump too.
      if (std::holds_alternative<std::monostate>(key)) in_.failAt("nil key in template table", keyAt);
      if (const double* d = std::get_if<double>(&key); d && std::isnan(*d)) {
        in_.failAt("NaN key in template table", keyAt);
      }
      TableValue value = readTableValue();
      t.hash.emplace_back(std::move(key), std::move(value));
    }
    return t;
  }

  TableValue readTableValue() {
    const std::uint32_t type = in_.uleb128("template table value type");
    switch (type) {
      case kTabNil:
        return std::monostate{};
      case kTabFalse:
        return false;
      case kTabTrue:
        return true;
      case kTabInt:
        return std::int64_t{static_cast<std::int32_t>(in_.uleb128("template table integer"))};
      case kTabNum: {
        const std::uint32_t lo = in_.uleb128("template table number");
        return doubleFromBits(joinWords(lo, in_.uleb128("template table number")));
      }
      default:
        return std::string(in_.take(type - kTabString, "template table string"));
    }
  }

  void readNumConstants(Prototype& pt, std::uint32_t count) {
    in_.need(count, "numeric constants");
    pt.num.resize(count);
    for (NumConstant& k : pt.num) {
      bool isDouble = false;
      const std::uint32_t lo = in_.uleb128With33rdBit("numeric constant", isDouble);
      if (isDouble) {
        k.number = doubleFromBits(joinWords(lo, in_.uleb128("numeric constant")));
      } else {
        k.isInteger = true;
        k.integer = static_cast<std::int32_t>(lo);
      }
    }
  }

  // Line info, upvalue names, variable info (lj_parse.c: fs_fixup_line, fs_prep_var).
  void readDebugInfo(Prototype& pt, std::size_t index, std::uint32_t length, std::uint8_t numuv) {
    in_.need(length, "debug info");
    Cursor::Limit outer = in_.narrow(length, "the debug info of prototype #", index);
    const auto numline = static_cast<std::uint32_t>(pt.numline);
    const std::size_t width = numline < 256 ? 1 : numline < 65536 ? 2 : 4;
    const auto* delta = reinterpret_cast<const unsigned char*>(in_.take(pt.code.size() * width, "line info").data());
    const auto firstline = static_cast<std::uint32_t>(pt.firstline);
    const bool big = in_.bigEndian;
    for (Instruction& ins : pt.code) {  // each delta in the writer's byte order
      std::uint32_t d = 0;
      for (std::size_t k = 0; k < width; ++k) d = (d << 8) | delta[big ? k : width - 1 - k];
      ins.line = static_cast<int>(firstline + d);
      delta += width;
    }
    pt.upvalueNames.reserve(numuv);
    for (std::uint8_t i = 0; i < numuv; ++i) pt.upvalueNames.push_back(in_.zeroTerminated("upvalue name"));
    readVarInfo(pt);
    // LuaJIT ignores anything after the variable-info terminator; so do we.
    in_.skip(in_.remaining());
    in_.restore(outer);
  }

  void readVarInfo(Prototype& pt) {
    std::uint32_t lastStart = 0;
    for (;;) {
      if (in_.remaining() == 0) in_.fail("truncated: variable info has no terminator");
      VarInfo var;
      const std::uint8_t first = in_.byte("variable info");
      if (first == 0) break;
      if (first < kFirstNamedVar) {
        var.name = std::string(kInternalVarNames[first - 1]);
      } else {
        const std::string_view rest = in_.zeroTerminatedView("variable name");
        var.name.reserve(rest.size() + 1);
        var.name += static_cast<char>(first);
        var.name += rest;
      }
      const std::uint32_t start = lastStart + in_.uleb128("variable startpc");
      const std::uint32_t end = start + in_.uleb128("variable endpc");
      var.startpc = static_cast<int>(start);
      var.endpc = static_cast<int>(end);
      lastStart = start;
      pt.vars.push_back(std::move(var));
    }
  }

  // Every operand that names something names something that exists: a slot
  // of the frame, a constant of the right kind, an upvalue, a pc of this
  // prototype. LuaJIT trusts its dumps; the analyzer must not.
  void checkOperands(const Prototype& pt, std::size_t index, std::size_t codeAt) const {
    for (int pc = 1; pc <= pt.size(); ++pc) {
      const Instruction& ins = pt.at(pc);
      const OperandModes modes = operandModes(ins.op);
      // An instruction has either B and C or one 16-bit D (lj_bc.h).
      const std::uint16_t cd = modes.b == Operand::None ? ins.d : ins.c;
      if (operandOk(pt, ins, pc, modes.a, ins.a) && operandOk(pt, ins, pc, modes.b, ins.b) &&
          operandOk(pt, ins, pc, modes.cd, cd))
        continue;  // the common case, without building a message
      std::string problem = operandProblem(pt, ins, pc, modes.a, ins.a);
      if (problem.empty()) problem = operandProblem(pt, ins, pc, modes.b, ins.b);
      if (problem.empty()) problem = operandProblem(pt, ins, pc, modes.cd, cd);
      if (problem.empty()) continue;
      in_.failAt("prototype #" + std::to_string(index) + ", pc " + std::to_string(pc) + " (" +
                     std::string(opName(ins.op)) + "): " + problem,
                 codeAt + 4 * static_cast<std::size_t>(pc - 1));
    }
  }

  // Whether one operand names something that exists (operandProblem says what is wrong).
  static bool operandOk(const Prototype& pt, const Instruction& ins, int pc, Operand mode, std::uint32_t value) {
    using Kind = GcConstant::Kind;
    const auto gcIs = [&](Kind a, Kind b = Kind::Child, Kind c = Kind::Child) {
      if (value >= pt.gc.size()) return false;
      Kind k = pt.gc[value].kind;
      return k == a || k == b || k == c;
    };
    switch (mode) {
      case Operand::None: case Operand::Literal: return true;
      case Operand::Slot: return value < pt.framesize;
      case Operand::SlotTop: return value <= pt.framesize;
      case Operand::String: return gcIs(Kind::String, Kind::String, Kind::String);
      case Operand::Cdata: return gcIs(Kind::Int64, Kind::UInt64, Kind::Complex);
      case Operand::Function: return gcIs(Kind::Child);
      case Operand::Table: return gcIs(Kind::Table, Kind::Table, Kind::Table);
      case Operand::Number: return value < pt.num.size();
      case Operand::Upvalue: return value < pt.upvalues.size();
      case Operand::Jump: {
        const int target = ins.jumpTarget(pc);
        return target >= 1 && target <= pt.size();
      }
    }
    return true;
  }

  // What is wrong with one operand, or "" when it names something that exists.
  static std::string operandProblem(const Prototype& pt, const Instruction& ins, int pc, Operand mode,
                                    std::uint32_t value) {
    using Kind = GcConstant::Kind;
    const auto outside = [&](const char* what, std::size_t count, const char* unit) {
      return std::string(what) + " " + std::to_string(value) + " is out of range: the " +
             (mode == Operand::Slot || mode == Operand::SlotTop ? "frame" : "prototype") + " has " +
             std::to_string(count) + " " + unit;
    };
    const auto gcOfKind = [&](const char* kind, std::initializer_list<Kind> kinds) -> std::string {
      if (value >= pt.gc.size()) return outside("GC constant", pt.gc.size(), "GC constants");
      for (Kind k : kinds)
        if (pt.gc[value].kind == k) return "";
      return "GC constant " + std::to_string(value) + " is not a " + kind;
    };
    switch (mode) {
      case Operand::None:
      case Operand::Literal:
        return "";
      case Operand::Slot:
        return value < pt.framesize ? "" : outside("slot", pt.framesize, "slots");
      case Operand::SlotTop:
        return value <= pt.framesize ? "" : outside("slot", pt.framesize, "slots");
      case Operand::String:
        return gcOfKind("string", {Kind::String});
      case Operand::Cdata:
        return gcOfKind("cdata constant", {Kind::Int64, Kind::UInt64, Kind::Complex});
      case Operand::Function:
        return gcOfKind("child prototype", {Kind::Child});
      case Operand::Table:
        return gcOfKind("template table", {Kind::Table});
      case Operand::Number:
        return value < pt.num.size() ? "" : outside("numeric constant", pt.num.size(), "numeric constants");
      case Operand::Upvalue:
        return value < pt.upvalues.size() ? "" : outside("upvalue", pt.upvalues.size(), "upvalues");
      case Operand::Jump: {
        const int target = ins.jumpTarget(pc);
        if (target >= 1 && target <= pt.size()) return "";
        return "jump target pc " + std::to_string(target) + " is outside the prototype's " +
               std::to_string(pt.size()) + " instructions";
      }
    }
    return "";
  }

  // A child's upvalues name its parent's slots or upvalues (FNEW copies them).
  static bool capturesFit(const Prototype& child, const Prototype& parent) {
    for (const UpvalueRef& uv : child.upvalues)
      if (uv.index >= (uv.parentLocal ? parent.framesize : parent.upvalues.size())) return false;
    return true;
  }

  void checkCaptures(const Prototype& child, std::size_t childIndex, const Prototype& parent, std::size_t parentIndex,
                     std::size_t at) const {
    for (const UpvalueRef& uv : child.upvalues) {
      const std::size_t limit = uv.parentLocal ? parent.framesize : parent.upvalues.size();
      if (uv.index < limit) continue;
      in_.failAt("prototype #" + std::to_string(childIndex) + " captures " + (uv.parentLocal ? "slot " : "upvalue ") +
                     std::to_string(uv.index) + " of prototype #" + std::to_string(parentIndex) + ", which has " +
                     std::to_string(limit) + (uv.parentLocal ? " slots" : " upvalues"),
                 at);
    }
  }

  Cursor in_;
  std::string_view bytes_;
  const OpcodeTable& opcodes_;
  const ReadOptions& options_;
  std::size_t inputSize_;
  DumpRereader::LastRead* previous_;
  std::size_t headerLength_ = 0;
  std::vector<std::pair<std::size_t, std::size_t>> spans_;  // each prototype's bytes: start, length
  std::size_t reused_ = 0;
  std::vector<char> takenOver_;  // by prototype index: 1 when taken over from the previous read
  Chunk chunk_;
  std::vector<std::size_t> unclaimed_;  // prototypes read but not yet named as a child
};

}  // namespace

Chunk readDump(std::string_view bytes, const OpcodeTable& opcodes, std::string_view inputName,
               const ReadOptions& options) {
  return DumpReader(bytes, opcodes, inputName, options).read();
}

Chunk DumpRereader::read(std::string_view bytes, const OpcodeTable& opcodes, std::string_view inputName,
                         const ReadOptions& options) {
  const bool usable = last_.kept && last_.opcodes == &opcodes && last_.expectFr2 == options.expectFr2;
  DumpReader reader(bytes, opcodes, inputName, options, usable ? &last_ : nullptr);
  last_.kept = false;  // whatever happens below, its prototypes are spent
  Chunk chunk;
  try {
    chunk = reader.read();
  } catch (...) {
    last_ = LastRead{};
    takenOver_.clear();
    throw;
  }
  last_.chunk = Chunk{};
  last_.dump.assign(bytes);
  last_.headerLength = reader.headerLength();
  last_.spans = std::move(reader.spans());
  last_.opcodes = &opcodes;
  last_.expectFr2 = options.expectFr2;
  reused_ = reader.reused();
  decoded_ = chunk.prototypes.size() - reused_;
  takenOver_ = std::move(reader.takenOver());
  return chunk;
}

void DumpRereader::keep(Chunk chunk) {
  if (chunk.prototypes.size() != last_.spans.size()) return;  // not the chunk of the last read
  last_.chunk = std::move(chunk);
  last_.kept = true;
}

}  // namespace ljcheck::bytecode
