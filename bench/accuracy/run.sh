#!/usr/bin/env bash
# Accuracy benchmark for ljcheck. See bench/accuracy/README.md.
#
# In one run: lints every workload under bench/accuracy/workloads to JSON, runs
# each workload's main.lua under the runtime collector (require("ljcheck")
# through bench/accuracy/host.lua, which also records the instructions the
# trace recorder visits) on Debian's LuaJIT and, when it is installed, on
# OpenResty's luajit2, then scores predictions against observations per
# reason family (bench/accuracy/score.py). Prints Markdown tables and writes
# the full report with site lists to bench/results/accuracy.md; raw JSON under
# bench/results/accuracy/.
#
# usage: bench/accuracy/run.sh [options]
#   --ljcheck PATH     ljcheck binary (default build/bin/ljcheck); the Lua module
#                      is looked up in ../lib/ljcheck.so next to its bin/ folder
#   --module PATH      the Lua module ljcheck.so (default: from --ljcheck)
#   --luajit PATH      Debian's luajit (default /usr/bin/luajit)
#   --luajit2 PATH     OpenResty's luajit (default third_party/luajit2/bin/luajit;
#                      skipped when missing)
#   --only NAME[,NAME] run only these workloads
#   -h, --help         this text
# Exit status: 0 when every step ran (missed targets do not fail the run), 1 when
# a workload or a tool failed, 2 on usage errors.
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
workloads_rel=bench/accuracy/workloads
results=$root/bench/results
raw=$results/accuracy

bench_name=accuracy
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
abspath() { if [[ $1 = /* ]]; then printf '%s' "$1"; else printf '%s' "$PWD/$1"; fi; }

ljcheck=build/bin/ljcheck module='' luajit=/usr/bin/luajit luajit2=third_party/luajit2/bin/luajit only=''
while (( $# )); do
  case $1 in
    --ljcheck) (( $# >= 2 )) || die "--ljcheck needs a path" 2; ljcheck=$(abspath "$2"); shift ;;
    --module) (( $# >= 2 )) || die "--module needs a path" 2; module=$(abspath "$2"); shift ;;
    --luajit) (( $# >= 2 )) || die "--luajit needs a path" 2; luajit=$(abspath "$2"); shift ;;
    --luajit2) (( $# >= 2 )) || die "--luajit2 needs a path" 2; luajit2=$(abspath "$2"); shift ;;
    --only) (( $# >= 2 )) || die "--only needs names" 2; only=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" 2 ;;
  esac
  shift
done
cd "$root"
[[ $ljcheck = /* ]] || ljcheck=$root/$ljcheck
[[ $luajit = /* ]] || luajit=$root/$luajit
[[ $luajit2 = /* ]] || luajit2=$root/$luajit2
[[ -n $module ]] || module=$(dirname "$(dirname "$ljcheck")")/lib/ljcheck.so
[[ -x $ljcheck ]] || die "ljcheck not found at $ljcheck (build it first, or pass --ljcheck)"
[[ -f $module ]] || die "Lua module not found at $module (pass --module)"
# The hosts load it with require("ljcheck") from its folder: another file name
# would fail every workload with "module 'ljcheck' not found".
[[ $(basename "$module") = ljcheck.so ]] ||
  die "--module $module: the Lua module must be named ljcheck.so (require(\"ljcheck\") loads it by that name)" 2
[[ -x $luajit ]] || die "Debian's luajit not found at $luajit (pass --luajit)"
command -v python3 >/dev/null || die "python3 not found"

names=()
for d in "$workloads_rel"/*/; do
  n=$(basename "$d")
  [[ -f $d/main.lua ]] || continue
  if [[ -n $only && ",$only," != *",$n,"* ]]; then continue; fi
  names+=("$n")
done
(( ${#names[@]} )) || die "no workloads selected"

rm -rf "$raw"
mkdir -p "$raw/debian" "$raw/logs"
failed=0

# ------------------------------------------------------------------ static
say "lint ${#names[@]} workloads"
lint_args=()
for n in "${names[@]}"; do lint_args+=("$workloads_rel/$n"); done
if ! "$ljcheck" lint --format json --fail-on none --root "$root" "${lint_args[@]}" \
    >"$raw/lint.json" 2>"$raw/logs/lint.err"; then
  cat "$raw/logs/lint.err" >&2
  die "ljcheck lint failed"
fi

# ------------------------------------------------------------------ runtime
# run_workload LABEL NAME COMMAND...: runs one workload, timing it, logging output.
declare -A seconds
run_workload() {
  local label=$1 name=$2; shift 2
  local start end
  start=$(date +%s.%N)
  if ! "$@" >"$raw/logs/$label-$name.out" 2>"$raw/logs/$label-$name.err"; then
    say "FAILED: $label $name (see $raw/logs/$label-$name.err)"
    tail -5 "$raw/logs/$label-$name.err" >&2 || true
    failed=1
  fi
  end=$(date +%s.%N)
  seconds[$label-$name]=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
}

moddir=$(dirname "$module")
for n in "${names[@]}"; do
  say "debian: $n"
  run_workload debian "$n" env LUA_CPATH="$moddir/?.so;;" "$luajit" bench/accuracy/host.lua \
    "$raw/debian/$n.json" "$workloads_rel/$n/main.lua"
done

vms=(--vm "Debian luajit (require \"ljcheck\")" "$raw/lint.json" "$raw/debian")
if [[ -x $luajit2 ]]; then
  mkdir -p "$raw/openresty"
  for n in "${names[@]}"; do
    say "openresty: $n"
    run_workload openresty "$n" env LUA_CPATH="$moddir/?.so;;" "$luajit2" bench/accuracy/host.lua \
      "$raw/openresty/$n.json" "$workloads_rel/$n/main.lua"
  done
  # Lint against the OpenResty profile when the registry knows it.
  or_lint=$raw/lint.json
  or_profile=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])).get("traceProfile",{}); print(p.get("name","") if p.get("supported") else "")' \
    "$raw/openresty/${names[0]}.json" 2>/dev/null || true)
  if [[ -n $or_profile ]] && "$ljcheck" lint --format json --fail-on none --profile "$or_profile" \
      --root "$root" "${lint_args[@]}" >"$raw/lint-openresty.json" 2>>"$raw/logs/lint.err"; then
    or_lint=$raw/lint-openresty.json
  fi
  vms+=(--vm "OpenResty luajit2 (require \"ljcheck\")" "$or_lint" "$raw/openresty")
else
  say "no OpenResty luajit at $luajit2: Debian only"
fi

# ------------------------------------------------------------------ score
times=""
for n in "${names[@]}"; do
  times+="$n ${seconds[debian-$n]}s"
  [[ -n ${seconds[openresty-$n]:-} ]] && times+=" / ${seconds[openresty-$n]}s"
  times+="; "
done
header="# ljcheck accuracy benchmark

$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), $("$ljcheck" --version 2>/dev/null || echo ljcheck).
Wall time per workload under the collector (Debian / OpenResty): ${times%; }."
python3 "$here/score.py" --root "$root" --workloads "$workloads_rel" --luajit "$luajit" --ljcheck "$ljcheck" --header "$header" \
  --out "$results/accuracy.md" "${vms[@]}"
say "full report with site lists: bench/results/accuracy.md"
exit "$failed"
