#!/usr/bin/env bash
# Start-up and memory benchmark for ljcheck. See bench/README.md.
#
# Measures, in one run, round-robin, medians:
#   (a) `luajit -e ''` wall time: the floor for starting a LuaJIT process
#   (b) `ljcheck --version` wall time (target: within 3x of (a), paired median)
#   (c) `ljcheck lint FILE` wall time, one ~2,000-line file of the corpus
#       (target: median <= 10 ms)
#   (d) peak RSS (GNU time %M) of `ljcheck lint --format json -j 2` over the
#       whole corpus (target: <= 48 MiB)
#   (e) the libraries `ldd` lists for ljcheck: none may be libclang or LLVM
# With --baseline, (b)-(e) are measured for a second binary in the same run,
# interleaved with the first, so the report shows before -> after.
#
# usage: bench/startup.sh [options]
#   --reps N          repetitions of (a)-(c) (default 40)
#   --rss-reps N      repetitions of (d) (default 5)
#   --ljcheck PATH    ljcheck binary (default build/bin/ljcheck, from the repo root)
#   --baseline PATH   a second ljcheck binary (e.g. a build of an older commit)
#   --file PATH       the file for (c), relative to bench/corpus (default
#                     neovim-runtime/usr/share/nvim/runtime/lua/vim/lsp/util.lua)
#   -h, --help        this text
# Exit status: 0 when every measurement ran (targets missed do not fail the
# run), 1 when one failed, 2 on usage errors.
set -euo pipefail
export LC_ALL=C

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$bench/.." && pwd)
corpus_rel=bench/corpus
corpus=$root/$corpus_rel
results=$bench/results
list=$corpus/files.txt

bench_name=startup
# shellcheck source=bench/lib.sh
. "$bench/lib.sh"

reps=40 rss_reps=5 ljcheck=build/bin/ljcheck baseline=''
file=neovim-runtime/usr/share/nvim/runtime/lua/vim/lsp/util.lua
while (( $# )); do
  case $1 in
    --reps) reps=$(uint_arg "$1" "${2:-}"); shift ;;
    --rss-reps) rss_reps=$(uint_arg "$1" "${2:-}"); shift ;;
    --ljcheck) ljcheck=$(path_arg "$1" "${2:-}"); shift ;;
    --baseline) baseline=$(path_arg "$1" "${2:-}"); shift ;;
    --file) [[ -n ${2:-} ]] || die "--file needs a path" 2; file=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" 2 ;;
  esac
  shift
