#!/usr/bin/env bash
# The event recorder's cost (BENCHMARKS.md, "Event recorder"): emit with one
# and two producers (and with the handshake's seq_cst fallback forced), a
# mutex-per-event baseline recorder in the same run, begin+end of a capture,
# and what recording trace exits costs a LuaJIT loop that leaves its trace
# every other round (bench/recorder/exits.lua: no timeline, a timeline
# without exits, a timeline with exits; CPU ns per round of the whole process). Every configuration runs in fresh processes, in a
# seeded random order, one warm-up and then --samples samples each; prints
# the median and interquartile range of each figure (CPU ns per event of a
# producer thread; microseconds per begin+end) and the peak RSS.
# usage: bench/recorder.sh [--build DIR] [--samples N] [--events N] [--rounds N] [--seed N] [--luajit PATH]
set -euo pipefail
bench_name=recorder
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"
build="$here/../build" samples=7 events=2000000 seed=12 rounds=200000 luajit=/usr/bin/luajit
while (( $# )); do
  case $1 in
    --build) build=$(path_arg "$1" "${2:-}"); shift 2 ;;
    --samples) samples=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --events) events=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --seed) seed=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --rounds) rounds=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --luajit) luajit=$(path_arg "$1" "${2:-}"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1'" 2 ;;
  esac
done
exe="$build/bin/emit_bench"
[[ -x $exe ]] || die "$exe is missing: cmake --build $build --target emit_bench"
use_module "$luajit" "$build/lib"
configs=("emit $events 1" "emit $events 2" "seq_cst emit $events 1" "seq_cst emit $events 2"
         "mutex $events 1" "mutex $events 2" "capture" "seq_cst capture"
         "exits none $rounds" "exits timeline $rounds" "exits exits $rounds")
# One configuration's command: emit_bench, with the fallback forced for
# "seq_cst ...", or the LuaJIT exits loop for "exits ...".
command_of() {
  case $1 in
    "seq_cst "*) echo "env LJCHECK_RECORDER_FENCE=seq_cst $exe ${1#seq_cst }" ;;
    "exits "*) echo "$luajit $here/recorder/exits.lua ${1#exits }" ;;
    *) echo "$exe $1" ;;
  esac
}
declare -A values rss exits
# One warm-up of each, then the samples, all in one seeded shuffle.
runs=()
for c in "${!configs[@]}"; do
  for (( s = 0; s <= samples; s++ )); do runs+=("$c $s"); done
done
mapfile -t order < <(printf '%s\n' "${runs[@]}" | shuf --random-source=<(yes "$seed"))
for run in "${order[@]}"; do
  read -r c s <<<"$run"
  # shellcheck disable=SC2046  # the command is split into words on purpose
  out=$( { /usr/bin/time -f 'rss %M' $(command_of "${configs[$c]}"); } 2>&1 )
  (( s == 0 )) && continue  # the warm-up
  values[$c]+="$(awk '/_per_/ { print $2 }' <<<"$out") "
  [[ $out =~ exits\ ([0-9]+) ]] && exits[$c]=${BASH_REMATCH[1]}
  rss[$c]+="$(awk '/^rss/ { print $2 }' <<<"$out") "
done
quartile() {  # quartile Q values...: the Q-th quartile (nearest rank)
  local q=$1; shift
  printf '%s\n' "$@" | sort -g | awk -v q="$q" '{ a[NR] = $1 } END { i = int((NR - 1) * q / 4 + 0.5) + 1; print a[i] }'
}
printf '%-26s %10s %10s %10s %12s %8s\n' figure median q1 q3 "peak RSS KB" exits
for c in "${!configs[@]}"; do
  read -ra v <<<"${values[$c]}"
  read -ra r <<<"${rss[$c]}"
  printf '%-26s %10s %10s %10s %12s %8s\n' "${configs[$c]/$events/N}" "$(median "${v[@]}")" \
    "$(quartile 1 "${v[@]}")" "$(quartile 3 "${v[@]}")" "$(maxof "${r[@]}")" "${exits[$c]:--}"
done
