// `ljcheck registry`: the reason catalog and the recorder profiles. `show`
// is here; the other subcommands have a file each (registry_subcommands.h).
#include <fmt/format.h>

#include <iostream>

#include "commands.h"
#include "ljcheck/profile.h"
#include "ljcheck/reason.h"
#include "registry_subcommands.h"

namespace ljcheck::cli {
namespace {

int showCatalog(const std::string& profileName) {
  const RecorderProfile* p = profileName.empty() ? &defaultProfile() : findProfile(profileName);
  if (!p) {
    std::cerr << "ljcheck registry: unknown recorder profile '" << profileName << "'\n";
    return kUsage;
  }
  const auto& c = ReasonCatalog::builtin();
  std::cout << fmt::format("reason catalog {} version {}\n\n", c.id(), c.version());
  std::cout << fmt::format("{:<9} {:<8} {:<10} {}\n", "code", "class", "severity", "title");
  for (const auto& r : c.reasons())
    std::cout << fmt::format("{:<9} {:<8} {:<10} {}{}\n", r.code, toString(r.reasonClass), toString(r.severity),
                             r.title, r.benign ? " (benign)" : "");
  std::cout << '\n';
  printProfileText(p->name, p->id, p->supported, p->facts(), p);
  return kClean;
}

}  // namespace

Runner addRegistryCommand(CLI::App& app) {
  auto profileName = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("registry", "Show the reason catalog and recorder profiles");
  cmd->require_subcommand(1);
  auto* show = cmd->add_subcommand("show", "Print the catalog and a profile as tables");
  show->add_option("--profile", *profileName, "Profile id or short name");
  std::vector<RegistrySubcommand> subcommands = {addRegistryProfile(*cmd), addRegistryDiff(*cmd),
                                                 addRegistryDocs(*cmd), addRegistryExtract(*cmd)};
  return [profileName, show, subcommands]() -> int {
    if (show->parsed()) return showCatalog(*profileName);
    for (const auto& sub : subcommands)
      if (sub.app->parsed()) return sub.run();
    return kUsage;
  };
}

}  // namespace ljcheck::cli
