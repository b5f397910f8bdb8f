#!/usr/bin/env bash
# Sets up, builds and runs every test: the unit and integration tests on the
# normal build, then again under AddressSanitizer + UndefinedBehaviorSanitizer
# with leak checking, the lint workers under ThreadSanitizer, and each fuzz
# harness for a bounded time (scripts/fuzz.sh). `--quick` skips all three.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# Each stage prints its wall time, so a CI log shows where the minutes go
# (CI must finish within 45 minutes).
stage_start=$SECONDS
stage_done() {
  printf '== %s: %d s (total %d s) ==\n' "$1" $((SECONDS - stage_start)) "$SECONDS"
  stage_start=$SECONDS
}

# Every tree is a unity build: each target's sources compiled in batches of
# eight, which takes the ASan tree's compile time from about 25 to about 13
# minutes of CPU (BENCHMARKS.md, "CI time"). Sources share a batch, so two helpers of one name in
# anonymous namespaces of two files collide; the normal build below is a unity
# build too, so such a collision fails the first stage, not the last.
unity=(-DCMAKE_UNITY_BUILD=ON)
bash scripts/build.sh "${unity[@]}"
stage_done "setup and build"
ctest --test-dir build --output-on-failure -j 2
stage_done "tests"

if [[ ${1:-} != --quick ]]; then
  # A sanitizer report exits with 86, a code no ljcheck command uses (0-3, see
  # README), so a test that expects exit 1 ("findings") cannot pass over one.
  # The tests' child processes (ljcheck, LuaJIT hosts) inherit these options.
  sanitizer_exit=86
  echo "== sanitizers: address + undefined + leaks =="
  # Sanitizer trees build at -O1 with line tables only (-g1): enough for
  # symbolized reports with file:line, and far quicker to compile than -O2 -g.
  sanitizer_flags=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG")
  LJCHECK_BUILD_DIR="$root/build-asan" bash scripts/build.sh -DLJCHECK_SANITIZE=address "${sanitizer_flags[@]}" "${unity[@]}"
  # Suppressions name third-party leaks only, each with its reason.
  ASAN_OPTIONS=detect_leaks=1:exitcode=$sanitizer_exit \
  LSAN_OPTIONS=suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=$sanitizer_exit \
    ctest --test-dir build-asan --output-on-failure -j 2
  stage_done "sanitizers: address + undefined + leaks"

  echo "== sanitizers: thread (lint -j workers, language server) =="
  # The multi-threaded part is the lint workers: build the CLI alone under
  # TSan and lint every fixture, example and workload on 1, 2 and 4 workers
  # (the project-wide call graph's re-analysis rounds included). LuaJIT's
  # own Lua sources take the input over 256 KiB, so the workers' heaps go on
  # huge pages and -j 1 runs on a worker thread (huge_page_heaps.h). A race
  # report exits with the sanitizer code and fails the stage.
  # One TSan tree serves this step and the recorder step below: only the two
  # targets they run are built.
  cmake -S "$root" -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLJCHECK_SANITIZE=thread \
    "${sanitizer_flags[@]}" "${unity[@]}" >/dev/null
  cmake --build build-tsan --target ljcheck recorder_tests -j "$(nproc)"
  for jobs in 1 2 4; do
    status=0
    TSAN_OPTIONS=halt_on_error=1:exitcode=$sanitizer_exit:second_deadlock_stack=1 \
      build-tsan/bin/ljcheck lint -j "$jobs" --fail-on none --format json \
        fixtures examples bench/accuracy/workloads third_party/luajit-src >/dev/null || status=$?
    # 0, or 3 for the fixtures that are bad input on purpose; never the sanitizer's code.
    if (( status != 0 && status != 3 )); then
      echo "TSan: lint -j $jobs exited $status" >&2
      exit 1
    fi
    echo "TSan: lint -j $jobs clean"
  done

  # The language server's threads are the same project pass (the lint
  # workers, hardware_concurrency of them) when a workspace root is named:
  # every fixture analyzed at the first open, then each project fixture
  # opened, changed, changed back and closed, re-analyzing the files it makes hot.
  node tests/sanitizers/lsp_session.mjs fixtures projects >build-tsan/lsp-session.txt
  status=0
  TSAN_OPTIONS=halt_on_error=1:exitcode=$sanitizer_exit:second_deadlock_stack=1 \
    build-tsan/bin/ljcheck lsp --no-config <build-tsan/lsp-session.txt >/dev/null || status=$?
  if ((status != 0)); then
    echo "TSan: the language server over fixtures/ exited $status" >&2
    exit 1
  fi
  echo "TSan: language server (project mode) clean"

  echo "== sanitizers: thread (event recorder and timeline) =="
  # The runtime's multi-threaded part: the recorder tests (producers sharing
  # chunks, restart cycles, exiting threads, names, VMs on std::threads) built
  # under TSan (built above, in build-tsan).
  TSAN_OPTIONS=halt_on_error=1:exitcode=$sanitizer_exit:second_deadlock_stack=1 \
    build-tsan/bin/recorder_tests
  echo "TSan: recorder tests clean"
  stage_done "sanitizers: thread"

  echo "== fuzzing: each harness for a bounded time =="
  # 30 s each: six harnesses, two at a time on two cores, about 1.5 minutes of
  # fuzzing in all (docs/fuzzing.md).
  bash scripts/fuzz.sh --seconds 30
  stage_done "fuzzing"
fi
