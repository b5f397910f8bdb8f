// Whether an earlier certain abort hides a site (see masking.h).
//
// A masker m hides the site at pc when m < pc and
//   - both are in the same innermost loop (or both in no loop);
//   - no loop lies wholly in (m, pc) and no call in (m, pc) runs a loop of
//     this file: m is at or above floor_[pc];
//   - every path to pc runs through m: no jump from outside [m, pc) lands in
//     (m, pc]. A test skips only the JMP after it, which never lands past m.
//     A generic for's iterator call sits after its body and is first reached
//     by the jump in front of the loop, so a body abort does not hide it.
// When m fails the last test because of a jump landing on t, every masker
// below t fails it too, so the search skips to the first masker at t or above.
#include "rules/masking.h"

#include <algorithm>
#include <climits>

#include "flow/instruction_effects.h"

namespace ljcheck::rules {

namespace {

using bytecode::Op;
using Kind = flow::Value::Kind;

// A callee that may be Lua code the file cannot see into: unknown, a
// global, another module's function, a method or an object's __call.
bool resolvesToLuaCode(const flow::Value& callee) {
  if (!callee.known()) return true;
  switch (callee.kind) {
    case Kind::Global: case Kind::ModuleMember: case Kind::ModuleResult: case Kind::Method: case Kind::Instance: case Kind::Receiver:
      return true;
    default:
      return false;
  }
}

// The pc an instruction transfers control to besides the next one; 0 for
// none. LOOP's operand marks the loop's end for the JIT and is no jump.
int jumpOf(const bytecode::Instruction& ins, int pc) {
  switch (ins.op) {
    case Op::JMP: case Op::UCLO: case Op::ISNEXT: case Op::FORI: case Op::JFORI:
    case Op::FORL: case Op::IFORL: case Op::JFORL: case Op::ITERL: case Op::IITERL: case Op::JITERL:
      return ins.jumpTarget(pc);
    default:
      return 0;
  }
}

// By pc, the index of the innermost loop holding it (LoopMap::innermost: the
// shortest, the first listed among equals), or -1. Each loop marks its pcs
// where it is shorter than the loop marked there: loops nest a few deep, so
// this touches each pc a few times, with no allocation but the result.
std::vector<int> innermostLoops(const std::vector<flow::Loop>& loops, int size) {
  std::vector<int> innermost(static_cast<std::size_t>(size) + 1, -1);
  auto span = [&](int i) { return loops[static_cast<std::size_t>(i)].last - loops[static_cast<std::size_t>(i)].first; };
  for (std::size_t i = 0; i < loops.size(); ++i) {
    const flow::Loop& l = loops[i];
    int first = std::max(l.first, 1), last = std::min(l.last, size);
    for (int pc = first; pc <= last; ++pc) {
      int& at = innermost[static_cast<std::size_t>(pc)];
      if (at < 0 || l.last - l.first < span(at)) at = static_cast<int>(i);
    }
  }
  return innermost;
}

// Whether a call of `proto` in this file passes, for its parameter k, a
// function of this file that runs a loop.
bool passesLoopingFunction(const bytecode::Chunk& chunk, const flow::ValueMap& values, const flow::CallGraph& calls,
                           std::size_t proto, int k) {
  for (const flow::CallSite& site : calls.callers(proto)) {
    const bytecode::Instruction& call = chunk.prototypes[site.proto].at(site.pc);
    const int arg = site.firstArgument + k;
    if (arg >= flow::fixedArgs(call)) continue;
    const flow::Value v = values.at(site.proto, site.pc, flow::argumentSlot(chunk, call, arg));
    if (v.is(flow::Value::Kind::LuaFunction) && v.proto < chunk.prototypes.size() && calls.runsLoop(v.proto))
      return true;
  }
  return false;
}

// Whether the side trace from the exit of a loop that `proto` runs (its
// own, or that of a function it calls, down to `depth` 3) surely returns
// into its caller: a loop whose body calls no function that runs a loop of
// its own, nor a parameter some call in this file passes such a function
// for. A loop trace that records a call into another loop links to that
// loop's trace and is not left by its own exit (`-jv`: `[TRACE 4 r01.lua:8
// -> 2]`, audit 97: reduce's loop calling back a closure that runs sum's).
// What else it calls is taken not to loop, as callRunsLoop takes a callee
// given no function.
bool loopReturnsHere(const bytecode::Chunk& chunk, const flow::ValueMap& values, const flow::CallGraph& calls,
                     std::size_t proto, int depth) {
  const bytecode::Prototype& code = chunk.prototypes[proto];
  for (const flow::Loop& loop : calls.loopMap(proto).loops()) {
    bool plain = true;
    for (int pc = loop.first; pc <= loop.last && plain; ++pc) {
      const bytecode::Instruction& ins = code.at(pc);
      if (!flow::isCall(ins.op)) continue;
      flow::Value callee = values.at(proto, pc, flow::calleeSlot(ins));
      if (callee.is(flow::Value::Kind::Method)) callee = values.resolveMethod(callee);
      if (callee.is(flow::Value::Kind::LuaFunction) && callee.proto < chunk.prototypes.size())
        plain = !calls.runsLoop(callee.proto);
      else if (const int k = flow::parameterIn(code, pc, flow::calleeSlot(ins)); k >= 0)
        plain = !passesLoopingFunction(chunk, values, calls, proto, k);
    }
    if (plain) return true;
  }
  if (!calls.loopMap(proto).loops().empty() || depth >= 3) return false;
  for (int pc = 1; pc <= code.size(); ++pc) {
    if (!flow::isCall(code.at(pc).op) || flow::isTailCall(code.at(pc).op)) continue;
    const flow::Value callee = values.at(proto, pc, flow::calleeSlot(code.at(pc)));
    if (callee.is(flow::Value::Kind::LuaFunction) && callee.proto < chunk.prototypes.size() &&
        callee.proto != proto && calls.runsLoop(callee.proto) &&
        loopReturnsHere(chunk, values, calls, callee.proto, depth + 1))
      return true;
  }
  return false;
}

}  // namespace

// Library functions have no Lua loop of their own (pcall's and sort's
// callbacks return to a C frame, which ends the trace); an unresolved callee
// given no function is assumed to have none (most are methods that do not
// loop hot; checked on the accuracy workloads).
bool callRunsLoop(const bytecode::Chunk& chunk, std::size_t proto, const flow::ValueMap& values,
                  const flow::CallGraph& calls, int pc, bool* sure) {
  if (sure) *sure = false;
  const bytecode::Instruction& call = chunk.prototypes[proto].at(pc);
  if (flow::isTailCall(call.op)) return false;
  flow::Value callee = values.at(proto, pc, flow::calleeSlot(call));
  if (callee.is(flow::Value::Kind::Method)) callee = values.resolveMethod(callee);
  if (callee.is(flow::Value::Kind::LuaFunction) && callee.proto < chunk.prototypes.size()) {
    if (!calls.runsLoop(callee.proto)) return false;
    if (sure) *sure = loopReturnsHere(chunk, values, calls, callee.proto, 0);
    return true;
  }
  if ((callee.is(flow::Value::Kind::ModuleMember) || callee.is(flow::Value::Kind::ModuleResult)) &&
      calls.memberRunsLoop(callee.name)) {
    if (sure) *sure = true;
    return true;
  }
  if (!resolvesToLuaCode(callee) || !flow::isCall(call.op)) return false;
  for (int k = 0; k < flow::fixedArgs(call); ++k)
    if (values.at(proto, pc, flow::argumentSlot(chunk, call, k)).is(flow::Value::Kind::LuaFunction)) return true;
  return false;
}

int closingReturnLine(const bytecode::Prototype& callee) {
  const int size = callee.size();
  // By pc: reached by a jump from an instruction other than UCLO.
  std::vector<char> plainEntry(static_cast<std::size_t>(size) + 2, 0);
  int firstUclo = 0;
  bool anyReturn = false;
  for (int q = 1; q <= size; ++q) {
    const auto& ins = callee.at(q);
    if (ins.op == Op::UCLO && firstUclo == 0) firstUclo = q;
    flow::Flow f = flow::flowOf(ins, q);
    for (int t : {f.jump, f.skip})
      if (t >= 1 && t <= size && ins.op != Op::UCLO) plainEntry[static_cast<std::size_t>(t)] = 1;
  }
  for (int q = 1; q <= size; ++q) {
    if (!flow::leavesFunction(callee.at(q).op)) continue;
    anyReturn = true;
    if (plainEntry[static_cast<std::size_t>(q)]) return 0;
    if (q == 1) return 0;
    const auto& before = callee.at(q - 1);
    bool fallsIn = flow::flowOf(before, q - 1).fallsThrough && before.op != Op::UCLO;
    if (fallsIn) return 0;
  }
  return anyReturn && firstUclo > 0 ? callee.at(firstUclo).line : 0;
}

Masking::Masking(const bytecode::Chunk& chunk, std::size_t proto, const flow::ValueMap& values,
                 const flow::CallGraph& calls, const std::vector<int>& maskers) {
  const bytecode::Prototype& code = chunk.prototypes[proto];
  code_ = &code;
  size_ = code.size();
  const auto n = static_cast<std::size_t>(size_);
  const flow::LoopMap& loops = calls.loopMap(proto);
  innermost_ = innermostLoops(loops.loops(), size_);
  for (const flow::Loop& l : loops.loops()) bodies_.emplace_back(l.first, l.last);

  // floor_[pc]: the highest loop-running call below pc, and the highest first
  // pc of a loop that ends below pc.
  floor_.assign(n + 2, 0);
  for (const flow::Loop& l : loops.loops()) {
    std::size_t from = static_cast<std::size_t>(std::clamp(l.last + 1, 1, size_ + 1));
    floor_[from] = std::max(floor_[from], l.first);
  }
  for (int pc = 1; pc <= size_; ++pc) {
    auto at = static_cast<std::size_t>(pc);
    floor_[at] = std::max(floor_[at], floor_[at - 1]);
    if (pc > 1 && flow::isCallOrIterator(code.at(pc - 1).op) && callRunsLoop(chunk, proto, values, calls, pc - 1))
      floor_[at] = std::max(floor_[at], pc - 1);
  }

  setMaskers(maskers);

  while (leaves_ < size_ + 1) leaves_ *= 2;
  lowestSource_.assign(2 * static_cast<std::size_t>(leaves_), INT_MAX);
  highestSource_.assign(2 * static_cast<std::size_t>(leaves_), INT_MIN);
  enteredFromOutside_.assign(n + 1, 0);
  for (int q = 1; q <= size_; ++q) {
    int t = jumpOf(code.at(q), q);
    if (t < 1 || t > size_) continue;
    if (const int loop = innermost_[static_cast<std::size_t>(t)]; loop >= 0) {
      const auto& [first, last] = bodies_[static_cast<std::size_t>(loop)];
      if (q < first || q > last) enteredFromOutside_[static_cast<std::size_t>(t)] = 1;  // a generic for's iterator call
    }
    auto leaf = static_cast<std::size_t>(leaves_ + t);
    lowestSource_[leaf] = std::min(lowestSource_[leaf], q);
    highestSource_[leaf] = std::max(highestSource_[leaf], q);
  }
  for (auto node = static_cast<std::size_t>(leaves_) - 1; node >= 1; --node) {
    lowestSource_[node] = std::min(lowestSource_[2 * node], lowestSource_[2 * node + 1]);
    highestSource_[node] = std::max(highestSource_[2 * node], highestSource_[2 * node + 1]);
  }
}

void Masking::setMaskers(const std::vector<int>& maskers) {
  maskersByLoop_.clear();
  for (int m : maskers)
    if (m >= 1 && m <= size_) maskersByLoop_[innermost_[static_cast<std::size_t>(m)]].push_back(m);
  for (auto& [loop, pcs] : maskersByLoop_) {
    std::sort(pcs.begin(), pcs.end());
    pcs.erase(std::unique(pcs.begin(), pcs.end()), pcs.end());
  }
}

Masking Masking::withMaskers(const std::vector<int>& maskers) const {
  Masking other = *this;
  other.sweeps_.clear();
  other.setMaskers(maskers);
  return other;
}

int Masking::entryBehind(int masker, int pc) const { return entryBehind(1, 0, leaves_ - 1, masker, pc); }

// Descends the segment tree over [low, high], right half first.
int Masking::entryBehind(std::size_t node, int low, int high, int masker, int pc) const {
  if (high <= masker || low > pc) return 0;
  if (lowestSource_[node] >= masker && highestSource_[node] < pc) return 0;
  if (low == high) return low;
  int mid = low + (high - low) / 2;
  if (int t = entryBehind(2 * node + 1, mid + 1, high, masker, pc)) return t;
  return entryBehind(2 * node, low, mid, masker, pc);
}

int Masking::firstMasker(int pc) const {
  if (pc < 1 || pc > size_) return 0;
  auto bucket = maskersByLoop_.find(innermost_[static_cast<std::size_t>(pc)]);
  if (bucket == maskersByLoop_.end()) return 0;
  const std::vector<int>& pcs = bucket->second;
  auto it = std::lower_bound(pcs.begin(), pcs.end(), std::max(floor_[static_cast<std::size_t>(pc)], 1));
  while (it != pcs.end() && *it < pc) {
    int entry = entryBehind(*it, pc);
    if (entry == 0) return *it;
    it = std::lower_bound(it, pcs.end(), entry);
  }
  return 0;
}

// One sweep over the body from its first pc: every edge taken is a forward
// one (a jump back ends the pass), so each pc is settled when the sweep
// gets to it, and a masker at or after a pc changes nothing before it: one
// sweep answers for every pc of the body whose floor is `low`. `clean`:
// some path gets there through no masker; `through`: the lowest masker
// some path gets there through, 0 for none.
const Masking::Sweep& Masking::sweep(int loop, int low) const {
  auto [it, fresh] = sweeps_.try_emplace(std::make_pair(loop, low));
  Sweep& out = it->second;
  if (!fresh) return out;
  const int first = loop < 0 ? 1 : bodies_[static_cast<std::size_t>(loop)].first;
  const int last = loop < 0 ? size_ : bodies_[static_cast<std::size_t>(loop)].second;
  out.first = first;
  if (first < 1 || first > last) return out;
  const auto width = static_cast<std::size_t>(last - first + 1);
  std::vector<char> masker(width, 0);
  out.clean.assign(width, 0);
  out.through.assign(width, 0);
  const std::vector<int>& pcs = maskersByLoop_.at(loop);
  for (auto m = std::lower_bound(pcs.begin(), pcs.end(), low); m != pcs.end() && *m <= last; ++m)
    masker[static_cast<std::size_t>(*m - first)] = 1;
  std::vector<char>& clean = out.clean;
  std::vector<int>& through = out.through;
  clean[0] = 1;
  for (int q = first; q <= last; ++q) {
    const auto at = static_cast<std::size_t>(q - first);
    if (enteredFromOutside_[static_cast<std::size_t>(q)]) clean[at] = 1;  // where a trace from outside comes in
    if (!clean[at] && through[at] == 0) continue;
    const bool stops = masker[at] && clean[at];
    const int via = stops ? (through[at] == 0 ? q : std::min(through[at], q)) : through[at];
    const flow::Flow f = flow::flowOf(code_->at(q), q);
    auto reach = [&](int t) {
      if (t <= q || t > last) return;  // back, or out of the body
      const auto to = static_cast<std::size_t>(t - first);
      if (clean[at] && !masker[at]) clean[to] = 1;
      if (via != 0) through[to] = through[to] == 0 ? via : std::min(through[to], via);
    };
    if (f.fallsThrough && !flow::leavesFunction(code_->at(q).op)) reach(q + 1);
    reach(f.jump);
    reach(f.skip);
  }
  return out;
}

Masking::Paths Masking::pathsTo(int pc) const {
  Paths out;
  if (pc < 1 || pc > size_) return out;
  const int loop = innermost_[static_cast<std::size_t>(pc)];
  auto bucket = maskersByLoop_.find(loop);
  if (bucket == maskersByLoop_.end()) return out;
  const std::vector<int>& pcs = bucket->second;
  const int low = std::max(floor_[static_cast<std::size_t>(pc)], 1);
  auto from = std::lower_bound(pcs.begin(), pcs.end(), low);
  if (from == pcs.end() || *from >= pc) return out;
  const Sweep& body = sweep(loop, low);
  if (body.clean.empty() || pc < body.first) return out;
  const auto at = static_cast<std::size_t>(pc - body.first);
  if (at >= body.clean.size()) return out;
  const bool clean = body.clean[at] || enteredFromOutside_[static_cast<std::size_t>(pc)];
  if (!clean && body.through[at] != 0) out.everyPathAborts = body.through[at];
  if (clean && body.through[at] != 0) out.somePathAborts = body.through[at];
  return out;
}

}  // namespace ljcheck::rules
