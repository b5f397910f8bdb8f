#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, clang-14 with ASan + UBSan) into
# build-fuzz/ (or $LJCHECK_FUZZ_BUILD_DIR), generates fresh seed corpora from
# the fixtures and the benchmark corpus (fuzz/make_seeds.sh, with the ljcheck
# of the normal build in build/ or $LJCHECK_BUILD_DIR), and runs each harness
# for a bounded time. A crash, leak, timeout or out-of-memory fails the run;
# the reproducer is printed and kept under <build>/fuzz-artifacts/.
# Usage: scripts/fuzz.sh [--seconds N] [HARNESS...]   (default: 30 s each, all seven)
# Reproduce one finding: <build>/fuzz/<harness> <artifact>
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${LJCHECK_FUZZ_BUILD_DIR:-$root/build-fuzz}
normal=${LJCHECK_BUILD_DIR:-$root/build}
say() { printf 'fuzz: %s\n' "$*"; }
die() { printf 'fuzz: error: %s\n' "$*" >&2; exit 2; }

# shellcheck source=scripts/fuzz_lib.sh
. "$root/scripts/fuzz_lib.sh"

seconds=30
harnesses=()
while (($#)); do
  case $1 in
    --seconds) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--seconds needs a whole number, not '${2:-}'"; seconds=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1'" ;;
    *) fuzz_known_harness "$1" || die "no harness '$1' (fuzz/fuzz_$1.cpp)"; harnesses+=("$1"); shift ;;
  esac
done
((${#harnesses[@]})) || harnesses=("${fuzz_harnesses[@]}")

bash "$root/scripts/setup.sh"
configure_fuzz_tree "$build" ON -O1
cmake --build "$build" --target "${harnesses[@]/#/fuzz_}" -j "$(nproc)"

# Seeds come from what ljcheck itself writes for the fixtures.
[[ -x $normal/bin/ljcheck ]] || LJCHECK_BUILD_DIR="$normal" bash "$root/scripts/build.sh"
seeds=$build/fuzz-seeds corpus=$build/fuzz-corpus artifacts=$build/fuzz-artifacts
bash "$root/fuzz/make_seeds.sh" "$seeds" "$normal/bin/ljcheck"
rm -rf "$corpus" "$artifacts"
mkdir -p "$artifacts"

# The harnesses run side by side, one per core: each still gets its whole
# time on a core of its own, and the stage takes half as long on two cores.
# Each run's exit status goes to a file; the reports follow in harness order.
run_harness() {  # NAME: one bounded run, its exit status in <build>/fuzz-NAME.status
  local h=$1 status=0
  "$build/fuzz/fuzz_$h" "$corpus/$h" "$seeds/$h" -dict="$(fuzz_dictionary_file "$h" "$build/fuzz-dict")" \
    "${fuzz_options[@]}" -max_total_time="$seconds" -artifact_prefix="$artifacts/$h-" \
    >"$build/fuzz-$h.log" 2>&1 || status=$?
  echo "$status" >"$build/fuzz-$h.status"
}
cores=$(nproc)
for h in "${harnesses[@]}"; do
  while (($(jobs -rp | wc -l) >= cores)); do wait -n || true; done
  mkdir -p "$corpus/$h"
  rm -f "$build/fuzz-$h.status"
  say "$h: ${seconds}s on a fresh corpus ($(find "$seeds/$h" -type f | wc -l) seeds)"
  run_harness "$h" &
done
wait

failed=()
for h in "${harnesses[@]}"; do
  log=$build/fuzz-$h.log
  status=$(cat "$build/fuzz-$h.status" 2>/dev/null || echo "none (the run did not finish)")
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | sed "s/^/fuzz: $h: /" || true
  if [[ $status != 0 ]]; then
    failed+=("$h")
    say "$h FAILED (exit $status); the end of its log ($log):"
    grep -v '^#[0-9]' "$log" | tail -n 60
    fuzz_print_reproducers "$h" "$artifacts/$h-"
  fi
done

if ((${#failed[@]})); then
  say "findings in: ${failed[*]}"
  exit 1
fi
say "all harnesses clean"
