#!/usr/bin/env bash
# Recorder emit, before against after (BENCHMARKS.md, "Event recorder: inline
# emit"): two emit_bench executables built from different commits, run in
# paired, interleaved rounds. Each round runs, in a seeded random order and
# each in a fresh process: both executables' `emit N 1` and `emit N 2`, and the
# after executable's mutex-per-event baseline (`mutex N 1`, `mutex N 2`). One
# warm-up round, then --pairs rounds. Prints per configuration the median and
# interquartile range of CPU ns per event of a producer thread, then the
# per-round ratios (after / before, after / mutex, two producers / one) with
# their medians and interquartile ranges: the machine is shared, and a ratio
# taken within one round cancels most of the load that both runs saw.
# usage: bench/recorder_pair.sh --before EXE [--after EXE] [--pairs N] [--events N] [--seed N]
set -euo pipefail
# shellcheck disable=SC2034  # used by lib.sh
bench_name=recorder_pair
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"
before="" after="$here/../build/bin/emit_bench" pairs=21 events=2000000 seed=12
while (( $# )); do
  case $1 in
    --before) before=$(path_arg "$1" "${2:-}"); shift 2 ;;
    --after) after=$(path_arg "$1" "${2:-}"); shift 2 ;;
    --pairs) pairs=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --events) events=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --seed) seed=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1'" 2 ;;
  esac
done
[[ -n $before ]] || die "--before EXE is required (an emit_bench built from the base commit)" 2
for exe in "$before" "$after"; do [[ -x $exe ]] || die "$exe is not an executable" 2; done
names=(before_1 after_1 before_2 after_2 mutex_1 mutex_2)
command_of() {  # the command line of one configuration
  case $1 in
    before_*) echo "$before emit $events ${1#before_}" ;;
    after_*) echo "$after emit $events ${1#after_}" ;;
    mutex_*) echo "$after mutex $events ${1#mutex_}" ;;
  esac
}
declare -A values
ratios_1=() ratios_2=() vs_mutex_1=() vs_mutex_2=() two_over_one=()
for (( round = 0; round <= pairs; round++ )); do
  declare -A now=()
  mapfile -t order < <(printf '%s\n' "${names[@]}" | shuf --random-source=<(yes "$seed.$round"))
  for name in "${order[@]}"; do
    read -ra cmd <<<"$(command_of "$name")"
    out=$("${cmd[@]}") || die "${cmd[*]} failed" 1
    now[$name]=$(awk '/_per_/ { print $2 }' <<<"$out")
  done
  (( round == 0 )) && continue  # the warm-up
  for name in "${names[@]}"; do values[$name]+="${now[$name]} "; done
  ratios_1+=("$(calc %.4f "${now[after_1]} / ${now[before_1]}")")
  ratios_2+=("$(calc %.4f "${now[after_2]} / ${now[before_2]}")")
  vs_mutex_1+=("$(calc %.4f "${now[after_1]} / ${now[mutex_1]}")")
  vs_mutex_2+=("$(calc %.4f "${now[after_2]} / ${now[mutex_2]}")")
  two_over_one+=("$(calc %.4f "${now[after_2]} / ${now[after_1]}")")
done
row() { printf '%-34s %9s %9s %9s\n' "$1" "$(median "${@:2}")" "$(percentile 25 "${@:2}")" "$(percentile 75 "${@:2}")"; }
printf '%-34s %9s %9s %9s\n' "ns per event ($pairs rounds)" median q1 q3
for name in "${names[@]}"; do
  read -ra v <<<"${values[$name]}"
  row "$name" "${v[@]}"
done
row "after / before, 1 producer" "${ratios_1[@]}"
row "after / before, 2 producers" "${ratios_2[@]}"
row "after / mutex, 1 producer" "${vs_mutex_1[@]}"
row "after / mutex, 2 producers" "${vs_mutex_2[@]}"
row "after, 2 producers / 1" "${two_over_one[@]}"
