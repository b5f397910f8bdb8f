// Parameters of a function that only this file's code calls, from what its
// calls pass (ValueMap::bindParameters):
//
//   local function each_permutation(t, n, f)   -- f is coroutine.yield
//     if n == 0 then f(t) end
//     for i = 1, n do each_permutation(t, n - 1, f) end
//   end
//   local function permutations(t)
//     return coroutine.wrap(function() each_permutation(t, #t, coroutine.yield) end)
//   end
//
// The function never escapes (escapingFunctions: not stored, returned,
// passed on or captured by a closure that may assign it), so the calls the
// value passes saw are all the calls there are. When every one of them
// passes the same callee or namespace (a library table, ffi.C, a module)
// in a parameter's place, or leaves it out, the parameter holds it (or nil)
// on entry.
//
// A call from inside the function itself (recursion) or from one of its
// closures passes what the function was given: the first round leaves those
// calls out, the next takes them in, and a binding they contradict is
// dropped for good. A binding found in one round can give another function
// its binding in the next (a callee passed on through two helpers); after a
// few rounds without a fixed point every binding is dropped.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "flow/instruction_effects.h"
#include "flow/values.h"

namespace ljcheck::flow {

using bytecode::Op;
using Kind = Value::Kind;

namespace {

// What a binding may hold: callees and the namespaces they are read from
// (a library, an FFI namespace, a module), whose calls the rules judge;
// and nil, a parameter every call leaves out or passes as nil: the code
// a test of it skips never runs (truthyEdges). An object whose class the
// tracker knows (ValueMap::isObject) binds too: its methods resolve
// (`scan(src)` with `src = Chars.new(s)`, `source:find(p)` in scan; audit
// of luacheck's detect_bad_whitespace, whose `chstate.source:find` is a
// LatinChars method that tail-calls string.find).
// Strings and numbers are left to the evidence that names the calls they
// come from (pattern_arguments.h, argument_trips.h), and a field of another
// module (ModuleMember) to the guesses made at its uses: it may be a
// string or a table as well as a function.
Value bindable(const Value& v) {
  if (v.reassignable) return {};
  switch (v.kind) {
    case Kind::LibTable: case Kind::LibFunction: case Kind::CFunction: case Kind::LuaFunction:
    case Kind::FfiLibrary: case Kind::FfiSymbol: case Kind::CType: case Kind::Module: case Kind::CModule:
    case Kind::CModuleFunction: case Kind::Nil:
      return v;
    default:
      return {};
  }
}

constexpr int kRounds = 6;

}  // namespace

std::vector<Value> ValueMap::entryValues(std::size_t proto) const {
  static const std::vector<Value> none;
  const std::vector<Value>& bound = proto < parameters_.size() ? parameters_[proto].values : none;
  std::vector<Value> entry(std::max<std::size_t>(bound.size(), 1));
  for (std::size_t i = 0; i < bound.size(); ++i)
    if (bound[i].known()) entry[i] = bound[i];
  if (Value self = receiverOf(proto); self.known()) entry[0] = self;  // T:m(): what the class shows
  return entry;
}

ValueMap::BoundParameters ValueMap::boundParameter(std::size_t proto, int slot) const {
  if (proto >= parameters_.size() || slot < 0) return {};
  const BoundParameters& bound = parameters_[proto];
  const auto i = static_cast<std::size_t>(slot);
  if (i >= bound.values.size() || !bound.values[i].known()) return {};
  return {{bound.values[i]}, bound.calls, bound.line};
}

// True when `inner` is `outer` or one of the closures it creates, at any depth.
bool ValueMap::within(std::size_t inner, std::size_t outer) const {
  for (std::size_t p = inner; p != SIZE_MAX && p < chunk_.prototypes.size(); p = chunk_.prototypes[p].parent)
    if (p == outer) return true;
  return false;
}

std::vector<ValueMap::LocalCall> ValueMap::callsOfLocalFunctions() const {
  const std::size_t count = chunk_.prototypes.size();
  std::vector<LocalCall> out;
  for (std::size_t q = 0; q < count; ++q) {
    const bytecode::Prototype& caller = chunk_.prototypes[q];
    const Snapshots& kept = protos_[q].before;
    for (std::size_t k = 0; k < kept.pcs.size(); ++k) {
      const int pc = kept.pcs[k];
      const auto& ins = caller.at(pc);
      if (!isCallOrIterator(ins.op)) continue;
      RegisterView regs = kept.state(k);
      const int at = calleeSlot(ins);
      if (at < 0 || static_cast<std::size_t>(at) >= regs.size()) continue;
      // Only the value in the callee's slot: a method (obj:m(), T.m()) is
      // stored in a table, so it escapes.
      const Value& callee = regs[static_cast<std::size_t>(at)];
      if (callee.is(Kind::LuaFunction) && callee.proto + 1 < count) out.push_back({q, pc, callee.proto, 0});
      // pcall(f, ...) and xpcall(f, handler, ...) call f with what follows.
      if (ins.op == Op::ITERC || !callee.is(Kind::LibFunction) || (callee.name != "pcall" && callee.name != "xpcall") ||
          fixedArgs(ins) < 1)
        continue;
      const int slot = argumentSlot(chunk_, ins, 0);
      if (slot < 0 || static_cast<std::size_t>(slot) >= regs.size()) continue;
      const Value& f = regs[static_cast<std::size_t>(slot)];
      if (f.is(Kind::LuaFunction) && f.proto + 1 < count) out.push_back({q, pc, f.proto, callee.name == "pcall" ? 1 : 2});
    }
  }
  return out;
}

std::vector<ValueMap::BoundParameters> ValueMap::parametersFromCalls(const std::vector<LocalCall>& calls,
                                                                     const std::vector<bool>& escapes, bool withOwnCalls,
                                                                     const std::vector<std::vector<Value>>& dropped) const {
  const std::size_t count = chunk_.prototypes.size();
  std::vector<BoundParameters> out(count);
  std::vector<char> seen(count, 0), hidden(count, 0);
  for (const LocalCall& call : calls) {
    const std::size_t f = call.callee;
    if (escapes[f] || hidden[f]) continue;
    const auto& ins = chunk_.prototypes[call.caller].at(call.pc);
    if (ins.op == Op::ITERC) {  // an iterator's arguments are not in the call
      hidden[f] = 1;
      continue;
    }
    const std::size_t params = chunk_.prototypes[f].numparams;
    const bool own = within(call.caller, f);
    if (params == 0 || (own && !withOwnCalls)) continue;
    RegisterView regs = protos_[call.caller].before.find(call.pc);
    if (!regs) continue;  // no longer reached
    std::vector<Value> passed(params);
    const int fixed = fixedArgs(ins);
    const bool multres = ins.op == Op::CALLM || ins.op == Op::CALLMT;
    for (std::size_t i = 0; i < params; ++i) {
      const int n = static_cast<int>(i) + call.firstArgument;
      if (n >= fixed) {
        if (!multres) passed[i] = Value::of(Kind::Nil);
        continue;
      }
      const int slot = argumentSlot(chunk_, ins, n);
      if (slot < 0 || static_cast<std::size_t>(slot) >= regs.size()) continue;
      const Value& v = regs[static_cast<std::size_t>(slot)];
      // A field of a table read before the pass saw the store (`handlers.ok`
      // handed to a dispatcher, audit 106): what the table's stores give it.
      passed[i] = isObject(v) ? v : bindable(v.is(Kind::Method) ? resolveMethod(v) : v);
    }
    BoundParameters& bound = out[f];
    ++bound.calls;
    if (!own && (bound.line == 0 || ins.line < bound.line)) bound.line = ins.line;
    if (!seen[f]) {
      seen[f] = 1;
      bound.values = std::move(passed);
      continue;
    }
    for (std::size_t i = 0; i < params; ++i)
      if (!(bound.values[i] == passed[i])) bound.values[i] = {};
  }
  for (std::size_t f = 0; f < count; ++f) {
    std::vector<Value>& values = out[f].values;
    bool any = false;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i < dropped[f].size() && dropped[f][i].kind != Kind::Unknown) values[i] = {};
      any |= values[i].known();
    }
    if (hidden[f] || !any) out[f] = {};
  }
  return out;
}

