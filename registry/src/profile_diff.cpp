// Compares two recorder profiles fact by fact (see profile_diff.h). Lists
// are compared by name, never by position: numbers shift between builds, so
// a shifted number is reported as renumbered, not as a change of meaning.
#include "ljcheck/profile_diff.h"

#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace ljcheck {
namespace {

// Lists can be long (a made-up profile with 100k names): membership by hash.
std::unordered_set<std::string_view> setOf(const std::vector<std::string>& names) {
  return {names.begin(), names.end()};
}

NameChanges compareNames(const std::vector<std::string>& from, const std::vector<std::string>& to) {
  NameChanges changes;
  const auto inFrom = setOf(from), inTo = setOf(to);
  for (const auto& name : to)
    if (!inFrom.count(name)) changes.added.push_back(name);
  for (const auto& name : from)
    if (!inTo.count(name)) changes.removed.push_back(name);
  return changes;
}

NameChanges compareNames(const std::set<std::string>& from, const std::set<std::string>& to) {
  return compareNames(std::vector<std::string>(from.begin(), from.end()),
                      std::vector<std::string>(to.begin(), to.end()));
}

// Names at another index in `to` than in `from`, in `to`'s order.
std::vector<std::string> renumbered(const std::vector<std::string>& from, const std::vector<std::string>& to) {
  std::unordered_map<std::string_view, std::size_t> index;  // a name's first index in `from`
  for (std::size_t i = 0; i < from.size(); ++i) index.emplace(from[i], i);
  std::vector<std::string> moved;
  for (std::size_t i = 0; i < to.size(); ++i) {
    auto at = index.find(to[i]);
    if (at != index.end() && at->second != i) moved.push_back(to[i]);
  }
  return moved;
}

// Keys whose values differ, a missing key counting as "".
std::vector<ValueChange> compareValues(const std::map<std::string, std::string>& from,
                                       const std::map<std::string, std::string>& to) {
  std::set<std::string> keys;
  for (const auto& [k, v] : from) keys.insert(k);
  for (const auto& [k, v] : to) keys.insert(k);
  std::vector<ValueChange> changes;
  for (const auto& key : keys) {
    auto a = from.find(key);
    auto b = to.find(key);
    std::string before = a == from.end() ? "" : a->second;
    std::string after = b == to.end() ? "" : b->second;
    if (before != after) changes.push_back({key, before, after});
  }
  return changes;
}

// Changes of a fact both sides have; one side's only facts are reported as
// added or removed names instead.
std::vector<ValueChange> changedInBoth(const std::map<std::string, std::string>& from,
                                       const std::map<std::string, std::string>& to) {
  std::vector<ValueChange> changes;
  for (auto& change : compareValues(from, to))
    if (!change.from.empty() && !change.to.empty()) changes.push_back(std::move(change));
  return changes;
}

std::map<std::string, std::string> buildFacts(const RecorderProfile& p) {
  return {{"version", p.version},
          {"versionNum", std::to_string(p.versionNum)},
          {"openresty", p.openresty ? "true" : "false"},
          {"arch", p.arch},
          {"os", p.os},
          {"gc64", p.gc64 ? "true" : "false"}};
}

std::map<std::string, std::string> paramValues(const RecorderProfile& p) {
  std::map<std::string, std::string> values;
  for (const auto& [name, value] : p.params) values[name] = std::to_string(value);
  for (const auto& [name, value] : p.hotCounters) values["hotCounters." + name] = std::to_string(value);
  return values;
}

std::map<std::string, std::string> operandModes(const RecorderProfile& p) {
  std::map<std::string, std::string> modes;
  for (const auto& b : p.bytecodes) modes[b.name] = b.a + " " + b.b + " " + b.cd + " " + b.mm;
  return modes;
}

std::vector<std::string> recordedNames(const RecorderProfile& p) {
  std::vector<std::string> names;
  for (const auto& f : p.fastFunctions)
    if (f.recorded()) names.push_back(f.name);
  return names;
}

std::map<std::string, std::string> recordersOfBoth(const RecorderProfile& p, const RecorderProfile& other) {
  std::map<std::string, std::string> recorders;
  for (const auto& f : p.fastFunctions) {
    const FastFunctionDef* there = other.fastFunction(f.name);
    if (f.recorded() && there && there->recorded()) recorders[f.name] = f.recorder;
  }
  return recorders;
}

std::vector<std::string> keys(const std::map<std::string, std::vector<std::string>>& map) {
  std::vector<std::string> names;
  for (const auto& [k, v] : map) names.push_back(k);
  return names;
}

void compareFastFunctions(const RecorderProfile& from, const RecorderProfile& to, ProfileDiff& d) {
  const ProfileFacts a = from.facts(), b = to.facts();
  d.fastFunctions = compareNames(a.fastFunctionNames, b.fastFunctionNames);
  d.fastFunctionsRenumbered = renumbered(a.fastFunctionNames, b.fastFunctionNames).size();
  d.recorded = compareNames(recordedNames(from), recordedNames(to));
  d.recorders = compareValues(recordersOfBoth(from, to), recordersOfBoth(to, from));
  d.neverStitch = compareNames(from.neverStitch, to.neverStitch);
  d.cFunctions = compareNames(from.cFunctions, to.cFunctions);
  d.returnsFunction = compareValues(from.returnsFunction, to.returnsFunction);
}

void compareTraceErrors(const RecorderProfile& from, const RecorderProfile& to, ProfileDiff& d) {
  std::vector<std::string> a, b;
  std::map<std::string, std::string> messagesA, messagesB;
  for (const auto& e : from.traceErrors) {
    a.push_back(e.name);
    messagesA[e.name] = e.message;
  }
  for (const auto& e : to.traceErrors) {
    b.push_back(e.name);
    messagesB[e.name] = e.message;
  }
  d.traceErrors = compareNames(a, b);
  d.traceErrorsRenumbered = renumbered(a, b);
  d.traceErrorMessages = changedInBoth(messagesA, messagesB);
  d.recorderNames = compareNames(keys(from.recorderErrors), keys(to.recorderErrors));
  for (const auto& [recorder, errors] : to.recorderErrors) {
    auto before = from.recorderErrors.find(recorder);
    if (before == from.recorderErrors.end()) continue;
    NameChanges changes = compareNames(before->second, errors);
    if (!changes.empty()) d.recorderErrors[recorder] = changes;
  }
}

}  // namespace

