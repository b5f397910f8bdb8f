// A forward pass over each prototype that tracks register values (values.h).
// At a jump target only slots written once in the whole prototype keep their
// value: the others may hold something else on the incoming edge.
#include "flow/values.h"

#include <algorithm>
#include <optional>

namespace ljcheck::flow {

using bytecode::Instruction;
using bytecode::Op;
using bytecode::Prototype;

namespace {


const std::string* gcString(const Prototype& p, int d) {
  if (d < 0 || static_cast<std::size_t>(d) >= p.gc.size()) return nullptr;
  const auto& k = p.gc[static_cast<std::size_t>(d)];
  return k.kind == bytecode::GcConstant::Kind::String ? &k.str : nullptr;
}

// The range of slots an instruction writes: [first, last]; last < first for none.
struct Writes {
  int first = 0, last = -1;
};

Writes writesOf(const Instruction& ins, int framesize) {
  int a = ins.a;
  switch (ins.op) {
    case Op::MOV: case Op::NOT: case Op::UNM: case Op::LEN:
    case Op::ADDVN: case Op::SUBVN: case Op::MULVN: case Op::DIVVN: case Op::MODVN:
    case Op::ADDNV: case Op::SUBNV: case Op::MULNV: case Op::DIVNV: case Op::MODNV:
    case Op::ADDVV: case Op::SUBVV: case Op::MULVV: case Op::DIVVV: case Op::MODVV:
    case Op::POW: case Op::CAT: case Op::KSTR: case Op::KCDATA: case Op::KSHORT:
    case Op::KNUM: case Op::KPRI: case Op::UGET: case Op::FNEW: case Op::TNEW: case Op::TDUP:
    case Op::GGET: case Op::TGETV: case Op::TGETS: case Op::TGETB: case Op::TGETR:
    case Op::ISTC: case Op::ISFC:
    case Op::BNOT: case Op::BAND: case Op::BOR: case Op::BXOR: case Op::BSHL: case Op::BSHR:
    case Op::BSAR:
      return {a, a};
    case Op::KNIL:
      return {a, ins.d};
    case Op::CALL: case Op::CALLM:  // B - 1 results; B = 0 is a variable count
      return {a, ins.b == 0 ? framesize - 1 : a + ins.b - 2};
    case Op::VARG: case Op::ITERC: case Op::ITERN:
      return {a, ins.b == 0 ? framesize - 1 : a + ins.b - 2};
    case Op::FORI: case Op::JFORI: case Op::FORL: case Op::IFORL: case Op::JFORL:
      return {a, a + 3};
    case Op::ITERL: case Op::IITERL: case Op::JITERL:
      return {a - 1, a - 1};
    default:
      return {};
  }
}

}  // namespace

ValueMap::ValueMap(const bytecode::Chunk& chunk, const RecorderProfile& profile)
    : chunk_(chunk), profile_(profile), protos_(chunk.prototypes.size()) {
  // Parents come after their children in a dump: resolve from the end. A
  // second round lets calls see what the functions they call return.
  for (std::size_t i = chunk.prototypes.size(); i-- > 0;) resolve(i);
  bool anyKnownReturn = false;
  for (std::size_t i = 0; i < chunk.prototypes.size(); ++i) {
    summarizeReturns(i);
    anyKnownReturn |= protos_[i].returns.known();
  }
  if (anyKnownReturn)
    for (std::size_t i = chunk.prototypes.size(); i-- > 0;) resolve(i);
}

std::string_view ValueMap::intern(std::string text) { return *names_.insert(std::move(text)).first; }

// Classifies a dotted library name against the profile's fast functions.
Value ValueMap::library(std::string_view name) {
  auto cached = libraryCache_.find(name);
  if (cached != libraryCache_.end()) return cached->second;
  std::string_view key = intern(std::string(name));
  std::string prefix = std::string(name) + ".";
  auto hasPrefix = [&prefix](const std::string& s) { return s.compare(0, prefix.size(), prefix) == 0; };
  Value v;
  if (profile_.cFunctions.count(std::string(name))) {
    v = {Value::Kind::CFunction, key};
  } else if (profile_.fastFunction(name)) {
    v = {Value::Kind::LibFunction, key};
  } else {
    for (const auto& ff : profile_.fastFunctions)
      if (hasPrefix(ff.name)) v = {Value::Kind::LibTable, key};
    for (const auto& c : profile_.cFunctions)
      if (hasPrefix(c)) v = {Value::Kind::LibTable, key};
  }
  libraryCache_.emplace(key, v);
  return v;
}

// What a library function that returns a function returns: an ffname, or
// "C" for a plain C function.
Value ValueMap::returnedFunction(std::string_view callee) {
  auto it = profile_.returnsFunction.find(std::string(callee));
  if (it == profile_.returnsFunction.end()) return {};
  if (it->second == "C") return {Value::Kind::CFunction, "C"};
  return library(it->second);
}

Value ValueMap::returned(std::size_t proto) const { return protos_.at(proto).returns; }

void ValueMap::summarizeReturns(std::size_t index) {
  const Prototype& p = chunk_.prototypes[index];
  std::optional<Value> common;
  for (int pc = 1; pc <= p.size(); ++pc) {
    const auto& ins = p.at(pc);
    Value v;
    if (ins.op == Op::CALLT || ins.op == Op::CALLMT) {
      Value callee = at(index, pc, ins.a);
      if (callee.kind == Value::Kind::LibFunction) v = returnedFunction(callee.name);
    } else if (ins.op == Op::RET1) {
      v = at(index, pc, ins.a);
    } else if (ins.op != Op::RET && ins.op != Op::RET0 && ins.op != Op::RETM) {
      continue;
    }
    if (common && !(*common == v)) {
      common = Value{};
      break;
    }
    common = v;
  }
  protos_[index].returns = common.value_or(Value{});
}

Value ValueMap::at(std::size_t proto, int pc, int slot) const {
  const auto& before = protos_.at(proto).before;
  auto it = before.find(pc);
  if (it == before.end() || slot < 0 || static_cast<std::size_t>(slot) >= it->second.size()) return {};
  return it->second[static_cast<std::size_t>(slot)];
}

Value ValueMap::upvalue(std::size_t proto, int index) const {
  const auto& uvs = protos_.at(proto).upvalues;
  if (index < 0 || static_cast<std::size_t>(index) >= uvs.size()) return {};
  return uvs[static_cast<std::size_t>(index)];
}

namespace {

int fixedArgs(const Instruction& call) {
  return call.op == Op::CALLM || call.op == Op::CALLMT ? call.c : call.c - 1;
}

// Successors of an instruction other than pc + 1, and whether it falls through.
struct Flow {
  bool fallsThrough = true;
  int jump = 0;   // target pc, 0 for none
  int skip = 0;   // conditional tests skip the following JMP
};

Flow flowOf(const Instruction& ins, int pc) {
  switch (ins.op) {
    case Op::ISLT: case Op::ISGE: case Op::ISLE: case Op::ISGT: case Op::ISEQV: case Op::ISNEV:
    case Op::ISEQS: case Op::ISNES: case Op::ISEQN: case Op::ISNEN: case Op::ISEQP: case Op::ISNEP:
    case Op::ISTC: case Op::ISFC: case Op::IST: case Op::ISF:
      return {true, 0, pc + 2};
    case Op::JMP: case Op::UCLO: case Op::ISNEXT:
      return {false, ins.jumpTarget(pc), 0};
    case Op::FORI: case Op::JFORI: case Op::FORL: case Op::IFORL: case Op::JFORL:
    case Op::ITERL: case Op::IITERL: case Op::JITERL:
      return {true, ins.jumpTarget(pc), 0};
    case Op::RET: case Op::RET0: case Op::RET1: case Op::RETM: case Op::CALLT: case Op::CALLMT:
      return {false, 0, 0};
    default:
      return {};
  }
}

bool keepsSnapshot(Op op) {
  switch (op) {
    case Op::CALL: case Op::CALLM: case Op::CALLT: case Op::CALLMT: case Op::ITERC: case Op::ITERN:
    case Op::RET1: case Op::FNEW:
      return true;
    default:
      return false;
  }
}

// Merges `from` into `into`; true when `into` changed.
bool meet(std::vector<Value>& into, const std::vector<Value>& from) {
  bool changed = false;
  for (std::size_t s = 0; s < into.size(); ++s) {
    if (into[s].known() && !(into[s] == from[s])) {
      into[s] = {};
      changed = true;
    }
  }
  return changed;
}

}  // namespace

void ValueMap::transfer(std::size_t index, const Instruction& ins, Registers& regs) {
  const Prototype& p = chunk_.prototypes[index];
  const ProtoValues& own = protos_[index];
  int framesize = static_cast<int>(regs.size());
  auto reg = [&](int s) -> Value {
    return s >= 0 && s < framesize ? regs[static_cast<std::size_t>(s)] : Value{};
  };
  Value result;
  switch (ins.op) {
    case Op::MOV: result = reg(ins.d); break;
    case Op::KSHORT: case Op::KNUM: result = {Value::Kind::Number, {}}; break;
    case Op::KSTR:
      if (const auto* s = gcString(p, ins.d)) result = {Value::Kind::String, *s};
      break;
    case Op::GGET:
      if (const auto* s = gcString(p, ins.d)) {
        result = library(*s);
        if (!result.known()) result = {Value::Kind::Global, *s};
      }
      break;
    case Op::TGETS:
      if (const auto* key = gcString(p, ins.c)) {
        Value base = reg(ins.b);
        if (base.kind == Value::Kind::LibTable) result = library(std::string(base.name) + "." + *key);
        else if (base.kind == Value::Kind::String) result = library("string." + *key);
      }
      break;
    case Op::UGET:
      if (ins.d < own.upvalues.size()) result = own.upvalues[ins.d];
      break;
    case Op::FNEW:
      if (ins.d < p.gc.size() && p.gc[ins.d].kind == bytecode::GcConstant::Kind::Child)
        result = {Value::Kind::LuaFunction, {}, p.gc[ins.d].child};
      break;
    case Op::CALL:
      // What known callees return: functions from string.gmatch, io.lines,
      // coroutine.wrap, Lua functions with one known return value, and
      // require of a standard library table.
      if (ins.b >= 2) {
        Value callee = reg(ins.a);
        if (callee.kind == Value::Kind::LibFunction) {
          result = returnedFunction(callee.name);
        } else if (callee.kind == Value::Kind::LuaFunction && callee.proto < protos_.size()) {
          result = protos_[callee.proto].returns;
        } else if (callee.kind == Value::Kind::CFunction && callee.name == "require") {
          Value arg = reg(ins.a + (chunk_.fr2 ? 2 : 1));
          if (arg.kind == Value::Kind::String) result = library(arg.name);
        }
      }
      break;
    default:
      break;
  }
  Writes w = writesOf(ins, framesize);
  // A call frame leaves garbage above its results.
  bool callFrame = ins.op == Op::CALL || ins.op == Op::CALLM || ins.op == Op::ITERC || ins.op == Op::ITERN ||
                   ins.op == Op::VARG;
  int clobberEnd = callFrame ? framesize - 1 : w.last;
  for (int s = std::max(w.first, 0); s <= clobberEnd && s < framesize; ++s) regs[static_cast<std::size_t>(s)] = {};
  if (w.last >= w.first && w.first >= 0 && w.first < framesize && (w.first == w.last || ins.op == Op::CALL))
    regs[static_cast<std::size_t>(w.first)] = result;
}

void ValueMap::resolve(std::size_t index) {
  const Prototype& p = chunk_.prototypes[index];
  ProtoValues& out = protos_[index];
  std::size_t framesize = static_cast<std::size_t>(std::max<int>(p.framesize, 1)) + 4;

  // Upvalues: what the parent's slot held when this closure was created
  // (immutable upvalues are never assigned again), or the parent's upvalue.
  out.upvalues.clear();
  for (const auto& uv : p.upvalues) {
    Value v;
    if (p.parent != SIZE_MAX && uv.immutable) {
      const Prototype& parent = chunk_.prototypes[p.parent];
      const ProtoValues& parentValues = protos_[p.parent];
      if (!uv.parentLocal) {
        if (uv.index < parentValues.upvalues.size()) v = parentValues.upvalues[uv.index];
      } else {
        for (const auto& [pc, regs] : parentValues.before) {
          const auto& ins = parent.at(pc);
          if (ins.op == Op::FNEW && ins.d < parent.gc.size() && parent.gc[ins.d].child == index &&
              parent.gc[ins.d].kind == bytecode::GcConstant::Kind::Child && uv.index < regs.size()) {
            v = regs[uv.index];
            break;
          }
        }
      }
    }
    out.upvalues.push_back(v);
  }

  // Forward dataflow: one pass in pc order per round; the state at a jump
  // target is the meet of its incoming edges. Rounds end when no target changes.
  std::map<int, Registers> atTarget;
  std::map<int, Registers> snapshots;
  std::vector<std::size_t> escaping;
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    snapshots.clear();
    escaping.clear();
    Registers regs(framesize);
    bool reachable = true;  // pc 1 is the entry
    for (int pc = 1; pc <= p.size(); ++pc) {
      auto target = atTarget.find(pc);
      if (target != atTarget.end()) {
        if (reachable) changed |= meet(target->second, regs);
        regs = target->second;
        reachable = true;
      }
      if (!reachable) continue;
      const auto& ins = p.at(pc);
      if (keepsSnapshot(ins.op)) snapshots[pc] = regs;
      noteEscapes(ins, regs, escaping);
      Flow flow = flowOf(ins, pc);
      auto propagate = [&](int t) {
        if (t < 1 || t > p.size()) return;
        auto [it, inserted] = atTarget.emplace(t, regs);
        if (!inserted) changed |= meet(it->second, regs);
        else if (t <= pc) changed = true;
      };
      propagate(flow.skip);  // a test that skips the next JMP changes nothing
      transfer(index, ins, regs);
      propagate(flow.jump);
      reachable = flow.fallsThrough;
    }
    if (!changed) break;
  }
  out.before = std::move(snapshots);
  out.escaping = std::move(escaping);
}

