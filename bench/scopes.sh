#!/usr/bin/env bash
# Scope benchmark for ljcheck. See BENCHMARKS.md ("Scopes: mark/done").
#
# Times a mark/done pair of a known label (ljcheck.scope, in a compiled loop)
# against a pure-Lua implementation of the same semantics
# (bench/scopes/pure_scopes.lua) in the same run. Method: fresh processes in
# seeded random order, one warm-up process and N samples per variant;
# medians and interquartile ranges of CPU ns per pair (each process times
# itself with CLOCK_PROCESS_CPUTIME_ID; wall ns too), peak RSS per process.
# Targets: ljcheck <= 100 ns per pair, ljcheck / pure-Lua <= 0.3.
#
# usage: bench/scopes.sh [options]
#   --samples N     samples per variant (default 7)
#   --pairs N       pairs per process (default 2000000)
#   --seed N        order seed (default 12)
#   --luajit PATH   the LuaJIT host (default /usr/bin/luajit)
#   --module DIR    the directory of ljcheck.so (default build/lib)
#   -h, --help      this text
# Exit status: 0 when every process ran (targets missed do not fail the
# run), 1 when one failed, 2 on usage errors.
set -euo pipefail
export LC_ALL=C

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$bench/.." && pwd)
bench_name=scopes
# shellcheck source=bench/lib.sh
source "$bench/lib.sh"

samples=7 pairs=2000000 seed=12 luajit=/usr/bin/luajit module=$root/build/lib
while [[ $# -gt 0 ]]; do
  case $1 in
    --samples) samples=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --pairs) pairs=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --seed) seed=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --luajit) luajit=$(path_arg "$1" "${2:-}"); shift 2 ;;
    --module) module=$(path_arg "$1" "${2:-}"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" 2 ;;
  esac
done
use_module "$luajit" "$module"

variants=(ljcheck pure)
# The run list: every (variant, sample) once, shuffled with the seed; the
# warm-up processes of both variants go first.
runs=()
for v in "${variants[@]}"; do for ((i = 1; i <= samples; i++)); do runs+=("$v"); done; done
RANDOM=$seed
for ((i = ${#runs[@]} - 1; i > 0; i--)); do
  j=$((RANDOM % (i + 1))); t=${runs[i]}; runs[i]=${runs[j]}; runs[j]=$t
done

declare -A cpu wall rss
one() {  # one fresh process of variant $1; prints "cpu wall rss"
  "$luajit" "$bench/scopes/pair.lua" "$1" "$pairs" \
    || die "the $1 process failed"
}
say "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for v in "${variants[@]}"; do one "$v" >/dev/null; done  # warm-up processes
for v in "${runs[@]}"; do
  read -r c w r < <(one "$v")
  cpu[$v]+="$c " wall[$v]+="$w " rss[$v]+="$r "
done

quartile() {  # quartile Q(1|3) values...: the value at rank ceil(Q*n/4) of the sorted values
  local q=$1; shift
  printf '%s\n' "$@" | sort -g | awk -v q="$q" '{ a[NR] = $1 } END { r = int((q * NR + 3) / 4); print a[r] }'
}

printf '| variant | CPU ns/pair median (IQR) | wall ns/pair median (IQR) | peak RSS KiB (max) |\n|---|---|---|---|\n'
for v in "${variants[@]}"; do
  read -ra c <<<"${cpu[$v]}"; read -ra w <<<"${wall[$v]}"; read -ra r <<<"${rss[$v]}"
  printf '| %s | %s (%s–%s) | %s (%s–%s) | %s |\n' "$v" \
    "$(median "${c[@]}")" "$(quartile 1 "${c[@]}")" "$(quartile 3 "${c[@]}")" \
    "$(median "${w[@]}")" "$(quartile 1 "${w[@]}")" "$(quartile 3 "${w[@]}")" "$(maxof "${r[@]}")"
done
read -ra cl <<<"${cpu[ljcheck]}"; read -ra cp <<<"${cpu[pure]}"
mine=$(median "${cl[@]}") base=$(median "${cp[@]}")
ratio=$(calc '%.3f' "$mine / $base")
met() { awk "BEGIN { print ($1) ? \"met\" : \"missed\" }"; }
printf '\nljcheck pair: %s ns CPU (target <= 100: %s); ljcheck / pure-Lua: %s (target <= 0.3: %s)\n' \
  "$mine" "$(met "$mine <= 100")" "$ratio" "$(met "$ratio <= 0.3")"
printf 'order (seed %s): %s\nper-sample CPU ns, ljcheck: %s\nper-sample CPU ns, pure-Lua: %s\n' \
  "$seed" "${runs[*]}" "${cpu[ljcheck]}" "${cpu[pure]}"
say "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
