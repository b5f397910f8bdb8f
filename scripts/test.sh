#!/usr/bin/env bash
# Sets up, builds and runs every test: the unit and integration tests on the
# normal build, then again under AddressSanitizer + UndefinedBehaviorSanitizer.
# `--quick` skips the sanitizer pass.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

bash scripts/build.sh
ctest --test-dir build --output-on-failure -j 2

if [[ ${1:-} != --quick ]]; then
  echo "== sanitizers: address + undefined =="
  LJCHECK_BUILD_DIR="$root/build-asan" bash scripts/build.sh -DLJCHECK_SANITIZE=address
  # Leak checking stays off until libclang's and tree-sitter's own allocations have
  # suppressions; memory errors and undefined behaviour fail the run.
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j 2
fi
