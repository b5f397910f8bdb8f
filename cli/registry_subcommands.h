// The subcommands of `ljcheck registry`, one file each: profile (the
// embedded VM's, read live), diff (two profiles), docs (docs/reasons/) and
// extract (a profile from a LuaJIT source tree). `show` lives with the
// command itself in registry_command.cpp.
#pragma once

#include <CLI/CLI.hpp>

#include "commands.h"
#include "ljcheck/profile.h"

namespace ljcheck::cli {

struct RegistrySubcommand {
  CLI::App* app;  // parsed() tells whether it was given
  Runner run;
};

// Each adds itself under the `registry` command.
RegistrySubcommand addRegistryProfile(CLI::App& registryCmd);
RegistrySubcommand addRegistryDiff(CLI::App& registryCmd);
RegistrySubcommand addRegistryDocs(CLI::App& registryCmd);
RegistrySubcommand addRegistryExtract(CLI::App& registryCmd);

// A recorder profile as a short table: the facts its id joins, and what the
// registry knows of it when it holds it (`known`, else null). Used by
// `registry profile` (a live VM) and `registry show` (a registry entry).
void printProfileText(const std::string& name, const std::string& id, bool supported, const ProfileFacts& facts,
                      const RecorderProfile* known);

}  // namespace ljcheck::cli
