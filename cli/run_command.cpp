// `ljcheck run`: runs a script in the embedded LuaJIT with a trace session
// and a sample session around it, writes the TraceReport CSV, the runtime
// JSON, collapsed stacks and speedscope JSON, and prints a summary on stderr.
#include <cstdio>
#include <map>
#include <string>

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
  cmd->add_option("--root", o->root, "Project root; locations are reported relative to it (default: .)")
      ->check(CLI::ExistingDirectory);  // as lint's --root: a mistyped root is said, not run with
  cmd->add_flag("--include-benign", o->includeBenign, "Also report stop-class aborts (LLEAVE, LINNER, ...)");
  cmd->add_option("--max-sites", o->maxSites,
                  "Keep at most N distinct abort sites; past it aborts are only counted (default: 10000)")
      ->check(CLI::Range(1, 1000000000))
      ->option_text("N (1 to 1000000000)");
  o->coverage = true;  // verify tells unexercised predictions from refuted ones by it
  cmd->add_flag("--coverage,!--no-coverage", o->coverage,
                "Record the lines the trace recorder visited (\"visited\" in the JSON; on by default)");
  cmd->add_option("--sample", o->sampleOut, "Write the sampled stacks, collapsed (flamegraph.pl format), to this file");
  cmd->add_option("--speedscope", o->speedscopeOut,
                  "Write the samples as speedscope JSON, one profile per VM state, and the zones and scopes as "
                  "an evented profile per thread, to this file");
  cmd->add_option("--timeline", o->timelineOut,
                  "Write a timeline (zones, scopes, trace recordings, aborts, heap) as Chrome Trace Event JSON "
                  "to this file");
  cmd->add_option("--interval", o->intervalMs, "Sampling interval in milliseconds (default: 10)")
      ->check(CLI::Range(1, 1000000))
      ->option_text("MS (1 to 1000000)");
  cmd->add_option("--stack-depth", o->stackDepth, "Frames kept per sample (default: 16)")
      ->check(CLI::Range(1, 1000000))  // as the module's stackDepth
      ->option_text("N (1 to 1000000)");
  cmd->add_option_function<std::string>(
         "--compiled-stacks",
         [o](const std::string& where) {
           o->compiledStacks = where == "function" ? CompiledStacks::AtFunctionBoundary : CompiledStacks::AtTraceExit;
         },
         "Where a sample taken in compiled code gets its stack: exit (at the trace's next exit; "
         "traces are left as they are, the default) or function (at the next function boundary, "
         "as jit.p: flushes every trace at start and adds profiler checks to new ones)")
      ->check(CLI::IsMember({"exit", "function"}))
      ->option_text("exit|function");
  cmd->add_flag("--sampling,!--no-sampling", o->sample,
                "Sample the run with LuaJIT's profiler (on by default; costs per site need it)");
  cmd->add_flag("--quiet,-q", o->quiet, "Print no summary on stderr");
  cmd->add_option("script", o->script, "The Lua script to run")->required();
  cmd->add_option("args", o->args, "Arguments for the script (after --)");
  cmd->positionals_at_end(false);
  return [o] {
    // Files of samples from a run that takes none would be written empty.
    if (!o->sample && (!o->sampleOut.empty() || !o->speedscopeOut.empty())) {
      std::fprintf(stderr, "ljcheck run: %s writes samples, and --no-sampling takes none: drop one of them\n",
                   o->sampleOut.empty() ? "--speedscope" : "--sample");
      return 2;  // a usage error, as CLI11's
    }
    return runScript(*o);
  };
}

}  // namespace ljcheck::cli
