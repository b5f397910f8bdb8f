#!/usr/bin/env bash
# Lint of one file whose single loop body is as long as LuaJIT's parser
# allows (a jump spans at most 32,767 instructions: "control structure too
# long"), against a baseline build, paired. See bench/README.md.
#
# Generated shapes, each at two sizes (the larger near the parser's limit):
#   calls     N stitching calls (string.gsub) in a row, one closure after them
#   guarded   N `if i > k then gsub(...) end`, one closure after them
#   closures  N pairs of a guarded stitching call and a closure
# Per file and build: the median of --reps runs' CPU time (user + system) of
# `lint --format json --fail-on none FILE`, and candidate ÷ baseline. The
# reports of both builds are compared: a difference is printed and makes
# the exit status 1.
#
# usage: bench/huge_loops.sh --baseline PATH [options]
#   --baseline PATH   the ljcheck binary to compare against
#   --ljcheck PATH    the candidate (default build/bin/ljcheck)
#   --reps N          runs per file and build (default 5)
#   -h, --help        this text
set -euo pipefail
export LC_ALL=C

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$bench/.." && pwd)
results=$bench/results
bench_name=huge_loops
# shellcheck source=bench/lib.sh
. "$bench/lib.sh"

ljcheck=$root/build/bin/ljcheck baseline='' reps=5
while (($#)); do
  case $1 in
    --baseline) baseline=$(path_arg "$1" "${2:-}"); shift 2 ;;
    --ljcheck) ljcheck=$(path_arg "$1" "${2:-}"); shift 2 ;;
    --reps) reps=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" 2 ;;
  esac
done
[[ -n $baseline ]] || die "--baseline PATH is required (see --help)" 2
for b in "$baseline" "$ljcheck"; do [[ -x $b ]] || die "not an executable: $b" 2; done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$results"

# shape NAME N: writes $tmp/NAME-N.lua
shape() {
  awk -v kind="$1" -v n="$2" 'BEGIN {
    print "local t = {}\nlocal g = string.gsub\nfor i = 1, 100000 do"
    for (k = 0; k < n; k++) {
      if (kind == "calls") print "  g(\"a\", \"b\", \"c\")"
      else if (kind == "guarded") print "  if i > " k " then g(\"a\", \"b\", \"c\") end"
      else print "  if i > " k " then g(\"a\", \"b\", \"c\") end\n  t[" (k % 9 + 1) "] = function() return i end"
    }
    print "  t[1] = function() return i end\nend"
  }' > "$tmp/$1-$2.lua"
}

# cpu BINARY FILE OUT: prints user + system seconds of one lint
cpu() {
  local rc=0
  command time -f '%U %S' -o "$tmp/time" "$1" lint --format json --fail-on none "$2" > "$3" 2> "$tmp/err" || rc=$?
  ((rc <= 1)) || { tail -n 3 "$tmp/err" >&2; die "$1 failed on $2 (exit $rc)" 1; }
  tail -n 1 "$tmp/time" | awk '{ printf "%.3f\n", $1 + $2 }'
}

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=$results/huge-loops-$stamp.md
{
  echo "# ljcheck lint of one huge loop body, paired"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); machine: nproc $(nproc), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- baseline: $baseline; candidate: $ljcheck; $reps runs per file and build, the order swapped every run"
  echo
  echo "| shape | statements in the loop | lines | CPU s, baseline (median) | CPU s, candidate (median) | candidate ÷ baseline | same report |"
  echo "|---|--:|--:|--:|--:|--:|---|"
} > "$out"

status=0
for spec in calls:2000 calls:6000 guarded:1000 guarded:3000 closures:800 closures:2500; do
  name=${spec%%:*} n=${spec##*:}
  shape "$name" "$n"
  file=$tmp/$name-$n.lua
  base=() cand=()
  for ((r = 0; r < reps; r++)); do
    if ((r % 2 == 0)); then base+=("$(cpu "$baseline" "$file" "$tmp/a.json")"); cand+=("$(cpu "$ljcheck" "$file" "$tmp/b.json")")
    else cand+=("$(cpu "$ljcheck" "$file" "$tmp/b.json")"); base+=("$(cpu "$baseline" "$file" "$tmp/a.json")"); fi
  done
  same=yes
  cmp -s "$tmp/a.json" "$tmp/b.json" || { same=no; status=1; }
  mb=$(median "${base[@]}") mc=$(median "${cand[@]}")
  printf '| %s | %s | %s | %.3f | %.3f | **%s** | %s |\n' "$name" "$n" "$(wc -l < "$file")" "$mb" "$mc" \
    "$(calc '%.3f' "$mc / ($mb > 0 ? $mb : 0.001)")" "$same" >> "$out"
  say "$name $n: $mb -> $mc s"
done
echo >> "$out"
echo "Load average at end: $(cut -d' ' -f1-3 /proc/loadavg)." >> "$out"
cp "$out" "$results/huge-loops-latest.md"
cat "$out"
say "saved ${out#"$root"/} (and bench/results/huge-loops-latest.md)"
exit "$status"
