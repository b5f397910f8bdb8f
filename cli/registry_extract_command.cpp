// `ljcheck registry extract --luajit-src DIR [--name NAME] [--overlay FILE]
// [--out FILE]`: reads a LuaJIT source tree with libclang and writes its
// recorder profile as deterministic JSON, to standard output or atomically
// to --out. A tree that lacks a fact is an I/O error (exit 3) naming the file.
#include "registry_subcommands.h"

#include <iostream>
#include <memory>

#include "ljcheck/extractor.h"

namespace ljcheck::cli {
namespace {

struct ExtractCommandOptions {
  extractor::ExtractOptions extract;
  std::string out;
};

int runExtract(const ExtractCommandOptions& o) {
  try {
    const std::string json = extractor::toJson(extractor::extractProfile(o.extract));
    if (o.out.empty())
      std::cout << json;
    else
      extractor::writeFileAtomically(o.out, json);
    return kClean;
  } catch (const extractor::ExtractError& e) {
    std::cerr << "ljcheck registry extract: " << e.what() << "\n";
    return kInputError;
  }
}

}  // namespace

RegistrySubcommand addRegistryExtract(CLI::App& registryCmd) {
  auto o = std::make_shared<ExtractCommandOptions>();
  auto* cmd = registryCmd.add_subcommand("extract", "Write the recorder profile of a LuaJIT source tree");
  cmd->add_option("--luajit-src", o->extract.luajitSrc, "LuaJIT source tree (or its src/ folder)")->required();
  cmd->add_option("--name", o->extract.name, "Short profile name (default: the overlay's, else from the version)");
  cmd->add_option("--overlay", o->extract.overlayPath, "Hand-written facts, each with its reason (JSON)");
  cmd->add_option("--out", o->out, "Write here instead of standard output");
  return {cmd, [o]() { return runExtract(*o); }};
}

}  // namespace ljcheck::cli
