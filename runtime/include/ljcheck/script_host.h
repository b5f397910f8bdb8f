// The script host behind `ljcheck run`: runs a Lua script in the LuaJIT this
// library links, with a trace session and a sample session around it, then
// writes the TraceReport CSV, the runtime JSON, the collapsed stacks and the
// speedscope JSON, and prints a short summary on stderr. The one part of the
// runtime that links a VM.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ljcheck/sample_session.h"

namespace ljcheck {

struct RunOptions {
  std::string script;
  std::vector<std::string> args;
  std::string traceCsv;  // write the TraceReport CSV here ("" = no)
  std::string jsonOut;   // write the runtime JSON here ("" = no)
  std::string root;      // locations relative to it ("" = working directory)
  bool includeBenign = false;
  bool coverage = false;  // record the lines the trace recorder visited ("visited" in the JSON)
  std::size_t maxSites = 10000;  // distinct abort sites kept (TraceOptions::maxSites)
  bool sample = true;     // run a sample session beside the trace session
  std::string sampleOut;      // write collapsed stacks here ("" = no)
  std::string speedscopeOut;  // write speedscope JSON here ("" = no)
  std::string timelineOut;    // write the timeline, Chrome Trace Event JSON, here ("" = no)
  int intervalMs = 10;
  int stackDepth = 16;
  CompiledStacks compiledStacks = CompiledStacks::AtTraceExit;  // where compiled samples get their stack
  bool quiet = false;  // no summary on stderr
};

// The host's exit statuses. The script's own: it ran (0), raised an error or
// could not be compiled (1, as luajit), or the n of its os.exit(n). Then
// ljcheck run's, out of the way of the statuses scripts choose, as env(1)
// and timeout(1) keep theirs: run itself failed (125: a report file that
// cannot be written, a session that cannot start), or the script cannot be
// opened or read (127, as a shell says of a command it cannot find).
enum HostExit : int { kScriptRan = 0, kScriptFailed = 1, kRunFailed = 125, kScriptNotFound = 127 };

// Returns the script's exit status (HostExit); os.exit(n) in the script
// writes the reports and ends the process with n.
int runScript(const RunOptions& options);

}  // namespace ljcheck
