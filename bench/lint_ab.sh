#!/usr/bin/env bash
# Two ljcheck builds linting bench/corpus, alternated: the paired A/B of a
# change to lint's cost. See bench/README.md.
#
# Each pair runs the baseline, then the candidate (the order swaps every
# pair), with `lint --format json -j N --root bench/corpus bench/corpus`
# as bench/run.sh calls it, the report written to a file. Per pair: the
# candidate's wall time and CPU time (user + system) over the baseline's.
# Reported: medians of those ratios, each build's median wall and CPU
# seconds, and peak RSS (GNU time %M) median and maximum. Wall time on a
# shared virtual machine swings by a third between minutes; a ratio within
# one pair does not.
#
# usage: bench/lint_ab.sh --baseline PATH [options]
#   --baseline PATH   the ljcheck binary to compare against (e.g. a build of HEAD~1)
#   --ljcheck PATH    the candidate (default build/bin/ljcheck, from the repo root)
#   --pairs N         pairs per job count (default 15)
#   --jobs LIST       job counts, comma-separated (default 1,2)
#   -h, --help        this text
# Exit status: 0 when every run linted (exit 0 or 1), 1 when one failed, 2 on
# usage errors.
set -euo pipefail
export LC_ALL=C

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$bench/.." && pwd)
corpus_rel=bench/corpus
results=$bench/results

bench_name=lint_ab
# shellcheck source=bench/lib.sh
. "$bench/lib.sh"

ljcheck=$root/build/bin/ljcheck baseline='' pairs=15 jobs=1,2
while (($#)); do
  case $1 in
    --baseline) baseline=$(path_arg "$1" "${2:-}"); shift 2 ;;
    --ljcheck) ljcheck=$(path_arg "$1" "${2:-}"); shift 2 ;;
    --pairs) pairs=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --jobs) [[ ${2:-} =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--jobs needs a list like 1,2" 2; jobs=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" 2 ;;
  esac
done
[[ -n $baseline ]] || die "--baseline PATH is required (see --help)" 2
for b in "$baseline" "$ljcheck"; do [[ -x $b ]] || die "not an executable: $b" 2; done
[[ -d $root/$corpus_rel ]] || die "no corpus at $corpus_rel: run bench/corpus.sh first" 2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$results"

# one BINARY J: prints "wall cpu rss_kib"
one() {
  local rc=0
  (cd "$root" && command time -f '%e %U %S %M' -o "$tmp/time" \
    "$1" lint --format json -j "$2" --root "$corpus_rel" "$corpus_rel" > "$tmp/report.json" 2> "$tmp/err") || rc=$?
  if ((rc > 1)); then tail -n 5 "$tmp/err" >&2; die "$1 -j $2 failed (exit $rc)" 1; fi
  tail -n 1 "$tmp/time" | awk '{ printf "%s %.3f %s\n", $1, $2 + $3, $4 }'
}

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=$results/lint-ab-$stamp.md
{
  echo "# ljcheck lint, paired A/B"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); machine: nproc $(nproc), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- baseline: $baseline ($("$baseline" --version | head -n 1))"
  echo "- candidate: $ljcheck ($("$ljcheck" --version | head -n 1))"
  echo "- corpus: $corpus_rel, $pairs pairs per job count, the order swapped every pair"
  echo
  echo "| -j | pairs | wall, candidate ÷ baseline (paired median) | CPU, candidate ÷ baseline (paired median) | wall s, baseline → candidate (medians) | CPU s | peak RSS MiB, median (max) |"
  echo "|--:|--:|--:|--:|---|---|---|"
} > "$out"

IFS=, read -r -a joblist <<< "$jobs"
for j in "${joblist[@]}"; do
  wr=() cr=() wb=() wc=() cb=() cc=() rb=() rc=()
  for ((p = 0; p < pairs; p++)); do
    if ((p % 2 == 0)); then read -r w1 c1 r1 < <(one "$baseline" "$j"); read -r w2 c2 r2 < <(one "$ljcheck" "$j")
    else read -r w2 c2 r2 < <(one "$ljcheck" "$j"); read -r w1 c1 r1 < <(one "$baseline" "$j"); fi
    wb+=("$w1") wc+=("$w2") cb+=("$c1") cc+=("$c2") rb+=("$r1") rc+=("$r2")
    wr+=("$(calc '%.4f' "$w2 / $w1")") cr+=("$(calc '%.4f' "$c2 / $c1")")
    say "-j $j pair $((p + 1))/$pairs: wall $w1 -> $w2 s, CPU $c1 -> $c2 s"
  done
  printf '| %s | %s | **%.3f** | **%.3f** | %.3f → %.3f | %.3f → %.3f | %.1f (%.1f) → %.1f (%.1f) |\n' \
    "$j" "$pairs" "$(median "${wr[@]}")" "$(median "${cr[@]}")" "$(median "${wb[@]}")" "$(median "${wc[@]}")" \
    "$(median "${cb[@]}")" "$(median "${cc[@]}")" \
    "$(calc '%.1f' "$(median "${rb[@]}") / 1024")" "$(calc '%.1f' "$(maxof "${rb[@]}") / 1024")" \
    "$(calc '%.1f' "$(median "${rc[@]}") / 1024")" "$(calc '%.1f' "$(maxof "${rc[@]}") / 1024")" >> "$out"
done
echo >> "$out"
echo "Load average at end: $(cut -d' ' -f1-3 /proc/loadavg)." >> "$out"
cp "$out" "$results/lint-ab-latest.md"
cat "$out"
say "saved ${out#"$root"/} (and bench/results/lint-ab-latest.md)"
