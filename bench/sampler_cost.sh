#!/usr/bin/env bash
# Sampler cost per sample, in instructions. See BENCHMARKS.md ("Sampler cost
# per sample").
#
# A figure the machine's load cannot move: each CPU-bound workload of
# bench/sampler/ runs under callgrind (valgrind --tool=callgrind) with no
# profiler, with ljcheck.sample and with LuaJIT's jit.p ("vfGr": VM state and
# the whole stack per sample) at the same interval; a profiler's cost per
# sample is
#   (I_mode - I_none) / samples_mode
# which includes its share of the fixed costs (start, stop, the report) and
# of the profiling hooks in compiled code. The floor is the same figure for
# an ljcheck.sample session paused from its start (LuaJIT's profiler runs,
# the C callback returns at once), over the samples of the ljcheck run: what
# sampling costs any profiler (trace exits at each sample, the interpreter
# until the trace is re-entered); "above the floor" compares what each
# profiler adds to it. The profiler's timer runs on the
# process's CPU time, which valgrind stretches, so a run takes many more
# samples under the tool than natively; the division removes that. The
# overhead at 100 samples/s (10 ms) follows from the native instruction rate
# of the unsampled workload (I_none over its native CPU seconds, measured in
# the same run):
#   overhead = cost per sample * 100 / (I_none / seconds_none)
#
# usage: bench/sampler_cost.sh [options]
#   --scale X       workload length, 1 = about 0.45 s natively (default 0.3:
#                   under valgrind that is still thousands of samples)
#   --luajit PATH   the LuaJIT host (default /usr/bin/luajit)
#   --module DIR    the directory of ljcheck.so (default build/lib)
#   --interval MS   sampling interval (default 10)
#   --workloads "W…" the workloads of bench/sampler/ (default "nbody strings tables")
#   --compiled-stacks exit|function  ljcheck.sample's compiledStacks for the
#                   ljcheck and floor runs (default exit; function is jit.p's mode)
#   -h, --help      this text
# Exit status: 0 when every measurement ran, 1 when one failed, 2 on usage errors.
set -euo pipefail
export LC_ALL=C

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$bench/.." && pwd)
bench_name=sampler_cost
# shellcheck source=bench/lib.sh
. "$bench/lib.sh"

scale=0.3 luajit=/usr/bin/luajit module=$root/build/lib interval=10 workloads="nbody strings tables" stacks=exit
parse_sampler_options "$@"
use_module "$luajit" "$module"
command -v valgrind >/dev/null || die "valgrind not found" 2

count() {  # MODE WORKLOAD -> "instructions samples"
  local out
  out=$(callgrind_count "$bench/sampler" "$luajit" driver.lua "$1" "$2.lua" "$interval" "$scale" "$stacks")
  printf '%s %s\n' "$(head -n 1 <<<"$out")" "$(awk 'NR > 1 && NF == 3 && $1 ~ /^[0-9.]+$/ { print $3 }' <<<"$out")"
}
native_seconds() {  # WORKLOAD -> median CPU seconds of 5 unsampled native runs
  local t=() i
  for ((i = 0; i < 5; i++)); do
    t+=("$(cd "$bench/sampler" && "$luajit" driver.lua none "$1.lua" "$interval" "$scale" | awk '{ print $1 }')")
  done
  median "${t[@]}"
}

printf '| workload | samples ljcheck / jit.p | instructions per sample, ljcheck.sample | jit.p | ratio | floor | ratio above the floor | native rate, G instr/s | overhead at 100 samples/s, ljcheck | jit.p |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for w in $workloads; do
  [[ -f $bench/sampler/$w.lua ]] || die "no workload $w in bench/sampler" 2
  read -r none _ < <(count none "$w")
  read -r lj ljn < <(count ljcheck "$w")
  read -r jp jpn < <(count jitp "$w")
  read -r fl _ < <(count floor "$w")
  secs=$(native_seconds "$w")
  say "$w: none $none, ljcheck $lj ($ljn samples), jit.p $jp ($jpn samples), floor $fl, native ${secs}s"
  a=$(calc %.0f "($lj - $none) / $ljn") b=$(calc %.0f "($jp - $none) / $jpn") f=$(calc %.0f "($fl - $none) / $ljn")
  rate=$(calc %.6f "$none / $secs")
  printf '| %s | %s / %s | %s | %s | %s | %s | %s | %s | %s %% | %s %% |\n' "$w" "$ljn" "$jpn" "$a" "$b" "$(calc %.2f "$a / $b")" \
    "$f" "$(calc %.2f "($a - $f) / ($b - $f)")" \
    "$(calc %.2f "$rate / 1e9")" "$(calc %.3f "$a * 100 / $rate * 100")" "$(calc %.3f "$b * 100 / $rate * 100")"
done
