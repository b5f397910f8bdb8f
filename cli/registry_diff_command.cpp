// `ljcheck registry diff A B [--format text|json]`: what changed from
// profile A to profile B. A and B are short names, ids, or profile JSON files
// (an extracted profile not yet in the registry). An unknown profile is a
// usage error (exit 2) naming it; an unreadable file an input error (exit 3).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "ljcheck/profile_diff.h"
#include "registry_subcommands.h"

namespace ljcheck::cli {
namespace {

struct DiffOptions {
  std::string from, to;
  std::string format = "text";
};

// A profile named on the command line; `exit` is set when it cannot be had.
struct ResolvedProfile {
  std::optional<RecorderProfile> profile;
  int exit = kClean;
};

ResolvedProfile resolveProfile(const std::string& nameIdOrPath) {
  if (const RecorderProfile* p = findProfile(nameIdOrPath)) return {*p};
  std::error_code ec;
  if (!std::filesystem::is_regular_file(nameIdOrPath, ec)) {
    std::string known;
    for (const auto& p : builtinProfiles()) known += (known.empty() ? "" : ", ") + p.name;
    std::cerr << "ljcheck registry diff: unknown recorder profile '" << nameIdOrPath
              << "': not a profile name, id or file (the registry holds " << known << ")\n";
    return {std::nullopt, kUsage};
  }
  std::ifstream in(nameIdOrPath, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  try {
    RecorderProfile p = RecorderProfile::fromJson(text.str());
    p.supported = findProfile(p.id) != nullptr;
    return {std::move(p)};
  } catch (const std::runtime_error& e) {
    std::cerr << "ljcheck registry diff: " << nameIdOrPath << ": " << e.what() << "\n";
    return {std::nullopt, kInputError};
  }
}

// --- text: one heading per changed fact, then the facts that did not change ---

class TextDiff {
 public:
  void names(const char* label, const std::vector<std::string>& names) {
    if (!names.empty()) std::cout << fmt::format("  {:<18} {}\n", label, fmt::join(names, " "));
  }
  // `renumbered`: the names in both lists that have another number.
  void changes(const char* heading, const NameChanges& c, const std::string& renumbered = "") {
    if (c.empty() && renumbered.empty()) return unchanged(heading);
    std::cout << heading << "\n";
    names("added", c.added);
    names("removed", c.removed);
    if (!renumbered.empty()) std::cout << fmt::format("  {:<18} {}\n", "renumbered", renumbered);
  }
  void values(const char* heading, const std::vector<ValueChange>& changes) {
    if (changes.empty()) return unchanged(heading);
    std::cout << heading << "\n";
    for (const auto& c : changes)
      std::cout << fmt::format("  {:<18} {} -> {}\n", c.name, c.from.empty() ? "(none)" : c.from,
                               c.to.empty() ? "(none)" : c.to);
  }
  void unchanged(const char* heading) { unchanged_.push_back(heading); }
  void finish() const {
    if (!unchanged_.empty()) std::cout << fmt::format("unchanged: {}\n", fmt::join(unchanged_, "; "));
  }

 private:
  std::vector<std::string> unchanged_;
};

void printText(const ProfileDiff& d) {
  std::cout << fmt::format("recorder profile {} -> {}\n  from {}\n  to   {}\n", d.fromName, d.toName, d.fromId,
                           d.toId);
  if (d.identical()) {
    std::cout << "no differences\n";
    return;
  }
  TextDiff t;
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
  else std::cout << "trace errors per recorder\n";
  for (const auto& [recorder, c] : d.recorderErrors)
    std::cout << fmt::format("  {:<18} added [{}] removed [{}]\n", recorder, fmt::join(c.added, " "),
                             fmt::join(c.removed, " "));
  t.finish();
}

// --- json ---

nlohmann::ordered_json toJson(const NameChanges& c) { return {{"added", c.added}, {"removed", c.removed}}; }

nlohmann::ordered_json toJson(const std::vector<ValueChange>& changes) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& c : changes) out[c.name] = {{"from", c.from}, {"to", c.to}};
  return out;
}

void printJson(const ProfileDiff& d) {
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
  std::cout << j.dump(2) << "\n";
}

int runDiff(const DiffOptions& o) {
  ResolvedProfile from = resolveProfile(o.from);
  if (!from.profile) return from.exit;
  ResolvedProfile to = resolveProfile(o.to);
  if (!to.profile) return to.exit;
  ProfileDiff d = diffProfiles(*from.profile, *to.profile);
  if (o.format == "json") printJson(d);
  else printText(d);
  return kClean;
}

}  // namespace

RegistrySubcommand addRegistryDiff(CLI::App& registryCmd) {
  auto o = std::make_shared<DiffOptions>();
  auto* cmd = registryCmd.add_subcommand("diff", "Show what changed between two recorder profiles");
  cmd->add_option("from", o->from, "Profile short name, id or JSON file")->required();
  cmd->add_option("to", o->to, "Profile short name, id or JSON file")->required();
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  return {cmd, [o]() { return runDiff(*o); }};
}

}  // namespace ljcheck::cli
