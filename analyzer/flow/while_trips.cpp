// Trip counts of counting while/repeat loops (see while_trips.h).
#include "flow/while_trips.h"

#include <optional>

#include "flow/instruction_effects.h"

namespace ljcheck::flow {

using bytecode::Op;

namespace {

bool isLoopMark(Op op) { return op == Op::LOOP || op == Op::ILOOP || op == Op::JLOOP; }

// How the counter must compare with the bound for the loop to go on.
enum class Relation { Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual };

// ISLT A D and its kin jump (take the JMP after them) when `A op D` holds;
// ISEQN and ISNEN compare A with the number constant D (`until i == 0`).
std::optional<Relation> relationOf(Op op) {
  switch (op) {
    case Op::ISLT: return Relation::Less;
    case Op::ISLE: return Relation::LessEqual;
    case Op::ISGT: return Relation::Greater;
    case Op::ISGE: return Relation::GreaterEqual;
    case Op::ISEQN: return Relation::Equal;
    case Op::ISNEN: return Relation::NotEqual;
    default: return std::nullopt;
  }
}

bool comparesWithConstant(Op op) { return op == Op::ISEQN || op == Op::ISNEN; }

// b op c seen from c's side: b < c is c > b.
Relation mirrored(Relation r) {
  switch (r) {
    case Relation::Less: return Relation::Greater;
    case Relation::LessEqual: return Relation::GreaterEqual;
    case Relation::Greater: return Relation::Less;
    case Relation::GreaterEqual: return Relation::LessEqual;
    case Relation::Equal:
    case Relation::NotEqual: return r;
  }
  return r;
}

// not (c op b).
Relation negated(Relation r) {
  switch (r) {
    case Relation::Less: return Relation::GreaterEqual;
    case Relation::LessEqual: return Relation::Greater;
    case Relation::Greater: return Relation::LessEqual;
    case Relation::GreaterEqual: return Relation::Less;
    case Relation::Equal: return Relation::NotEqual;
    case Relation::NotEqual: return Relation::Equal;
  }
  return r;
}

// The integer an instruction loads: KSHORT, or KNUM of an integral number.
std::optional<long> constantLoad(const bytecode::Prototype& proto, int pc) {
  const auto& ins = proto.at(pc);
  if (ins.op == Op::KSHORT) return static_cast<std::int16_t>(ins.d);
  if (ins.op == Op::KNUM && ins.d < proto.num.size() && proto.num[ins.d].isInteger) return proto.num[ins.d].integer;
  return std::nullopt;
}

bool branches(const bytecode::Instruction& ins, int pc) {
  Flow f = flowOf(ins, pc);
  return f.jump != 0 || f.skip != 0 || !f.fallsThrough;
}

// Every path to `upto` passes the instruction at `from` and runs the code
// between in order: no branch in between, and no jump lands there except
// the loop's own back edge (`backEdge`, which comes round the loop).
bool straight(const bytecode::Prototype& proto, int from, int upto, int backEdge) {
  for (int pc = from + 1; pc < upto; ++pc)
    if (branches(proto.at(pc), pc)) return false;
  for (int pc = 1; pc <= proto.size(); ++pc) {
    if (pc == backEdge) continue;
    Flow f = flowOf(proto.at(pc), pc);
    for (int target : {f.jump, f.skip})
      if (target > from && target <= upto) return false;
  }
  return true;
}

// The constant in `slot` when the instruction at `pc` runs: its last write
// before pc is a constant load that every path to pc passes.
std::optional<long> constantAt(const bytecode::Prototype& proto, int pc, int slot, int backEdge) {
  int write = lastWriteBefore(proto, pc, slot);
  if (write == 0 || !straight(proto, write, pc, backEdge)) return std::nullopt;
  return constantLoad(proto, write);
}

// The constant step of `counter` in pcs [first, last]: its one write there
// is `counter = counter + k` (or - k); 0 when there is not exactly one such.
struct Step {
  int pc = 0;
  long by = 0;
};
Step stepOf(const bytecode::Prototype& proto, int first, int last, int counter) {
  Step step;
  for (int pc = first; pc <= last; ++pc) {
    const auto& ins = proto.at(pc);
    if (!writesSlot(ins, proto.framesize, counter)) continue;
    bool adds = ins.op == Op::ADDVN || ins.op == Op::ADDNV || ins.op == Op::SUBVN;
    if (step.pc != 0 || !adds || ins.a != counter || ins.b != counter || ins.c >= proto.num.size() ||
        !proto.num[ins.c].isInteger)
      return {};
    long k = proto.num[ins.c].integer;
    step = {pc, ins.op == Op::SUBVN ? -k : k};
  }
  return step;
}

// The body's branches neither skip the step nor leave the loop: a branch
// before the step lands in the body no later than the step, one after it
// stays after it (up to the back edge, `end`).
bool stepRunsEachTurn(const bytecode::Prototype& proto, int bodyFirst, int step, int end) {
  for (int pc = bodyFirst; pc < end; ++pc) {
    if (pc == step) continue;
    Flow f = flowOf(proto.at(pc), pc);
    if (!f.fallsThrough && f.jump == 0) return false;  // a return
    for (int target : {f.jump, f.skip}) {
      if (target == 0) continue;
      bool ok = pc < step ? target >= bodyFirst && target <= step : target > step && target <= end;
      if (!ok) return false;
    }
  }
  return true;
}

// Whether a closure made by this prototype may assign `slot`.
bool captured(const bytecode::Chunk& chunk, std::size_t index, int slot) {
  for (std::size_t child : chunk.prototypes[index].children) {
    if (child >= chunk.prototypes.size()) continue;
    for (const auto& uv : chunk.prototypes[child].upvalues)
      if (uv.parentLocal && uv.index == slot) return true;
  }
  return false;
}

// How many of start, start + step, start + 2*step, ... in a row satisfy
// `value relation bound`; -1 when all do.
long turnsWhile(long start, long step, Relation relation, long bound) {
  auto holds = [&](long v) {
    switch (relation) {
      case Relation::Less: return v < bound;
      case Relation::LessEqual: return v <= bound;
      case Relation::Greater: return v > bound;
      case Relation::GreaterEqual: return v >= bound;
      case Relation::Equal: return v == bound;
      case Relation::NotEqual: return v != bound;
    }
    return false;
  };
  if (!holds(start)) return 0;
  if (relation == Relation::Equal) return step == 0 ? -1 : 1;  // the next value differs
  if (relation == Relation::NotEqual) {
    // Until the counter lands on the bound; never, when the steps jump over it.
    if (step == 0 || (bound - start) % step != 0 || (bound - start) / step < 0) return -1;
    return (bound - start) / step;
  }
  bool up = relation == Relation::Less || relation == Relation::LessEqual;
  if (step == 0 || (step > 0) != up) return -1;
  long span = up ? bound - start : start - bound;
  long stride = up ? step : -step;
  bool strict = relation == Relation::Less || relation == Relation::Greater;
  return strict ? (span + stride - 1) / stride : span / stride + 1;
}

}  // namespace

long whileTrips(const bytecode::Chunk& chunk, std::size_t index, const Loop& loop) {
  const auto& proto = chunk.prototypes[index];
  if (loop.kind != Loop::Kind::While || loop.first < 1 || loop.last > proto.size()) return -1;
  const auto& backEdge = proto.at(loop.last);
  // A body whose locals a closure captured ends in UCLO, which jumps back itself.
  if ((backEdge.op != Op::JMP && backEdge.op != Op::UCLO) || backEdge.jumpTarget(loop.last) != loop.first) return -1;
  // while: condition, JMP to the exit, LOOP, body, JMP back to the condition.
  // repeat: LOOP, body, condition, JMP back to the LOOP when it holds.
  bool repeat = isLoopMark(proto.at(loop.first).op);
  int test = 0, bodyFirst = 0;
  if (repeat) {
    test = loop.last - 1;
    bodyFirst = loop.first + 1;
    // With locals a closure captured: `cond: UCLO+JMP out, !cond: UCLO+JMP
    // loop` (lj_parse.c parse_repeat): the test's JMP goes to the back edge.
    if (backEdge.op == Op::UCLO) {
      test = loop.last - 3;
      const auto& out = proto.at(loop.last - 1);
      const auto& again = proto.at(loop.last - 2);
      if (test <= loop.first || again.op != Op::JMP || again.jumpTarget(loop.last - 2) != loop.last ||
          out.op != Op::UCLO || out.jumpTarget(loop.last - 1) != loop.last + 1)
        return -1;
    }
  } else {
    int mark = loop.first;
    while (mark < loop.last && !isLoopMark(proto.at(mark).op)) ++mark;
    test = mark - 2;
    if (test < loop.first || proto.at(mark - 1).op != Op::JMP || proto.at(mark - 1).jumpTarget(mark - 1) != loop.last + 1)
      return -1;
    for (int pc = loop.first; pc < test; ++pc)
      if (!constantLoad(proto, pc)) return -1;  // `while i <= 1000`: only the bound's load
    bodyFirst = mark + 1;
  }
  std::optional<Relation> jumpsWhen = relationOf(proto.at(test).op);
  if (!jumpsWhen) return -1;
  const auto& cmp = proto.at(test);
  if (comparesWithConstant(cmp.op)) {  // the counter against a number constant: `until i == 0`
    if (cmp.d >= proto.num.size() || !proto.num[cmp.d].isInteger) return -1;
    const long limit = proto.num[cmp.d].integer;
    Step step = stepOf(proto, loop.first, loop.last, cmp.a);
    if (step.pc == 0 || step.pc < bodyFirst || (repeat && step.pc > test)) return -1;
    if (captured(chunk, index, cmp.a)) return -1;
    if (!stepRunsEachTurn(proto, bodyFirst, step.pc, repeat ? test : loop.last)) return -1;
    std::optional<long> start = constantAt(proto, loop.first, cmp.a, loop.last);
    if (!start) return -1;
    if (repeat) {
      long more = turnsWhile(*start + step.by, step.by, *jumpsWhen, limit);
      return more < 0 ? -1 : 1 + more;
    }
    return turnsWhile(*start, step.by, negated(*jumpsWhen), limit);
  }
  for (bool counterFirst : {true, false}) {
    int counter = counterFirst ? cmp.a : cmp.d, bound = counterFirst ? cmp.d : cmp.a;
    Step step = stepOf(proto, loop.first, loop.last, counter);
    if (step.pc == 0 || step.pc < bodyFirst || (repeat && step.pc > test)) continue;
    if (!stepRunsEachTurn(proto, bodyFirst, step.pc, repeat ? test : loop.last)) return -1;
    // The bound is the same every turn: loaded in the condition, or before
    // the loop and not written in it.
    int boundWrite = lastWriteBefore(proto, test, bound);
    // A bound the condition loads is a temporary, even in the slot of a
    // body local a closure captures (audit 82: `while i <= 50000 do local
    // n = i ... function() ... n end`).
    const bool boundLoadedInCondition =
        repeat ? boundWrite == test - 1 && boundWrite > step.pc : boundWrite >= loop.first && boundWrite < test;
    if (captured(chunk, index, counter) || (!boundLoadedInCondition && captured(chunk, index, bound))) return -1;
    if (boundWrite < loop.first) {
      for (int pc = loop.first; pc <= loop.last; ++pc)
        if (writesSlot(proto.at(pc), proto.framesize, bound)) return -1;
    } else if (boundWrite < (repeat ? step.pc : loop.first)) {
      return -1;  // written in a repeat body above the step: let it go
    }
    std::optional<long> limit = constantAt(proto, test, bound, loop.last);
    std::optional<long> start = constantAt(proto, loop.first, counter, loop.last);
    if (!limit || !start) return -1;
    Relation goesOn = counterFirst ? *jumpsWhen : mirrored(*jumpsWhen);
    if (repeat) {  // the body runs once, then again while the test holds after each step
      long more = turnsWhile(*start + step.by, step.by, goesOn, *limit);
      return more < 0 ? -1 : 1 + more;
    }
    return turnsWhile(*start, step.by, negated(goesOn), *limit);
  }
  return -1;
}

}  // namespace ljcheck::flow
