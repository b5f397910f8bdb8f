#!/usr/bin/env bash
# Sampler benchmark for ljcheck. See BENCHMARKS.md ("Sampler overhead").
#
# Measures, in one run, round-robin, medians of paired ratios:
#   (a) overhead of ljcheck.sample on three CPU-bound workloads
#       (bench/sampler/{nbody,strings,tables}.lua): each repetition's CPU
#       time over the unsampled CPU time of the same repetition, minus 1
#       (target at 10 ms: <= 2 %)
#   (b) the same with LuaJIT's own jit.p ("vfG": VM state and whole stack
#       per sample) at the same interval; ratio of the median overheads
#       (a)/(b) (target: <= 0.5)
#   (c) ns per ljcheck.zone push+pop pair inside a compiled loop, and the
#       aborts and sites a trace session saw meanwhile (target: <= 5 ns, 0)
# CPU time is getrusage user+sys of the luajit process, from before the
# profiler starts to after it stopped and wrote its report. Each overhead
# line gives the median and the 25th and 75th percentiles of the pairs.
# Workloads run --scale times their base length (about 0.45 s each), so the
# default 5 gives 2-3 s runs: a pair's noise shrinks with the run's length.
# bench/sampler_cost.sh gives the load-independent figure (instructions per
# sample).
#
# usage: bench/sampler.sh [options]
#   --reps N        repetitions (default 31)
#   --luajit PATH   the LuaJIT host (default /usr/bin/luajit)
#   --module DIR    the directory of ljcheck.so (default build/lib)
#   --interval MS   sampling interval (default 10)
#   --scale N       workload length in base runs of about 0.45 s (default 5)
#   --no-zones      skip (c)
#   -h, --help      this text
# Exit status: 0 when every measurement ran (targets missed do not fail the
# run), 1 when one failed, 2 on usage errors.
set -euo pipefail
export LC_ALL=C

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$bench/.." && pwd)
bench_name=sampler
# shellcheck source=bench/lib.sh
. "$bench/lib.sh"

reps=31 luajit=/usr/bin/luajit module=$root/build/lib interval=10 zones=1 scale=5
while [[ $# -gt 0 ]]; do
  case $1 in
    --reps) reps=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --luajit) luajit=$(path_arg "$1" "${2:-}"); shift 2 ;;
    --module) module=$(path_arg "$1" "${2:-}"); shift 2 ;;
    --interval) interval=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --scale) scale=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --no-zones) zones=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1" 2 ;;
  esac
done
use_module "$luajit" "$module"

run_mode() {  # MODE WORKLOAD -> CPU seconds
  local out
  out=$(cd "$bench/sampler" && "$luajit" driver.lua "$1" "$2.lua" "$interval" "$scale") || die "$1 $2 failed" 1
  printf '%s' "${out%% *}"
}

workloads=(nbody strings tables)
modes=(none ljcheck jitp)
declare -A lj jp
for w in "${workloads[@]}"; do run_mode none "$w" >/dev/null; done  # warm-up
for ((r = 0; r < reps; r++)); do
  for w in "${workloads[@]}"; do
    declare -A t=()
    for ((k = 0; k < 3; k++)); do  # rotate the order each repetition
      m=${modes[$(((k + r) % 3))]}
      t[$m]=$(run_mode "$m" "$w")
    done
    lj[$w]+=" $(calc %.6f "${t[ljcheck]} / ${t[none]} - 1")"
    jp[$w]+=" $(calc %.6f "${t[jitp]} / ${t[none]} - 1")"
  done
  say "repetition $((r + 1))/$reps done"
done

spread() {  # VALUES... -> "median % (p25 .. p75)"
  printf '%s %% (%s .. %s)' "$(calc %.2f "$(median "$@") * 100")" "$(calc %.2f "$(percentile 25 "$@") * 100")" \
    "$(calc %.2f "$(percentile 75 "$@") * 100")"
}
printf '| workload | ljcheck.sample overhead, median (p25 .. p75) | jit.p overhead, median (p25 .. p75) | ratio of medians |\n|---|---:|---:|---:|\n'
for w in "${workloads[@]}"; do
  # shellcheck disable=SC2086
  a=$(median ${lj[$w]}) b=$(median ${jp[$w]})
  ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
  # shellcheck disable=SC2086
  printf '| %s | %s | %s | %s |\n' "$w" "$(spread ${lj[$w]})" "$(spread ${jp[$w]})" "$ratio"
done
((zones)) || exit 0

ns=() aborts=0 sites=0
for ((r = 0; r < reps; r++)); do
  read -r n a s < <(cd "$bench/sampler" && "$luajit" zones.lua 20000000) || die "zones.lua failed" 1
  ns+=("$n"); aborts=$((aborts + a)); sites=$((sites + s))
done
printf '\nzone push+pop in a compiled loop: %s ns per pair (median of %d), %d aborts, %d sites\n' \
  "$(median "${ns[@]}")" "$reps" "$aborts" "$sites"
