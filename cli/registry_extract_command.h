// `ljcheck registry extract`: a recorder profile from a LuaJIT source tree.
#pragma once

#include <CLI/CLI.hpp>

#include "commands.h"

namespace ljcheck::cli {

struct RegistrySubcommand {
  CLI::App* app;  // parsed() tells whether it was given
  Runner run;
};

// Adds `extract` under the `registry` command.
RegistrySubcommand addRegistryExtract(CLI::App& registryCmd);

}  // namespace ljcheck::cli
