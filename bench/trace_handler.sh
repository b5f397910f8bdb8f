#!/usr/bin/env bash
# Trace-handler benchmark for ljcheck. See BENCHMARKS.md ("Trace handler per abort").
#
# Instructions per abort, counted with callgrind (valgrind --tool=callgrind):
# bench/trace_handler/aborts.lua aborts about once per round (a loop that
# creates a closure, then jit.flush(); the same function every round, or a
# fresh chunk each round with --workload fresh), under no handler, under
# ljcheck.trace (the C handler) and under a Lua jit.attach handler doing the
# same aggregation. Each mode runs with 0 and with N rounds; the handler's
# cost per abort is
#   ((I_mode(N) - I_mode(0)) - (I_none(N) - I_none(0))) / aborts_mode(N)
# so start-up, session start and report building at stop (fixed costs)
# drop out. Target: ljcheck <= 0.2x the Lua handler. The floor is LuaJIT's
# own dispatch of a trace event to a handler: an empty Lua function and an
# empty C library function (io.type) attached the same way, per abort of the
# Lua handler's run (the same rounds abort the same number of times).
#
# usage: bench/trace_handler.sh [options]
#   --rounds N      rounds of the measured runs (default 1000)
#   --workload W    same (default: one abort site, hit again and again) or
#                   fresh (a new function every round: no site repeats)
#   --luajit PATH   the LuaJIT host (default /usr/bin/luajit)
#   --module DIR    the directory of ljcheck.so (default build/lib)
#   -h, --help      this text
# Exit status: 0 when every measurement ran, 1 when one failed, 2 on usage errors.
set -euo pipefail
export LC_ALL=C

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$bench/.." && pwd)
bench_name=trace_handler
# shellcheck source=bench/lib.sh
. "$bench/lib.sh"

rounds=1000 luajit=/usr/bin/luajit module=$root/build/lib workload=same
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --workload) workload=${2:-}; [[ $workload == same || $workload == fresh ]] || die "--workload takes same or fresh" 2; shift 2 ;;
    --luajit) luajit=$(path_arg "$1" "${2:-}"); shift 2 ;;
    --module) module=$(path_arg "$1" "${2:-}"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1" 2 ;;
  esac
done
use_module "$luajit" "$module"
command -v valgrind >/dev/null || die "valgrind not found" 2

count() {  # MODE ROUNDS -> "instructions aborts"
  local out
  out=$(callgrind_count "$bench/trace_handler" "$luajit" aborts.lua "$1" "$2" "$workload")
  printf '%s %s\n' "$(head -n 1 <<<"$out")" "$(awk 'NR > 1 && NF == 2 && $1 ~ /^[0-9]+$/ { print $1 }' <<<"$out")"
}

declare -A base full aborts
for m in none ljcheck lua empty-lua empty-c; do
  read -r base[$m] _ < <(count "$m" 0)
  read -r full[$m] aborts[$m] < <(count "$m" "$rounds")
  say "$m: ${base[$m]} instructions with 0 rounds, ${full[$m]} with $rounds (${aborts[$m]} aborts)"
done
none=$((full[none] - base[none]))
per() { calc %.0f "(${full[$1]} - ${base[$1]} - $none) / ${aborts[$1]}"; }
c=$(per ljcheck) l=$(per lua)
printf '| handler | aborts | instructions per abort |\n|---|---:|---:|\n'
printf '| ljcheck.trace (C) | %s | %s |\n| Lua jit.attach handler | %s | %s |\n' "${aborts[ljcheck]}" "$c" "${aborts[lua]}" "$l"
aborts[empty-lua]=${aborts[lua]} aborts[empty-c]=${aborts[lua]}
printf '| empty Lua handler (floor) | %s | %s |\n| empty C function, io.type (floor) | %s | %s |\n' \
  "${aborts[lua]}" "$(per empty-lua)" "${aborts[lua]}" "$(per empty-c)"
printf '\nratio C / Lua: %s (target <= 0.2)\n' "$(calc %.2f "$c / $l")"
