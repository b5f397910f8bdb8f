#!/usr/bin/env bash
# Lint-throughput benchmark for ljcheck. See bench/README.md.
#
# Measures, in one run and over the same file list (bench/corpus/files.txt):
#   (a) the in-process LuaJIT compile rate (bench/compile_rate.lua, loadstring only)
#   (b) luacheck over the same files (no cache, no config)
#   (c) ljcheck lint -j 1   (d) ljcheck lint -j 2   (skipped if the binary is missing)
#   (e) two (a) processes at once: how far this machine itself scales a CPU-bound
#       job over two cores, the ceiling for (d) / (c)
# Each with several repetitions; reports medians, lines/s, ratios and peak RSS as a
# Markdown table on stdout and in bench/results/latest.md.
#
# usage: bench/run.sh [options]
#   --reps N            repetitions per measurement (default 5)
#   --ljcheck PATH      ljcheck binary (default build/bin/ljcheck, from the repo root)
#   --luacheck-every K  luacheck on every K-th file of files.txt only (default 1 = all);
#                       a fixed, deterministic subset for when luacheck is too slow
#   --luacheck-reps N   repetitions for luacheck (default: --reps)
#   --skip-luacheck     do not run luacheck (ratios vs luacheck are left empty)
#   -h, --help          this text
# Exit status: 0 when every measurement that ran succeeded (targets missed do not
# fail the run), 1 when one failed, 2 on usage errors.
set -euo pipefail
export LC_ALL=C

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$bench/.." && pwd)
corpus_rel=bench/corpus
corpus=$root/$corpus_rel
results=$bench/results
list=$corpus/files.txt

bench_name=bench
# shellcheck source=bench/lib.sh
. "$bench/lib.sh"

