// Trip counts of loops over constants and literal tables (see literal_trips.h).
#include "flow/literal_trips.h"

#include <optional>
#include <set>
#include <utility>
#include <variant>

#include "flow/instruction_effects.h"

namespace ljcheck::flow {

using bytecode::Op;

namespace {

// The number the instruction at pc loads into `slot` (KSHORT, KNUM), if it does.
std::optional<double> numberLoaded(const bytecode::Prototype& proto, int pc, int slot) {
  if (pc < 1) return std::nullopt;
  const auto& ins = proto.at(pc);
  if (ins.a != slot) return std::nullopt;
  if (ins.op == Op::KSHORT) return static_cast<double>(static_cast<std::int16_t>(ins.d));
  if (ins.op == Op::KNUM && ins.d < proto.num.size()) return proto.num[ins.d].value();  // an integer one too
  return std::nullopt;
}

// Entries of a literal table constructor `{a, b, c}` (TDUP of a template).
long literalLength(const bytecode::Chunk& chunk, const Value& table) {
  if (!table.is(Value::Kind::Table) || table.proto >= chunk.prototypes.size() || table.pc <= 0) return -1;
  const auto& proto = chunk.prototypes[table.proto];
  const auto& ins = proto.at(table.pc);
  // TNEW: every entry is computed ({f()}, {...}); TDUP: the template has a
  // slot for each positional entry (index 0 unused), constant or filled later.
  if (ins.op != Op::TDUP || ins.d >= proto.gc.size() || proto.gc[ins.d].kind != bytecode::GcConstant::Kind::Table)
    return -1;
  const auto& t = proto.gc[ins.d].table;
  long positional = t.array.empty() ? 0 : static_cast<long>(t.array.size()) - 1;
  return positional + static_cast<long>(t.hash.size());
}

// Whether the instruction at pc names `slot`, or may reach what it holds:
// instructions over a range of slots (calls, iterators, returns, TSETM,
// CAT, VARG, KNIL) count when their range may hold it, and a closure that
// captures it. Cautious: a slot a later local reuses counts too.
bool mayReach(const bytecode::Chunk& chunk, const bytecode::Prototype& proto, int pc, int slot) {
  const auto& ins = proto.at(pc);
  // RET0 returns no value, and UCLO closes the upvalues of the slots from A
  // up: neither reads one (a closure that captures it counts, below).
  if (ins.op == Op::RET0 || ins.op == Op::UCLO) return false;
  const bytecode::OperandModes modes = bytecode::operandModes(ins.op);
  auto names = [&](bytecode::Operand mode, int value) {
    return (mode == bytecode::Operand::Slot || mode == bytecode::Operand::SlotTop) && value == slot;
  };
  const int cd = modes.b == bytecode::Operand::None ? ins.d : ins.c;
  if (names(modes.a, ins.a) || names(modes.b, ins.b) || names(modes.cd, cd)) return true;
  switch (ins.op) {
    case Op::CALL: case Op::CALLM: case Op::CALLT: case Op::CALLMT: case Op::RET: case Op::RETM: case Op::VARG:
      return ins.a <= slot;  // the callee and arguments, results, returned values from A up
    case Op::ITERC: case Op::ITERN:
      return ins.a - 3 <= slot;  // the generator, state and control below A
    case Op::TSETM:
      return ins.a - 1 <= slot;
    case Op::KNIL:
      return ins.a <= slot && slot <= ins.d;
    case Op::CAT:
      return ins.b <= slot && slot <= ins.c;
    case Op::FNEW:
      if (ins.d < proto.gc.size() && proto.gc[ins.d].kind == bytecode::GcConstant::Kind::Child)
        for (const auto& uv : chunk.prototypes[proto.gc[ins.d].child].upvalues)
          if (uv.parentLocal && uv.index == slot) return true;
      return false;
    default:
      return false;
  }
}

// Whether `ins` stores into `slot` under a constant key (TSETS, TSETB), a
// value from another slot: the constructor filling a computed value
// (`{add = function ... end}`: TDUP of a template without that key, FNEW,
// TSETS "add"), or a store over a key. Each such key adds one entry at
// most (audit 78: a pairs loop over a literal of two functions was taken
// for one of unknown length).
bool storesConstantKey(const bytecode::Instruction& ins, int slot) {
  return (ins.op == Op::TSETS || ins.op == Op::TSETB) && ins.b == slot && ins.a != slot;
}

// Whether `slot` is named by no instruction after `maker` (the constructor
// that fills it) but `feed` (the MOV that hands it to the loop's
// ipairs/pairs call), nor reached otherwise (mayReach): then nothing can
// reach the table to fill it. (A constructor in a loop body makes a fresh
// table on each pass, which only what follows it on that pass can reach.)
bool onlyIteratedHere(const bytecode::Chunk& chunk, const bytecode::Prototype& proto, int slot, int maker, int feed,
                      long* keysStored) {
  // Before the constructor the slot held something else (a local whose
  // scope ended, a temporary): only what follows it can reach this table.
  std::set<std::pair<int, int>> keys;  // (op, constant) of the constant-key stores
  for (int pc = maker + 1; pc <= proto.size(); ++pc) {
    if (pc == feed) continue;
    if (const auto& ins = proto.at(pc); storesConstantKey(ins, slot)) {
      keys.emplace(static_cast<int>(ins.op), ins.c);
      continue;
    }
    if (mayReach(chunk, proto, pc, slot)) return false;
  }
  *keysStored = static_cast<long>(keys.size());
  return true;
}

// `#t` at lenPc (before the FORI at `fori`, where the tracker keeps the
// registers), when t is a local that a constructor in this function
// filled with constants only (`local names = {"get", "set"}`) and that
// after it is only indexed or measured: no store, no call, return or
// closure can reach it to change its length (audit 53: lua-resty-redis
// makes its command methods in `for i = 1, #common_cmds` at load time);
// -1 otherwise.
long lengthOfReadOnlyLiteral(const bytecode::Chunk& chunk, std::size_t index, const ValueMap& values, int lenPc,
                             int fori) {
  const auto& proto = chunk.prototypes[index];
  const int slot = proto.at(lenPc).d;
  const Value table = values.at(index, fori, slot);
  if (!table.is(Value::Kind::Table) || table.proto != index || table.pc <= 0 || table.pc >= lenPc) return -1;
  const auto& maker = proto.at(table.pc);
  if (maker.op != Op::TDUP || maker.a != slot || maker.d >= proto.gc.size() ||
      proto.gc[maker.d].kind != bytecode::GcConstant::Kind::Table || !proto.gc[maker.d].table.hash.empty())
    return -1;
  const auto& array = proto.gc[maker.d].table.array;
  for (std::size_t i = 1; i < array.size(); ++i)
    if (std::holds_alternative<std::monostate>(array[i])) return -1;  // a hole, or an entry filled later
  // Reads of t[k] and #t name the slot harmlessly.
  for (int pc = table.pc + 1; pc <= proto.size(); ++pc) {
    const auto& ins = proto.at(pc);
    const bool read = ((ins.op == Op::TGETV || ins.op == Op::TGETS || ins.op == Op::TGETB) && ins.b == slot &&
                       ins.a != slot && !(ins.op == Op::TGETV && ins.c == slot)) ||
                      (ins.op == Op::LEN && ins.d == slot && ins.a != slot);
    if (!read && mayReach(chunk, proto, pc, slot)) return -1;
  }
  return array.empty() ? 0 : static_cast<long>(array.size()) - 1;
}

}  // namespace

// Iterations of `for i = start, stop, step` over constants, or up to the
// length of a literal list nothing changes (`for i = 1, #names`); -1 when
// the values are not constants the tracker knows.
long numericTrips(const bytecode::Chunk& chunk, std::size_t index, const ValueMap& values, const Loop& loop) {
  const auto& proto = chunk.prototypes[index];
  int fori = loop.first - 1;
  if (fori < 1 || proto.at(fori).op != Op::FORI) return -1;
  int base = proto.at(fori).a;
  Value start = values.at(index, fori, base), stop = values.at(index, fori, base + 1),
        step = values.at(index, fori, base + 2);
  if (start.isConstantNumber() && stop.isConstantNumber() && step.isConstantNumber() && step.integer != 0)
    return numericForTurns(start.integer, stop.integer, step.integer);
  if (start.isConstantNumber() && step.isConstantNumber() && step.integer != 0) {
    const int lenPc = lastWriteBefore(proto, fori, base + 1);
    if (lenPc > 0 && proto.at(lenPc).op == Op::LEN)
      if (long length = lengthOfReadOnlyLiteral(chunk, index, values, lenPc, fori); length >= 0)
        return numericForTurns(start.integer, length, step.integer);
  }
  // The tracker keeps integers only: a bound such as 0.5 is loaded by the
  // three instructions the parser puts right before the FORI.
  auto a = numberLoaded(proto, fori - 3, base), b = numberLoaded(proto, fori - 2, base + 1),
       c = numberLoaded(proto, fori - 1, base + 2);
  return a && b && c ? fractionalForTurns(*a, *b, *c) : -1;
}

// Iterations of `for ... in ipairs({...})` (or pairs, next) over a table
// constructed in the call itself, or in a local that nothing else names
// (`local extra = {}` ... `pairs(extra)`), which nothing else can reach to
// grow it; -1 otherwise.
long genericTrips(const bytecode::Chunk& chunk, std::size_t index, const ValueMap& values, const Loop& loop) {
  const auto& proto = chunk.prototypes[index];
  int call = loop.first - 2;  // CALL ipairs(t), then JMP (or ISNEXT) to the iterator call
  if (call < 1 || !isCall(proto.at(call).op)) return -1;
  const auto& ins = proto.at(call);
  Value callee = values.at(index, call, calleeSlot(ins));
  if (!callee.is(Value::Kind::LibFunction) ||
      (callee.name != "ipairs" && callee.name != "pairs" && callee.name != "next"))
    return -1;
  if (fixedArgs(ins) < 1) return -1;
  int slot = argumentSlot(chunk, ins, 0);
  Value table = values.at(index, call, slot);
  if (!table.is(Value::Kind::Table) || table.proto != index || table.pc <= 0 || table.pc >= call) return -1;
  // A local the constructor filled and only this call reads.
  if (proto.at(table.pc).a != slot) {
    int local = proto.at(table.pc).a;
    int feed = lastWriteBefore(proto, call, slot);
    if (feed <= 0 || proto.at(feed).op != Op::MOV || proto.at(feed).d != local) return -1;
    long stored = 0;
    if (!onlyIteratedHere(chunk, proto, local, table.pc, feed, &stored)) return -1;
    // Nothing else fills it after its constructor: `{}` (TNEW) stays empty
    // but for the constant keys stored into it.
    return (proto.at(table.pc).op == Op::TNEW ? 0 : literalLength(chunk, table)) + stored;
  }
  // A temporary: its constructor is part of this call's own evaluation.
  for (int pc = table.pc + 1; pc < call; ++pc) {
    if (proto.at(pc).op == Op::TSETM) return -1;  // {a, f()}: f's results are appended
    if (writesOf(proto.at(pc)).first <= slot && slot <= writesOf(proto.at(pc)).last) return -1;
  }
  return literalLength(chunk, table);
}

}  // namespace ljcheck::flow
