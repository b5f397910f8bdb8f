#!/usr/bin/env bash
# Sampler callback cost per sample, in instructions: what ljcheck.sample's C
# callback and jit.p's callback (LuaJIT's jit.profile C callback, which runs
# jit.p's Lua function: a stack dump and a table update) cost each time
# LuaJIT's profiler calls them. See BENCHMARKS.md ("Sampler cost per sample,
# third pass").
#
# bench/sampler_cost.sh differences whole runs, so its figure also holds what
# sampling does to the run (trace exits at each sample, the interpreter until
# the trace is re-entered), which moves by thousands of instructions per
# sample between identical runs. This one counts only the callbacks: each
# workload of bench/sampler/ runs under callgrind with ljcheck.sample and with
# jit.p; the profiler's dispatcher (stripped from Debian's luajit, so found as
# the caller of ljcheck's onProfilerSample) calls one callback per sample
# batch, and the callback's inclusive instructions over the samples taken is
# its cost per sample.
#
# usage: bench/sampler_callback.sh [options]
#   --scale X        workload length, 1 = about 0.45 s natively (default 0.3)
#   --luajit PATH    the LuaJIT host (default /usr/bin/luajit)
#   --module DIR     the directory of ljcheck.so (default build/lib)
#   --interval MS    sampling interval (default 1)
#   --workloads "W…" the workloads of bench/sampler/ (default "strings tables")
#   --compiled-stacks exit|function  ljcheck.sample's compiledStacks (default exit)
#   -h, --help       this text
# (Reads callgrind_annotate's output to its end: an early exit would fail the
# pipe under pipefail.)
# Exit status: 0 when every measurement ran, 1 when one failed, 2 on usage errors.
set -euo pipefail
export LC_ALL=C

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$bench/.." && pwd)
bench_name=sampler_callback
# shellcheck source=bench/lib.sh
. "$bench/lib.sh"

scale=0.3 luajit=/usr/bin/luajit module=$root/build/lib interval=1 workloads="strings tables" stacks=exit
parse_sampler_options "$@"
use_module "$luajit" "$module"
command -v valgrind >/dev/null || die "valgrind not found" 2
command -v callgrind_annotate >/dev/null || die "callgrind_annotate not found" 2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

profile() {  # MODE WORKLOAD -> the callgrind file $work/MODE.out; prints the samples taken
  local out
  out=$(cd "$bench/sampler" && valgrind --tool=callgrind --callgrind-out-file="$work/$1.out" \
    "$luajit" driver.lua "$1" "$2.lua" "$interval" "$scale" "$stacks" 2>&1) || die "$1 $2 failed: $out" 1
  awk 'NF == 3 && $1 ~ /^[0-9.]+$/ { print $3 }' <<<"$out"
}
tree() { callgrind_annotate --inclusive=yes --threshold=100 --tree="$1" "$2" 2>/dev/null; }
count() { tr -d , <<<"$1"; }

printf '| workload | samples ljcheck / jit.p | callback instructions per sample, ljcheck.sample | jit.p | ratio |\n'
printf '|---|---:|---:|---:|---:|\n'
for w in $workloads; do
  [[ -f $bench/sampler/$w.lua ]] || die "no workload $w in bench/sampler" 2
  ljn=$(profile ljcheck "$w")
  # The "*" line of onProfilerSample holds its inclusive count; the "<" line above it names its caller.
  read -r lj dispatcher < <(tree caller "$work/ljcheck.out" |
    awk '/%\)  < / { caller = $0 } /\*  .*onProfilerSample/ && !n { n = $1; sub(/.*<  */, "", caller); sub(/ .*/, "", caller); print n, caller }')
  [[ -n ${dispatcher:-} ]] || die "$w: no caller of onProfilerSample in the ljcheck run" 1
  jpn=$(profile jitp "$w")
  # The dispatcher's costliest callee in the jit.p run is jit.profile's callback.
  jp=$(tree calling "$work/jitp.out" |
    awk -v d="$dispatcher" 'index($0, "*  " d " ") { inside = 1; next } inside && /^ *$/ { inside = 0 }
      inside && />/ { gsub(/,/, "", $1); if ($1 + 0 > best) best = $1 + 0 } END { print best + 0 }')
  [[ $jp != 0 ]] || die "$w: the jit.p run shows no callback under $dispatcher" 1
  a=$(calc %.0f "$(count "$lj") / $ljn") b=$(calc %.0f "$jp / $jpn")
  say "$w: ljcheck $(count "$lj") in $ljn samples, jit.p $jp in $jpn samples (dispatcher $dispatcher)"
  printf '| %s | %s / %s | %s | %s | %s |\n' "$w" "$ljn" "$jpn" "$a" "$b" "$(calc %.2f "$a / $b")"
done
