// Runs a child process the way a shell user would and keeps what it printed,
// so that integration tests read like command lines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ljcheck::testing {

struct ProcessResult {
  int exitCode = -1;   // the exit status; -1 when the process did not exit normally
  int signal = 0;      // the signal that ended it, or 0
  bool timedOut = false;
  std::string out, err;  // standard output and standard error, apart
  long maxResidentKb = 0;  // the child's peak resident set size
  bool exitedNormally() const { return signal == 0 && !timedOut && exitCode >= 0; }
};

// Runs `argv` (argv[0] is looked up in PATH when it has no slash) with stdin
// from /dev/null and, when `workingDir` is not empty, in that directory.
// A process still running after `timeoutSeconds` is killed and reported so.
ProcessResult runProcess(const std::vector<std::string>& argv, const std::string& workingDir = "",
                         int timeoutSeconds = 120);

// Runs a command line through /bin/sh -c.
ProcessResult runShell(const std::string& commandLine, int timeoutSeconds = 120);

// 'text' quoted for /bin/sh.
std::string shellQuote(const std::string& text);

// Runs `script` in the LuaJIT executable `luajit` (Debian's or OpenResty's),
// the way a user's host loads our module: LUA_CPATH points at the build's
// module directory, and in a sanitizer build the sanitizer runtime is
// preloaded, because an uninstrumented host cannot load it later.
// `workingDir` as for runProcess; `hostOptions` go to the host before the
// script (luajit's own -jv, -jdump).
ProcessResult runInLuajitHost(const std::string& luajit, const std::string& script,
                              const std::string& workingDir = "", int timeoutSeconds = 120,
                              const std::vector<std::string>& hostOptions = {});

// Inputs and outputs of a child process, in a test's own scratch directory.
// freshDirectory removes `path` and creates it empty; writeFile creates the
// parent directories; readFile throws when the file cannot be read.
std::string freshDirectory(const std::string& path);
void writeFile(const std::string& path, std::string_view bytes);
std::string readFile(const std::string& path);

}  // namespace ljcheck::testing
