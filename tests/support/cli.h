// The ljcheck binary under test, run the way a user runs it, for the
// integration tests. Header-only: it needs Catch and the LJCHECK_EXE,
// LJCHECK_SOURCE_DIR and LJCHECK_BINARY_DIR of the integration test target.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "process.h"

namespace ljcheck::testing {

// Runs `ljcheck args...` in `workingDir` (the repository root by default) and
// requires that it exited by itself: no crash, no signal, no time-out.
inline ProcessResult runLjcheck(std::vector<std::string> args, const std::string& workingDir = LJCHECK_SOURCE_DIR,
                                int timeoutSeconds = 120) {
  args.insert(args.begin(), LJCHECK_EXE);
  ProcessResult r = runProcess(args, workingDir, timeoutSeconds);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exitedNormally());
  return r;
}

// An empty directory of the build tree for one test's inputs and outputs.
inline std::string scratchDirectory(const std::string& name) {
  return freshDirectory(std::string(LJCHECK_BINARY_DIR) + "/cli-tests/" + name);
}

}  // namespace ljcheck::testing
