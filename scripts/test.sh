#!/usr/bin/env bash
# Sets up, builds and runs every test: the unit and integration tests on the
# normal build, then again under AddressSanitizer + UndefinedBehaviorSanitizer
# with leak checking, the lint workers under ThreadSanitizer, and each fuzz
# harness for a bounded time (scripts/fuzz.sh). `--quick` skips all three.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

bash scripts/build.sh
ctest --test-dir build --output-on-failure -j 2

if [[ ${1:-} != --quick ]]; then
  # A sanitizer report exits with 86, a code no ljcheck command uses (0-3, see
  # README), so a test that expects exit 1 ("findings") cannot pass over one.
  # The tests' child processes (ljcheck, LuaJIT hosts) inherit these options.
  sanitizer_exit=86
  echo "== sanitizers: address + undefined + leaks =="
  LJCHECK_BUILD_DIR="$root/build-asan" bash scripts/build.sh -DLJCHECK_SANITIZE=address
  # Suppressions name third-party leaks only, each with its reason.
  ASAN_OPTIONS=detect_leaks=1:exitcode=$sanitizer_exit \
  LSAN_OPTIONS=suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=$sanitizer_exit \
    ctest --test-dir build-asan --output-on-failure -j 2

  echo "== sanitizers: thread (lint -j workers) =="
  # Only what the threaded tests need: the CLI, the module and the integration tests.
  cmake -S "$root" -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLJCHECK_SANITIZE=thread >/dev/null
  cmake --build build-tsan --target integration_tests -j "$(nproc)"
  # The tests that run analysis on several threads: lint -j N over every fixture.
  tsan_tests='lint -j'
  TSAN_OPTIONS=halt_on_error=1:exitcode=$sanitizer_exit:second_deadlock_stack=1 \
    ctest --test-dir build-tsan --output-on-failure -j 2 --no-tests=error -R "$tsan_tests"

  echo "== fuzzing: each harness for a bounded time =="
  bash scripts/fuzz.sh --seconds 45
fi