bool ProfileDiff::identical() const {
  return build.empty() && jitFlags.empty() && params.empty() && bytecodes.empty() && bytecodesRenumbered.empty() &&
         bytecodeModes.empty() && nyiBytecodes.empty() && fastFunctions.empty() && recorded.empty() &&
         recorders.empty() && fastFunctionsRenumbered == 0 && neverStitch.empty() && cFunctions.empty() &&
         returnsFunction.empty() && traceErrors.empty() && traceErrorMessages.empty() &&
         traceErrorsRenumbered.empty() && recorderNames.empty() && recorderErrors.empty();
}

ProfileDiff diffProfiles(const RecorderProfile& from, const RecorderProfile& to) {
  ProfileDiff d;
  d.fromName = from.name;
  d.fromId = from.id;
  d.toName = to.name;
  d.toId = to.id;
  d.build = compareValues(buildFacts(from), buildFacts(to));
  d.jitFlags = compareNames(from.jitFlags, to.jitFlags);
  d.params = compareValues(paramValues(from), paramValues(to));
  d.bytecodes = compareNames(from.bytecodeNames(), to.bytecodeNames());
  d.bytecodesRenumbered = renumbered(from.bytecodeNames(), to.bytecodeNames());
  d.bytecodeModes = changedInBoth(operandModes(from), operandModes(to));
  d.nyiBytecodes = compareNames(from.nyiBytecodes, to.nyiBytecodes);
  compareFastFunctions(from, to, d);
  compareTraceErrors(from, to, d);
  return d;
}

}  // namespace ljcheck