void ValueMap::noteEscapes(const Instruction& ins, const Registers& regs, std::vector<std::size_t>& out) const {
  auto note = [&](int slot) {
    if (slot < 0 || static_cast<std::size_t>(slot) >= regs.size()) return;
    const Value& v = regs[static_cast<std::size_t>(slot)];
    if (v.kind == Value::Kind::LuaFunction) out.push_back(v.proto);
  };
  int args = chunk_.fr2 ? 2 : 1;
  switch (ins.op) {
    case Op::GSET: case Op::TSETS: case Op::TSETV: case Op::TSETB: case Op::RET1: note(ins.a); break;
    case Op::USETV: note(ins.d); break;
    case Op::RET:
      for (int s = ins.a; s < ins.a + ins.d - 1; ++s) note(s);
      break;
    case Op::CALL: case Op::CALLM: case Op::CALLT: case Op::CALLMT:
      for (int s = ins.a + args; s < ins.a + args + fixedArgs(ins); ++s) note(s);  // callbacks
      break;
    default: break;
  }
}

std::vector<bool> ValueMap::escapingFunctions() const {
  std::vector<bool> escapes(protos_.size(), false);
  for (const auto& p : protos_)
    for (std::size_t e : p.escaping)
      if (e < escapes.size()) escapes[e] = true;
  return escapes;
}

}  // namespace ljcheck::flow
