#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, clang-14 with ASan + UBSan) into
# build-fuzz/ (or $LJCHECK_FUZZ_BUILD_DIR), generates fresh seed corpora from
# the fixtures and the benchmark corpus (fuzz/make_seeds.sh, with the ljcheck
# of the normal build in build/ or $LJCHECK_BUILD_DIR), and runs each harness
# for a bounded time. A crash, leak, timeout or out-of-memory fails the run;
# the reproducer is printed and kept under <build>/fuzz-artifacts/.
# Usage: scripts/fuzz.sh [--seconds N] [HARNESS...]   (default: 30 s each, all six)
# Reproduce one finding: <build>/fuzz/<harness> <artifact>
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${LJCHECK_FUZZ_BUILD_DIR:-$root/build-fuzz}
normal=${LJCHECK_BUILD_DIR:-$root/build}
say() { printf 'fuzz: %s\n' "$*"; }
die() { printf 'fuzz: error: %s\n' "$*" >&2; exit 2; }

seconds=30
harnesses=()
while (($#)); do
  case $1 in
    --seconds) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--seconds needs a whole number, not '${2:-}'"; seconds=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1'" ;;
    *) [[ -f $root/fuzz/fuzz_$1.cpp ]] || die "no harness '$1' (fuzz/fuzz_$1.cpp)"; harnesses+=("$1"); shift ;;
  esac
done
((${#harnesses[@]})) || harnesses=(bytecode_reader lua_source reports registry_data config lsp)

# The dictionary each harness mutates with.
declare -A dictionary=(
  [bytecode_reader]=bytecode.dict [lua_source]=lua.dict
  [reports]=json.dict [registry_data]=json.dict
  [config]=toml.dict [lsp]=lsp.dict)

bash "$root/scripts/setup.sh"
command -v clang++-14 >/dev/null || die "clang++-14 not found (scripts/setup.sh installs clang-14)"
# -O1 with line tables only, as the sanitizer trees of scripts/test.sh.
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DLJCHECK_FUZZ=ON -DLJCHECK_TESTS=OFF >/dev/null
cmake --build "$build" --target "${harnesses[@]/#/fuzz_}" -j "$(nproc)"

# Seeds come from what ljcheck itself writes for the fixtures.
[[ -x $normal/bin/ljcheck ]] || LJCHECK_BUILD_DIR="$normal" bash "$root/scripts/build.sh"
seeds=$build/fuzz-seeds corpus=$build/fuzz-corpus artifacts=$build/fuzz-artifacts
bash "$root/fuzz/make_seeds.sh" "$seeds" "$normal/bin/ljcheck"
rm -rf "$corpus" "$artifacts"
mkdir -p "$artifacts"

# Sanitizer reports end the run with libFuzzer's crash handling; leaks are checked.
export ASAN_OPTIONS=detect_leaks=1:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86

# -entropic=0: libFuzzer 14's entropic schedule spent over half of each run in
# InputCorpus::UpdateFeatureFrequency here (perf); plain scheduling ran 8x the
# inputs per second and reached more coverage in the same time (docs/fuzzing.md).
failed=()
for h in "${harnesses[@]}"; do
  mkdir -p "$corpus/$h"
  say "$h: ${seconds}s on a fresh corpus ($(find "$seeds/$h" -type f | wc -l) seeds)"
  log=$build/fuzz-$h.log
  status=0
  "$build/fuzz/fuzz_$h" "$corpus/$h" "$seeds/$h" -dict="$root/fuzz/dict/${dictionary[$h]}" \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=65536 -entropic=0 \
    -error_exitcode=86 -timeout_exitcode=86 -artifact_prefix="$artifacts/$h-" \
    -print_final_stats=1 >"$log" 2>&1 || status=$?
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | sed "s/^/fuzz: $h: /" || true
  if ((status != 0)); then
    failed+=("$h")
    say "$h FAILED (exit $status); the end of its log ($log):"
    grep -v '^#[0-9]' "$log" | tail -n 60
    for artifact in "$artifacts/$h"-*; do
      [[ -f $artifact ]] || continue
      say "reproducer: $artifact ($(stat -c %s "$artifact") bytes); run: $build/fuzz/fuzz_$h $artifact"
      head -c 320 "$artifact" | od -A d -c
    done
  fi
done

if ((${#failed[@]})); then
  say "findings in: ${failed[*]}"
  exit 1
fi
say "all harnesses clean"
