// The `ljcheck run` host: runs a Lua script in the embedded LuaJIT with a
// trace session around it, then writes the TraceReport CSV and runtime JSON.
#pragma once

#include <string>
#include <vector>

namespace ljcheck::cli {

struct RunOptions {
  std::string script;
  std::vector<std::string> args;
  std::string traceCsv;  // write the TraceReport CSV here ("" = no)
  std::string jsonOut;   // write the runtime JSON here ("" = no)
  std::string root;      // locations relative to it ("" = working directory)
  bool includeBenign = false;
  bool coverage = false;  // record the lines the trace recorder visited ("visited" in the JSON)
};

// Returns the script's exit status: 0 on success, 1 when it raised an error,
// 3 when it could not be read; os.exit(n) in the script writes the reports
// and ends the process with n.
int runScript(const RunOptions& options);

}  // namespace ljcheck::cli