void ValueMap::bindParameters(bool afterReturns) {
  const std::size_t count = chunk_.prototypes.size();
  if (count < 2) return;
  const std::vector<bool> escapes = escapingFunctions();
  bool candidate = false;  // most files: every function with parameters escapes
  for (std::size_t f = 0; f + 1 < count && !candidate; ++f)
    candidate = !escapes[f] && chunk_.prototypes[f].numparams > 0;
  if (!candidate) return;
  // A binding adds no call of a function that escapes nowhere: a function
  // it holds was passed as an argument, so it escapes.
  const std::vector<LocalCall> calls = callsOfLocalFunctions();
  if (std::none_of(calls.begin(), calls.end(), [&](const LocalCall& c) {
        return !escapes[c.callee] && chunk_.prototypes[c.callee].numparams > 0;
      }))
    return;
  if (!afterReturns || parameters_.size() != count) {
    parameters_.assign(count, {});
    droppedParameters_.assign(count, {});
  }
  std::vector<std::vector<Value>>& dropped = droppedParameters_;
  auto rerun = [&](const std::vector<bool>& changed) {
    std::vector<bool> again(count, false);
    for (std::size_t i = count; i-- > 0;) {  // parents come after their children in a dump
      const std::size_t parent = chunk_.prototypes[i].parent;
      again[i] = changed[i] || (parent < count && again[parent]);
      if (again[i]) resolve(i);
    }
  };
  for (int round = 0; round < kRounds; ++round) {
    // A binding can make a function escape (a callee passed on to
    // string.gsub): its calls are then no longer all in view.
    std::vector<BoundParameters> found =
        parametersFromCalls(calls, escapingFunctions(), round > 0 || afterReturns, dropped);
    std::vector<bool> changed(count, false);
    bool any = false;
    for (std::size_t f = 0; f < count; ++f) {
      const std::vector<Value>& now = found[f].values;
      const std::vector<Value>& before = parameters_[f].values;
      if (now.size() == before.size() && std::equal(now.begin(), now.end(), before.begin())) {
        parameters_[f] = std::move(found[f]);  // the calls counted with the function's own
        continue;
      }
      for (std::size_t i = 0; i < before.size(); ++i) {
        const bool lost = before[i].known() && (i >= now.size() || !(now[i] == before[i]));
        if (!lost) continue;
        if (dropped[f].size() <= i) dropped[f].resize(i + 1);
        dropped[f][i] = before[i];
      }
      parameters_[f] = std::move(found[f]);
      changed[f] = any = true;
    }
    if (!any) return;
    rerun(changed);
  }
  // No fixed point: what is bound may rest on a binding that changed last.
  std::vector<bool> changed(count, false);
  for (std::size_t f = 0; f < count; ++f) changed[f] = !parameters_[f].values.empty();
  parameters_.assign(count, {});
  rerun(changed);
}

}  // namespace ljcheck::flow