done
cd "$root"
[[ $ljcheck = /* ]] || ljcheck=$root/$ljcheck

# ---------------------------------------------------------------- preconditions
command -v luajit >/dev/null || die "luajit not found (run scripts/setup.sh)"
command -v ldd >/dev/null || die "ldd not found"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (GNU time; bench/corpus.sh installs Debian package 'time')"
[[ -s $list ]] || die "no corpus: $list missing; run bench/corpus.sh first"
[[ -f $corpus/$file ]] || die "no file $corpus_rel/$file (run bench/corpus.sh, or pass --file)"
[[ -n ${EPOCHREALTIME:-} ]] || die "bash >= 5 needed (EPOCHREALTIME)"
[[ -x $ljcheck ]] || die "$ljcheck not found or not executable (build it, or pass --ljcheck PATH)"
[[ -z $baseline || -x $baseline ]] || die "$baseline not found or not executable"

mkdir -p "$results"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

minof() { printf '%s\n' "$@" | sort -g | head -n 1; }

# ---------------------------------------------------------------- facts
file_lines=$(awk 'END { print NR }' "$corpus/$file")
files=$(grep -c . "$list")
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null | grep -c . || true)
(( dirty == 0 )) || commit="$commit (+ $dirty uncommitted files)"
facts=(
  "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  "machine: nproc $(nproc), CPU ${cpu:-unknown}, kernel $(uname -sr), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
  "working tree: commit $commit"
  "LuaJIT: $(luajit -v 2>&1 | head -n 1)"
  "lint file: $corpus_rel/$file ($file_lines lines)"
  "corpus for RSS: $files files (bench/corpus/files.txt)"
)

# Binaries under test: key "new" is --ljcheck, "old" is --baseline.
declare -A bin T P
bin[new]=$ljcheck
keys=(new)
if [[ -n $baseline ]]; then bin[old]=$baseline; keys=(old new); fi
for k in "${keys[@]}"; do facts+=("ljcheck ($k): ${bin[$k]} ($("${bin[$k]}" --version 2>/dev/null | head -n 1 || true))"); done

# time_once KEY CMD...: appends the wall time of CMD, in milliseconds, to T[KEY].
# Output is discarded; exit codes 0 and 1 (lint findings) count as success.
time_once() {
  local key=$1 t0 t1 rc; shift
  t0=$EPOCHREALTIME
  set +e
  "$@" >/dev/null 2>"$tmp/err"
  rc=$?
  set -e
  t1=$EPOCHREALTIME
  if (( rc > 1 )); then
    tail -n 5 "$tmp/err" >&2
    die "$key: '$*' failed (exit $rc)"
  fi
  T[$key]+=" $(calc '%.3f' "($t1 - $t0) * 1000")"
}

# rss_once KEY BIN: appends the peak RSS (KiB) of a whole-corpus lint to P[KEY].
rss_once() {
  local key=$1 exe=$2 rc
  set +e
  /usr/bin/time -f '%M' -o "$tmp/rss" "$exe" lint --format json -j 2 --root "$corpus_rel" "$corpus_rel" \
    >/dev/null 2>"$tmp/err"
  rc=$?
  set -e
  if (( rc > 1 )); then
    tail -n 5 "$tmp/err" >&2
    die "$key: whole-corpus lint failed (exit $rc)"
  fi
  P[$key]+=" $(tail -n 1 "$tmp/rss")"
}

say "warm-up (page cache): one run of each command"
luajit -e ''
for k in "${keys[@]}"; do
  "${bin[$k]}" --version >/dev/null
  "${bin[$k]}" lint --root "$corpus_rel" "$corpus_rel/$file" >/dev/null || true
done

say "$reps repetitions of luajit -e '', ljcheck --version, ljcheck lint FILE (${keys[*]})"
for ((r = 1; r <= reps; r++)); do
  time_once luajit luajit -e ''
  for k in "${keys[@]}"; do
    time_once "version-$k" "${bin[$k]}" --version
    time_once "lint-$k" "${bin[$k]}" lint --root "$corpus_rel" "$corpus_rel/$file"
  done
done
say "$rss_reps repetitions of ljcheck lint --format json -j 2 over the corpus (${keys[*]})"
for ((r = 1; r <= rss_reps; r++)); do
  for k in "${keys[@]}"; do rss_once "$k" "${bin[$k]}"; done
done

# Paired ratio: the median over repetitions of T[NUM]_r / T[DEN]_r (adjacent in
# time, so a change in the machine's load between repetitions cancels out).
paired_ratio() {
  local -a a b r=()
  read -r -a a <<< "${T[$1]}"
  read -r -a b <<< "${T[$2]}"
  local i
  for ((i = 0; i < ${#a[@]} && i < ${#b[@]}; i++)); do r+=("$(calc '%.6f' "${a[i]} / ${b[i]}")"); done
  median "${r[@]}"
}
stat_ms() {  # key: "median (min–max)"
  local -a v; read -r -a v <<< "${T[$1]}"
  printf '%s (%s–%s)' "$(calc '%.2f' "$(median "${v[@]}")")" "$(minof "${v[@]}")" "$(maxof "${v[@]}")"
}
median_of() { local -a v; read -r -a v <<< "${T[$1]}"; median "${v[@]}"; }
llvm_libs() {  # the libraries ldd lists for BIN whose names say clang or LLVM; "none" when none
  local found
  found=$(ldd "$1" | awk '{ print $1 }' | grep -E 'clang|LLVM' | paste -sd ' ' -)
  echo "${found:-none}"
}
ok() { awk "BEGIN { exit !($1) }" && echo "yes" || echo "**NO**"; }

trow() { local IFS='|'; local cells="$*"; echo "| ${cells//|/ | } |"; }   # trow CELL...: one table row
rss_cell() { local -a v; read -r -a v <<< "${P[$1]}"; printf '%s (%s)' "$(calc '%.1f' "$(median "${v[@]}") / 1024")" "$(calc '%.1f' "$(maxof "${v[@]}") / 1024")"; }
read -r -a rss_new <<< "${P[new]}"
version_ratio=$(paired_ratio version-new luajit)
{
  echo "# ljcheck start-up and memory"
  echo
  for f in "${facts[@]}"; do echo "- $f"; done
  echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "Wall times in ms: median (min–max) of $reps repetitions, round-robin with \`luajit -e ''\` in the same run;"
  echo "ratios to luajit are paired (each repetition's time over luajit's in the same repetition, then the median)."
  echo "Peak RSS: GNU time %M of \`ljcheck lint --format json -j 2 --root bench/corpus bench/corpus\`, MiB, median (max) of $rss_reps repetitions."
  echo
  if [[ -n $baseline ]]; then trow measurement "before (--baseline)" "after (--ljcheck)" target met; echo "|---|---:|---:|---|---|"
  else trow measurement ljcheck target met; echo "|---|---:|---|---|"; fi
  cells=("\`luajit -e ''\` wall ms"); for k in "${keys[@]}"; do cells+=("$(stat_ms luajit)"); done
  trow "${cells[@]}" floor —
  cells=("\`ljcheck --version\` wall ms")
  for k in "${keys[@]}"; do cells+=("$(stat_ms "version-$k"); $(calc '%.2f' "$(paired_ratio "version-$k" luajit)")× luajit"); done
  trow "${cells[@]}" "≤ 3× luajit" "$(ok "$version_ratio <= 3")"
  cells=("\`ljcheck lint\` of the $file_lines-line file, wall ms"); for k in "${keys[@]}"; do cells+=("$(stat_ms "lint-$k")"); done
  trow "${cells[@]}" "≤ 10 ms median" "$(ok "$(median_of lint-new) <= 10")"
  cells=("peak RSS, whole corpus, \`-j 2\`, MiB"); for k in "${keys[@]}"; do cells+=("$(rss_cell "$k")"); done
  trow "${cells[@]}" "≤ 48 MiB (max)" "$(ok "$(maxof "${rss_new[@]}") <= 48 * 1024")"
  cells=("\`ldd\`: clang/LLVM libraries"); for k in "${keys[@]}"; do cells+=("$(llvm_libs "${bin[$k]}")"); done
  trow "${cells[@]}" none "$([[ $(llvm_libs "$ljcheck") == none ]] && echo yes || echo '**NO**')"
  echo
  echo "Per-repetition wall times (ms) and peak RSS (KiB):"
  echo
  for k in luajit "${keys[@]/#/version-}" "${keys[@]/#/lint-}"; do echo "- $k: $(tr ' ' ',' <<< "${T[$k]# }")"; done
  for k in "${keys[@]}"; do echo "- RSS $k: $(tr ' ' ',' <<< "${P[$k]# }")"; done
} > "$tmp/report.md"

stamp=$(date -u '+%Y%m%dT%H%M%SZ')
cp "$tmp/report.md" "$results/startup-latest.md"
cp "$tmp/report.md" "$results/startup-$stamp.md"
cat "$tmp/report.md"
say "saved bench/results/startup-latest.md (and startup-$stamp.md)"
exit 0
