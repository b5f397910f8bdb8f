// `ljcheck run`: runs a script in the embedded LuaJIT with a trace session
// around it and writes the TraceReport CSV and the runtime JSON.
#include "commands.h"
#include "ljcheck/script_host.h"

namespace ljcheck::cli {

using ljcheck::RunOptions;
using ljcheck::runScript;

Runner addRunCommand(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Run a Lua script under the runtime collector");
  cmd->add_option("--trace", o->traceCsv, "Write the TraceReport CSV to this file");
  cmd->add_option("--json", o->jsonOut, "Write the runtime JSON to this file");
  cmd->add_option("--root", o->root, "Project root; locations are reported relative to it (default: .)");
  cmd->add_flag("--include-benign", o->includeBenign, "Also report stop-class aborts (LLEAVE, LINNER, ...)");
  o->coverage = true;  // verify tells unexercised predictions from refuted ones by it
  cmd->add_flag("--coverage,!--no-coverage", o->coverage,
                "Record the lines the trace recorder visited (\"visited\" in the JSON; on by default)");
  cmd->add_option("script", o->script, "The Lua script to run")->required();
  cmd->add_option("args", o->args, "Arguments for the script (after --)");
  cmd->positionals_at_end(false);
  return [o] { return runScript(*o); };
}

}  // namespace ljcheck::cli
