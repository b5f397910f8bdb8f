// `ljcheck registry diff A B [--format text|json]`: what changed from
// profile A to profile B. A and B are short names, ids, or profile JSON files
// (an extracted profile not yet in the registry). An unknown profile is a
// usage error (exit 2) naming it; an unreadable file an input error (exit 3).
#include <filesystem>
#include <fstream>
#include <iostream>
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

int runDiff(const DiffOptions& o) {
  ResolvedProfile from = resolveProfile(o.from);
  if (!from.profile) return from.exit;
  ResolvedProfile to = resolveProfile(o.to);
  if (!to.profile) return to.exit;
  ProfileDiff d = diffProfiles(*from.profile, *to.profile);
  if (o.format == "json") writeDiffJson(std::cout, d);
  else writeDiffText(std::cout, d);
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
