// The subcommands of `ljcheck registry`, one file each: profile (the
// embedded VM's, read live), diff (two profiles), docs (docs/reasons/) and
// extract (a profile from a LuaJIT source tree). `show` lives with the
// command itself in registry_command.cpp.
#pragma once

#include <CLI/CLI.hpp>

#include "commands.h"

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

}  // namespace ljcheck::cli
