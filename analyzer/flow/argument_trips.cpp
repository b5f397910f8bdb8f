// Trip counts from the constant arguments of every call (see argument_trips.h).
#include "flow/argument_trips.h"

#include <algorithm>
#include <climits>

#include "flow/instruction_effects.h"

namespace ljcheck::flow {

using bytecode::Op;

namespace {

std::string parameterName(const bytecode::Prototype& proto, int param) {
  // Parameters are the first locals, alive from the function's entry.
  if (param < static_cast<int>(proto.vars.size()) && proto.vars[param].startpc == 0 &&
      !proto.vars[param].name.empty())
    return proto.vars[param].name;
  return "parameter " + std::to_string(param + 1);
}

}  // namespace

ArgumentTrips argumentTrips(const bytecode::Chunk& chunk, std::size_t index, const ValueMap& values, const Loop& loop,
                            const std::vector<CallSite>& callers, long hotloop) {
  const auto& proto = chunk.prototypes[index];
  int fori = loop.first - 1;
  if (loop.kind != Loop::Kind::NumericFor || fori < 1 || proto.at(fori).op != Op::FORI || callers.empty()) return {};
  int base = proto.at(fori).a;
  Value start = values.at(index, fori, base), step = values.at(index, fori, base + 2);
  if (!start.isConstantNumber() || !step.isConstantNumber() || step.integer == 0) return {};
  int param = copiedParameter(proto, fori, base + 1);
  if (param < 0 || assignsSlot(proto, param)) return {};
  long fewest = LONG_MAX, most = LONG_MIN, low = LONG_MAX, high = LONG_MIN;
  int line = 0;
  for (const CallSite& site : callers) {
    const auto& call = chunk.prototypes[site.proto].at(site.pc);
    if (!isCall(call.op)) return {};  // an iterator's arguments are its state
    if (!site.protectedCall) {
      Value callee = values.at(site.proto, site.pc, calleeSlot(call));
      if (!callee.is(Value::Kind::LuaFunction) || callee.proto != index) return {};  // e.g. a ctype's __new
    }
    int k = site.firstArgument + param;
    if (k >= fixedArgs(call)) return {};
    Value stop = values.at(site.proto, site.pc, argumentSlot(chunk, call, k));
    if (!stop.isConstantNumber()) return {};
    long n = numericForTurns(start.integer, stop.integer, step.integer);
    fewest = std::min(fewest, n);
    most = std::max(most, n);
    low = std::min(low, static_cast<long>(stop.integer));
    high = std::max(high, static_cast<long>(stop.integer));
    line = call.line;
  }
  ArgumentTrips out;
  std::string bound;
  if (fewest >= hotloop) {
    out.count = fewest;
    bound = "at least";
  } else if (most < hotloop) {
    out.count = most;
    bound = "at most";
  } else {
    return {};
  }
  std::string name = parameterName(proto, param);
  if (callers.size() == 1)
    out.why = name + " is " + std::to_string(low) + " at its one call, at line " + std::to_string(line);
  else
    out.why = bound + ": its " + std::to_string(callers.size()) + " calls pass " + name + " = " +
              (low == high ? std::to_string(low) : std::to_string(low) + " to " + std::to_string(high));
  return out;
}

}  // namespace ljcheck::flow