reps=5 ljcheck=build/bin/ljcheck luacheck_every=1 luacheck_reps='' skip_luacheck=0
while (( $# )); do
  case $1 in
    --reps) reps=$(uint_arg "$1" "${2:-}"); shift ;;
    --ljcheck) (( $# >= 2 )) || die "--ljcheck needs a path" 2
      # relative to the caller's directory unless it is the default
      if [[ $2 = /* ]]; then ljcheck=$2; else ljcheck=$PWD/$2; fi; shift ;;
    --luacheck-every) luacheck_every=$(uint_arg "$1" "${2:-}"); shift ;;
    --luacheck-reps) luacheck_reps=$(uint_arg "$1" "${2:-}"); shift ;;
    --skip-luacheck) skip_luacheck=1 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" 2 ;;
  esac
  shift
done
luacheck_reps=${luacheck_reps:-$reps}
cd "$root"
[[ $ljcheck = /* ]] || ljcheck=$root/$ljcheck

# ---------------------------------------------------------------- preconditions
command -v luajit >/dev/null || die "luajit not found (run scripts/setup.sh)"
command -v awk >/dev/null || die "awk not found"
(( skip_luacheck )) || command -v luacheck >/dev/null || die "luacheck not found (Debian package lua-check; run scripts/setup.sh)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (GNU time; bench/corpus.sh installs Debian package 'time')"
[[ -s $list ]] || die "no corpus: $list missing; run bench/corpus.sh first"
[[ -n ${EPOCHREALTIME:-} ]] || die "bash >= 5 needed (EPOCHREALTIME)"

# the list and the directory must agree: ljcheck lints the directory, the others the list
if ! diff -q <(sort "$list") <(cd "$corpus" && find . -type f -name '*.lua' | sed 's|^\./||' | sort) >/dev/null; then
  die "bench/corpus/files.txt does not match the *.lua files under bench/corpus; re-run bench/corpus.sh"
fi

mkdir -p "$results"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count_lines() { (cd "$corpus" && xargs -r -d '\n' awk 'END { print NR }' < "$1") | awk '{ s += $1 } END { print s + 0 }'; }

# run_timed OUT ERR CMD...: sets run_secs, run_rss_kib, run_rc
run_timed() {
  local out=$1 err=$2; shift 2
  local t0 t1
  t0=$EPOCHREALTIME
  set +e
  /usr/bin/time -f '%M' -o "$tmp/rss" "$@" >"$out" 2>"$err"
  run_rc=$?
  set -e
  t1=$EPOCHREALTIME
  run_secs=$(calc '%.6f' "$t1 - $t0")
  run_rss_kib=$(tail -n 1 "$tmp/rss" 2>/dev/null || echo 0)
  [[ $run_rss_kib =~ ^[0-9]+$ ]] || run_rss_kib=0
}

# ---------------------------------------------------------------- facts
files=$(grep -c . "$list")
lines=$(count_lines "$list")
corpus_digest=$(cd "$corpus" && xargs -d '\n' sha256sum < "$list" | sha256sum | cut -c1-16)
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
facts=(
  "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  "machine: nproc $(nproc), CPU ${cpu:-unknown}, kernel $(uname -sr), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
  "corpus: $files files, $lines lines (bench/corpus/files.txt, digest $corpus_digest; composition in bench/corpus/packages.tsv)"
  "LuaJIT: $(luajit -v 2>&1 | head -n 1)"
)
say "corpus: $files files, $lines lines; $reps repetitions"

declare -A secs lps rss note status T P
failed=0

# One repetition of one tool. Appends the wall time to T[key] and the peak RSS to
# P[key]; on failure sets status[key]. Tools are run round-robin (rep 1 of each,
# then rep 2 of each, ...) so a change in machine load affects all of them alike.
cr_passes=
rep_luajit() {
  run_timed "$tmp/cr.out" "$tmp/cr.err" luajit "$bench/compile_rate.lua" --reps 1 --base "$corpus" "$list"
  if (( run_rc != 0 )); then
    cat "$tmp/cr.err" >&2
    die "compile_rate.lua failed (exit $run_rc)"
  fi
  local cr_lines s
  cr_lines=$(awk -F= '$1 == "lines" { print $2 }' "$tmp/cr.out")
  [[ $cr_lines == "$lines" ]] || die "line counts disagree: compile_rate.lua $cr_lines, run.sh $lines"
  s=$(awk -F= '$1 == "median_seconds" { print $2 }' "$tmp/cr.out")
  cr_passes=$(awk -F= '$1 == "passes_per_rep" { print $2 }' "$tmp/cr.out")
  T[luajit]+=" $s" P[luajit]+=" $run_rss_kib"
  say "    LuaJIT compile: $(calc '%.3f' "$s") s per pass ($cr_passes passes), $(calc '%.0f' "$lines / $s") lines/s"
}
# Two compile-rate processes at once, started together: each does the same
# passes as rep_luajit. The pair's rate over one process's rate is what two
# cores give a job with no shared state at all.
rep_luajit_pair() {
  local t0 t1 a b s1 s2
  t0=$EPOCHREALTIME
  luajit "$bench/compile_rate.lua" --reps 1 --base "$corpus" "$list" > "$tmp/pair1.out" 2>&1 & a=$!
  luajit "$bench/compile_rate.lua" --reps 1 --base "$corpus" "$list" > "$tmp/pair2.out" 2>&1 & b=$!
  wait "$a" || die "compile_rate.lua (pair) failed"
  wait "$b" || die "compile_rate.lua (pair) failed"
  t1=$EPOCHREALTIME
  s1=$(awk -F= '$1 == "median_seconds" { print $2 }' "$tmp/pair1.out")
  s2=$(awk -F= '$1 == "median_seconds" { print $2 }' "$tmp/pair2.out")
  # seconds per pass of the pair: both processes' passes in their mean time, as one pass each
  s=$(calc '%.6f' "($s1 + $s2) / 4")
  T[pair]+=" $s"
  say "    LuaJIT compile, two processes: $(calc '%.0f' "$lines / $s") lines/s together ($(calc '%.2f' "$t1 - $t0") s wall)"
}
rep_luacheck() {
  run_timed "$results/luacheck.txt" "$tmp/lc.err" \
    env -C "$corpus" luacheck --no-cache --no-config --codes -q --formatter plain -- "${lc_args[@]}"
  # 0 no warnings, 1 warnings, 2 syntax errors in some file: all mean "analysed"
  if (( run_rc > 2 )); then
    tail -n 5 "$tmp/lc.err" >&2
    status[luacheck]="FAILED (exit $run_rc)"; failed=1; return
  fi
  T[luacheck]+=" $run_secs" P[luacheck]+=" $run_rss_kib"
  say "    luacheck: $(calc '%.2f' "$run_secs") s, $(calc '%.0f' "$lc_lines / $run_secs") lines/s"
  if awk "BEGIN { exit !($run_secs > 60) }"; then
    say "    note: luacheck took more than 60 s; consider --luacheck-every 2 or --luacheck-reps 3"
  fi
}
rep_ljcheck() {  # j
  local j=$1 key=j$1
  run_timed "$results/ljcheck-$key.json" "$results/ljcheck-$key.stderr" \
    "$ljcheck" lint --format json -j "$j" --root "$corpus_rel" "$corpus_rel"
  # luacheck-like exit codes: 0 clean, 1 findings; anything else is a failure
  if (( run_rc > 1 )); then
    tail -n 5 "$results/ljcheck-$key.stderr" >&2
    status[$key]="FAILED (exit $run_rc; see bench/results/ljcheck-$key.stderr)"; failed=1; return
  fi
  T[$key]+=" $run_secs" P[$key]+=" $run_rss_kib"
  say "    ljcheck -j $j: $(calc '%.2f' "$run_secs") s, $(calc '%.0f' "$lines / $run_secs") lines/s, $(calc '%.1f' "$run_rss_kib / 1024") MiB"
}

lc_lines=$lines subset=""
if (( skip_luacheck )); then
  status[luacheck]="skipped (--skip-luacheck)"
else
  awk -v k="$luacheck_every" '(NR - 1) % k == 0' "$list" > "$tmp/lc.list"
  lc_files=$(grep -c . "$tmp/lc.list")
  lc_lines=$(count_lines "$tmp/lc.list")
  mapfile -t lc_args < "$tmp/lc.list"
  facts+=("luacheck: $(luacheck --version 2>/dev/null | head -n 1), options --no-cache --no-config --codes -q --formatter plain")
  (( luacheck_every == 1 )) || subset=", every ${luacheck_every}th file: $lc_files files, $lc_lines lines"
  say "luacheck: $luacheck_reps reps$subset"
fi
if [[ ! -x $ljcheck ]]; then
  for key in j1 j2; do status[$key]="skipped: $ljcheck not found or not executable (build it, or pass --ljcheck PATH)"; done
  say "ljcheck: ${status[j1]}"
fi

max_reps=$reps
(( skip_luacheck || luacheck_reps <= max_reps )) || max_reps=$luacheck_reps
for ((r = 1; r <= max_reps; r++)); do
  say "repetition $r/$max_reps"
  (( r > reps )) || rep_luajit
  (( r > reps )) || rep_luajit_pair
  (( r > luacheck_reps )) || [[ -n ${status[luacheck]:-} ]] || rep_luacheck
  for j in 1 2; do
    (( r > reps )) || [[ -n ${status[j$j]:-} ]] || rep_ljcheck "$j"
  done
done

for key in luajit pair luacheck j1 j2; do
  [[ -z ${status[$key]:-} && -n ${T[$key]:-} ]] || continue
  read -r -a times <<< "${T[$key]}"
  read -r -a peaks <<< "${P[$key]:-}"
  secs[$key]=$(median "${times[@]}")
  if [[ $key == luacheck ]]; then
    lps[$key]=$(calc '%.0f' "$lc_lines / ${secs[$key]}")
  else
    lps[$key]=$(calc '%.0f' "$lines / ${secs[$key]}")
  fi
  rss[$key]=""; (( ${#peaks[@]} == 0 )) || rss[$key]=$(maxof "${peaks[@]}")
  note[$key]="reps (s): $(IFS=,; echo "${times[*]}")"
done
[[ -z ${note[luajit]:-} ]] || note[luajit]="${note[luajit]} (seconds per pass over the list; each rep is a fresh luajit process doing $cr_passes timed passes after a warm-up)"
[[ -z ${note[pair]:-} ]] || note[pair]="${note[pair]} (seconds per pass of each of two luajit processes started together, counted as one pass each: the rate the machine gives two independent CPU-bound jobs)"
[[ -z ${note[luacheck]:-} ]] || note[luacheck]="${note[luacheck]}${subset}; $(grep -c . "$results/luacheck.txt" || true) warnings in the last rep"
if [[ -x $ljcheck ]]; then
  facts+=("ljcheck: $ljcheck ($("$ljcheck" --version 2>/dev/null | head -n 1 || true)), called as: ljcheck lint --format json -j N --root $corpus_rel $corpus_rel")
fi
facts+=("load average at end: $(cut -d' ' -f1-3 /proc/loadavg)")

# Paired ratios: rep r of one tool over rep r of another, adjacent in time, so a
# change in the machine's load between repetitions cancels out; their median is
# the figure the targets are checked against. paired_ratio NUM DEN: the median of
# T[DEN]_r / T[NUM]_r (a rate ratio: NUM's lines/s over DEN's).
paired_ratio() {
  [[ -n ${T[$1]:-} && -n ${T[$2]:-} ]] || { echo ""; return; }
  local -a a b r=()
  read -r -a a <<< "${T[$1]}"
  read -r -a b <<< "${T[$2]}"
  local i
  for ((i = 0; i < ${#a[@]} && i < ${#b[@]}; i++)); do r+=("$(calc '%.6f' "${b[i]} / ${a[i]}")"); done
  median "${r[@]}"
}
pr_j1=$(paired_ratio j1 luajit) pr_j2=$(paired_ratio j2 j1) pr_pair=$(paired_ratio pair luajit)

# ---------------------------------------------------------------- report
ok() { awk "BEGIN { exit !($1) }" && echo "yes" || echo "**NO**"; }
ratio() { [[ -n ${lps[$1]:-} && -n ${lps[$2]:-} ]] && calc '%.3f' "${lps[$1]} / ${lps[$2]}" || echo "—"; }
mib() { [[ -n ${rss[$1]:-} ]] && calc '%.1f' "${rss[$1]} / 1024" || echo "—"; }
row() {  # key label target met
  local k=$1
  if [[ -n ${status[$k]:-} ]]; then
    printf '| %s | — | — | — | — | — | %s | %s |\n' "$2" "$3" "${status[$k]}"
  else
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$2" "$(calc '%.3f' "${secs[$k]}")" "${lps[$k]}" \
      "$(ratio "$k" luajit)" "$(ratio "$k" luacheck)" "$(mib "$k")" "$3" "$4"
  fi
}
targets() {  # key
  local k=$1 out=()
  [[ -n ${lps[$k]:-} ]] || { echo "—"; return; }
  if [[ $k == j1 ]]; then
    out+=("≥0.25× LuaJIT (paired median $(calc '%.3f' "$pr_j1")×): $(ok "$pr_j1 >= 0.25")")
    if [[ -n ${lps[luacheck]:-} ]]; then out+=("≥20× luacheck: $(ok "${lps[j1]} >= 20 * ${lps[luacheck]}")"); fi
  else
    if [[ -n ${lps[j1]:-} ]]; then
      out+=("≥1.7× -j1 (paired median $(calc '%.2f' "$pr_j2")×; the machine's own two-process scaling $(calc '%.2f' "$pr_pair")×): $(ok "$pr_j2 >= 1.7")")
    fi
  fi
  out+=("RSS <128 MiB: $(ok "${rss[$k]} < 128 * 1024")")
  local joined; joined=$(IFS=';'; echo "${out[*]}"); echo "${joined//;/; }"
}

lc_label="luacheck"
(( luacheck_every == 1 )) || lc_label="luacheck (every ${luacheck_every}th file)"
{
  echo "# ljcheck lint throughput"
  echo
  for f in "${facts[@]}"; do echo "- $f"; done
  echo
  echo "Targets are checked against paired ratios: the median over repetitions of one tool's rate over the other's in the same repetition (adjacent in time), which cancels load that changes between repetitions. The table's ratio columns are ratios of medians."
  echo
  echo "Medians of $reps repetitions$( (( skip_luacheck )) || (( luacheck_reps == reps )) || echo " ($luacheck_reps for luacheck)"), run round-robin in the same run over the same file list. Ratios are the figure; absolute times on a shared machine are noise."
  echo
  echo "| tool | median s | lines/s | × LuaJIT compile | × luacheck | peak RSS MiB | target | met |"
  echo "|---|---:|---:|---:|---:|---:|---|---|"
  row luajit "LuaJIT compile (in-process loadstring)" "floor" "—"
  row pair "LuaJIT compile, two processes at once" "the machine's 2-core ceiling" "—"
  row luacheck "$lc_label" "reference" "—"
  row j1 "ljcheck lint -j 1" "≥0.25× LuaJIT compile, ≥20× luacheck, RSS <128 MiB" "$(targets j1)"
  row j2 "ljcheck lint -j 2" "≥1.7× -j 1, RSS <128 MiB" "$(targets j2)"
  echo
  echo "Per-repetition wall times:"
  echo
  for k in luajit pair luacheck j1 j2; do
    [[ -n ${note[$k]:-} ]] && echo "- $k: ${note[$k]}"
  done
  echo
  echo "LuaJIT compile RSS is the luajit process holding the whole corpus in memory; luacheck and ljcheck RSS are the maximum over repetitions (GNU time %M)."
} > "$tmp/report.md"

stamp=$(date -u '+%Y%m%dT%H%M%SZ')
cp "$tmp/report.md" "$results/latest.md"
cp "$tmp/report.md" "$results/run-$stamp.md"
cat "$tmp/report.md"
say "saved bench/results/latest.md (and run-$stamp.md)"
exit "$failed"
