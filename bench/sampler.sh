#!/usr/bin/env bash
# Sampler benchmark for ljcheck. See BENCHMARKS.md ("Sampler overhead").
#
# Measures, in one run, round-robin, medians of paired ratios:
#   (a) overhead of ljcheck.sample at 10 ms on three CPU-bound workloads
#       (bench/sampler/{nbody,strings,tables}.lua), each repetition's time
#       over the unsampled time of the same repetition (target: <= 2 %)
#   (b) the same with LuaJIT's jit.profile at the same interval, dumping a
#       stack per sample as jit.p does; ratio of overheads (a)/(b)
#       (target: <= 0.5)
#   (c) ns per ljcheck.zone push+pop pair inside a compiled loop, and the
#       aborts and sites a trace session saw meanwhile (target: <= 5 ns, 0)
# Times are CPU seconds (os.clock) around the workload inside the process.
#
# usage: bench/sampler.sh [options]
#   --reps N        repetitions (default 11)
#   --luajit PATH   the LuaJIT host (default /usr/bin/luajit)
#   --module DIR    the directory of ljcheck.so (default build/lib)
#   --interval MS   sampling interval (default 10)
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

reps=11 luajit=/usr/bin/luajit module=$root/build/lib interval=10
while [[ $# -gt 0 ]]; do
  case $1 in
    --reps) reps=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --luajit) luajit=$(path_arg "$1" "${2:-}"); shift 2 ;;
    --module) module=$(path_arg "$1" "${2:-}"); shift 2 ;;
    --interval) interval=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1" 2 ;;
  esac
done
[[ -x $luajit ]] || die "no LuaJIT at $luajit" 2
[[ -f $module/ljcheck.so ]] || die "no ljcheck.so in $module (build first)" 2
export LUA_CPATH="$module/?.so"

run_mode() {  # MODE WORKLOAD -> CPU seconds
  local out
  out=$(cd "$bench/sampler" && "$luajit" driver.lua "$1" "$2.lua" "$interval") || die "$1 $2 failed" 1
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

printf '| workload | ljcheck.sample overhead (median) | jit.profile overhead (median) | ratio |\n|---|---:|---:|---:|\n'
for w in "${workloads[@]}"; do
  # shellcheck disable=SC2086
  a=$(median ${lj[$w]}) b=$(median ${jp[$w]})
  ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
  printf '| %s | %s %% | %s %% | %s |\n' "$w" "$(calc %.2f "$a * 100")" "$(calc %.2f "$b * 100")" "$ratio"
done

ns=() aborts=0 sites=0
for ((r = 0; r < reps; r++)); do
  read -r n a s < <(cd "$bench/sampler" && "$luajit" zones.lua 20000000) || die "zones.lua failed" 1
  ns+=("$n"); aborts=$((aborts + a)); sites=$((sites + s))
done
printf '\nzone push+pop in a compiled loop: %s ns per pair (median of %d), %d aborts, %d sites\n' \
  "$(median "${ns[@]}")" "$reps" "$aborts" "$sites"
