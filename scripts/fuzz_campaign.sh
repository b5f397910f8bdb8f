#!/usr/bin/env bash
# A long fuzzing campaign that accumulates toward docs/fuzzing.md's target of
# 10 million executions per parser. Each round, for each harness:
#   1. fuzz for --seconds with the fast build (libFuzzer coverage, -O2, no
#      sanitizers: build-fuzz-fast/) on a corpus kept across rounds and runs
#      under fuzz-campaign/<harness>/corpus/ (git-ignored), plus fresh seeds;
#   2. replay that whole corpus once under the sanitized build (ASan, UBSan,
#      LeakSanitizer: build-fuzz/), so every input the campaign kept has also
#      run sanitized;
#   3. append a line to fuzz-campaign/<harness>/ledger.tsv: UTC time, phase
#      (fuzz or replay), seconds, executions, executions/s, edges, corpus size,
#      result, and the commit the harnesses were built from.
# A finding (crash, timeout, out-of-memory, sanitizer report) stops the run
# with exit 1, prints the reproducer and keeps it in fuzz-campaign/<harness>/.
# Totals: scripts/fuzz_campaign.sh --totals
# Usage: scripts/fuzz_campaign.sh [--seconds N] [--rounds R] [--totals] [HARNESS...]
#        (default: 600 s, 1 round, all seven harnesses in turn)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fast=${LJCHECK_FUZZ_FAST_BUILD_DIR:-$root/build-fuzz-fast}
sanitized=${LJCHECK_FUZZ_BUILD_DIR:-$root/build-fuzz}
normal=${LJCHECK_BUILD_DIR:-$root/build}
campaign=${LJCHECK_FUZZ_CAMPAIGN_DIR:-$root/fuzz-campaign}
say() { printf 'fuzz-campaign: %s\n' "$*"; }
die() { printf 'fuzz-campaign: error: %s\n' "$*" >&2; exit 2; }
# shellcheck source=scripts/fuzz_lib.sh
. "$root/scripts/fuzz_lib.sh"

print_totals() {  # the executions each harness's ledger adds up to
  local h ledger
  printf '%-16s %14s %14s %8s %8s\n' harness fuzzed replayed edges corpus
  for h in "${fuzz_harnesses[@]}"; do
    ledger=$campaign/$h/ledger.tsv
    [[ -f $ledger ]] || { printf '%-16s %14s\n' "$h" "none yet"; continue; }
    awk -F'\t' -v h="$h" '
      $2 == "fuzz"   { fuzzed += $4; if ($6 > edges) edges = $6; corpus = $7 }
      $2 == "replay" { replayed += $4 }
      END { printf "%-16s %14d %14d %8d %8d\n", h, fuzzed, replayed, edges, corpus }' "$ledger"
  done
}

seconds=600 rounds=1
harnesses=()
while (($#)); do
  case $1 in
    --seconds) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--seconds needs a positive whole number, not '${2:-}'"; seconds=$2; shift 2 ;;
    --rounds) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--rounds needs a positive whole number, not '${2:-}'"; rounds=$2; shift 2 ;;
    --totals) print_totals; exit 0 ;;
    -h|--help) sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1'" ;;
    *) fuzz_known_harness "$1" || die "no harness '$1' (fuzz/fuzz_$1.cpp)"; harnesses+=("$1"); shift ;;
  esac
done
((${#harnesses[@]})) || harnesses=("${fuzz_harnesses[@]}")

bash "$root/scripts/setup.sh"
configure_fuzz_tree "$fast" OFF -O2
configure_fuzz_tree "$sanitized" ON -O1
cmake --build "$fast" --target "${harnesses[@]/#/fuzz_}" -j "$(nproc)"
cmake --build "$sanitized" --target "${harnesses[@]/#/fuzz_}" -j "$(nproc)"
[[ -x $normal/bin/ljcheck ]] || LJCHECK_BUILD_DIR="$normal" bash "$root/scripts/build.sh"
seeds=$campaign/seeds
bash "$root/fuzz/make_seeds.sh" "$seeds" "$normal/bin/ljcheck"
commit=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)

# record HARNESS PHASE SECONDS LOG CORPUS RESULT: one ledger line.
record() {
  local edges
  edges=$(grep -oE 'cov: [0-9]+' "$4" | tail -n 1 | cut -d' ' -f2)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$2" "$3" \
    "$(fuzz_stat "$4" number_of_executed_units)" "$(fuzz_stat "$4" average_exec_per_sec)" \
    "${edges:-0}" "$(find "$5" -type f | wc -l)" "$6" "$commit" >>"$campaign/$1/ledger.tsv"
}

# finding HARNESS STATUS LOG: report and stop.
finding() {
  say "$1: FINDING (exit $2); the end of its log ($3):"
  grep -v '^#[0-9]' "$3" | tail -n 60
  fuzz_print_reproducers "$1" "$campaign/$1/finding-"
  exit 1
}

for ((round = 1; round <= rounds; round++)); do
  for h in "${harnesses[@]}"; do
    dir=$campaign/$h corpus=$campaign/$h/corpus
    # Logs carry this campaign's process id: two campaigns on one harness
    # (one per core, sharing the corpus) must not write into one log, whose
    # last statistics the ledger reads.
    log=$dir/fuzz-$$.log replay=$dir/replay-$$.log
    mkdir -p "$corpus"
    dict=-dict=$(fuzz_dictionary_file "$h" "$dir")
    say "round $round/$rounds, $h: ${seconds}s fast on $(find "$corpus" -type f | wc -l) kept inputs"
    status=0
    "$fast/fuzz/fuzz_$h" "$corpus" "$seeds/$h" "$dict" "${fuzz_options[@]}" -max_total_time="$seconds" \
      -artifact_prefix="$dir/finding-" >"$log" 2>&1 || status=$?
    record "$h" fuzz "$seconds" "$log" "$corpus" "$( ((status)) && echo finding || echo clean)"
    ((status == 0)) || finding "$h" "$status" "$log"
    # -runs=0: execute the corpus once and stop; nothing is mutated.
    "$sanitized/fuzz/fuzz_$h" "$corpus" "$dict" "${fuzz_options[@]}" -runs=0 \
      -artifact_prefix="$dir/finding-" >"$replay" 2>&1 || status=$?
    record "$h" replay 0 "$replay" "$corpus" "$( ((status)) && echo finding || echo clean)"
    ((status == 0)) || finding "$h" "$status" "$replay"
    rm -f "$log" "$replay"  # recorded in the ledger
  done
done
print_totals
