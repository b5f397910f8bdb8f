// The text and JSON writers of `ljcheck registry diff` (see profile_diff.h).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ljcheck/profile_diff.h"

namespace ljcheck {
namespace {

// --- text: one heading per changed fact, then the facts that did not change ---

class TextDiff {
 public:
  explicit TextDiff(std::ostream& out) : out_(out) {}
  void names(const char* label, const std::vector<std::string>& names) {
    if (!names.empty()) out_ << fmt::format("  {:<18} {}\n", label, fmt::join(names, " "));
  }
  // `renumbered`: the names in both lists that have another number.
  void changes(const char* heading, const NameChanges& c, const std::string& renumbered = "") {
    if (c.empty() && renumbered.empty()) return unchanged(heading);
    out_ << heading << "\n";
    names("added", c.added);
    names("removed", c.removed);
    if (!renumbered.empty()) out_ << fmt::format("  {:<18} {}\n", "renumbered", renumbered);
  }
  void values(const char* heading, const std::vector<ValueChange>& changes) {
    if (changes.empty()) return unchanged(heading);
    out_ << heading << "\n";
    for (const auto& c : changes)
      out_ << fmt::format("  {:<18} {} -> {}\n", c.name, c.from.empty() ? "(none)" : c.from,
                               c.to.empty() ? "(none)" : c.to);
  }
  void unchanged(const char* heading) { unchanged_.push_back(heading); }
  void finish() const {
    if (!unchanged_.empty()) out_ << fmt::format("unchanged: {}\n", fmt::join(unchanged_, "; "));
  }

 private:
  std::ostream& out_;
  std::vector<std::string> unchanged_;
};

}  // namespace

void writeDiffText(std::ostream& out, const ProfileDiff& d) {
  out << fmt::format("recorder profile {} -> {}\n  from {}\n  to   {}\n", d.fromName, d.toName, d.fromId,
                           d.toId);
  if (d.identical()) {
    out << "no differences\n";
    return;
  }
  TextDiff t(out);
  t.values("build", d.build);
  t.changes("jit flags", d.jitFlags);
  t.values("JIT parameter defaults", d.params);
  t.changes("bytecodes", d.bytecodes, fmt::format("{}", fmt::join(d.bytecodesRenumbered, " ")));
  t.values("bytecode operand modes", d.bytecodeModes);
  t.changes("bytecodes the recorder refuses (NYIBC)", d.nyiBytecodes);
  t.changes("fast functions", d.fastFunctions,
            d.fastFunctionsRenumbered ? fmt::format("{} have another ffid", d.fastFunctionsRenumbered) : "");
  t.changes("recorded fast functions (the others stitch)", d.recorded);
  t.values("recorder per fast function", d.recorders);
  t.changes("builtins that never stitch", d.neverStitch);
  t.changes("plain C functions", d.cFunctions);
  t.values("functions returning a function", d.returnsFunction);
  t.changes("trace errors", d.traceErrors, fmt::format("{}", fmt::join(d.traceErrorsRenumbered, " ")));
  t.values("trace error messages", d.traceErrorMessages);
  t.changes("recorders raising trace errors", d.recorderNames);
  if (d.recorderErrors.empty()) t.unchanged("trace errors per recorder");
  else out << "trace errors per recorder\n";
  for (const auto& [recorder, c] : d.recorderErrors)
    out << fmt::format("  {:<18} added [{}] removed [{}]\n", recorder, fmt::join(c.added, " "),
                             fmt::join(c.removed, " "));
  t.finish();
}

// --- json ---

namespace {

nlohmann::ordered_json toJson(const NameChanges& c) { return {{"added", c.added}, {"removed", c.removed}}; }

// {name: {from, to}} in the changes' order. ordered_json finds a key by a
// linear search, so inserting key by key is quadratic (100k parameters took
// half a minute): the members are collected first, a repeated name keeping
// its first place and its last value as operator[] would, and set at once.
nlohmann::ordered_json toJson(const std::vector<ValueChange>& changes) {
  using Json = nlohmann::ordered_json;
  std::vector<std::pair<std::string, Json>> members;
  std::unordered_map<std::string_view, std::size_t> place;
  for (const auto& c : changes) {
    Json value = {{"from", c.from}, {"to", c.to}};
    auto [at, fresh] = place.emplace(c.name, members.size());
    if (fresh) members.emplace_back(c.name, std::move(value));
    else members[at->second].second = std::move(value);
  }
  Json out = Json::object();
  out.get_ref<Json::object_t&>() = Json::object_t(members.begin(), members.end());
  return out;
}

}  // namespace

void writeDiffJson(std::ostream& out, const ProfileDiff& d) {
  nlohmann::ordered_json recorderErrors = nlohmann::ordered_json::object();
  for (const auto& [recorder, c] : d.recorderErrors) recorderErrors[recorder] = toJson(c);
  nlohmann::ordered_json j = {
      {"from", {{"name", d.fromName}, {"id", d.fromId}}},
      {"to", {{"name", d.toName}, {"id", d.toId}}},
      {"identical", d.identical()},
      {"build", toJson(d.build)},
      {"jitFlags", toJson(d.jitFlags)},
      {"params", toJson(d.params)},
      {"bytecodes", toJson(d.bytecodes)},
      {"bytecodesRenumbered", d.bytecodesRenumbered},
      {"bytecodeModes", toJson(d.bytecodeModes)},
      {"nyiBytecodes", toJson(d.nyiBytecodes)},
      {"fastFunctions", toJson(d.fastFunctions)},
      {"fastFunctionsRenumbered", d.fastFunctionsRenumbered},
      {"recorded", toJson(d.recorded)},
      {"recorders", toJson(d.recorders)},
      {"neverStitch", toJson(d.neverStitch)},
      {"cFunctions", toJson(d.cFunctions)},
      {"returnsFunction", toJson(d.returnsFunction)},
      {"traceErrors", toJson(d.traceErrors)},
      {"traceErrorsRenumbered", d.traceErrorsRenumbered},
      {"traceErrorMessages", toJson(d.traceErrorMessages)},
      {"recorderNames", toJson(d.recorderNames)},
      {"recorderErrors", recorderErrors}};
  out << j.dump(2) << "\n";
}


}  // namespace ljcheck
