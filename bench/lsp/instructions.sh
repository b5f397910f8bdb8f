#!/usr/bin/env bash
# Instructions per re-lint of `ljcheck lsp` after a one-line edit of a
# 5,000-line file, counted by callgrind (immune to the load of a shared
# machine), beside the same count for `ljcheck lint` of the same file.
# Per edit: (sessions of 1 + N edits) - (session of 1 edit), divided by N,
# so start-up, initialize and the first analysis cancel out.
#
# Usage: bench/lsp/instructions.sh [--edits N] [--project] [LJCHECK [BASELINE_LJCHECK]]
#   LJCHECK           the binary measured (default build/bin/ljcheck)
#   BASELINE_LJCHECK  another binary counted the same way in the same run
#   --edits N         edits in the long session (default 20)
#   --project         the client names a workspace root (project mode)
set -euo pipefail
bench_name=lsp-instructions
source "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
edits=20
project=()
bins=()
while (($#)); do
  case $1 in
    --edits) edits=$(uint_arg "$1" "${2:-}"); shift 2 ;;
    --project) project=(--project); shift ;;
    -h|--help) usage; exit 0 ;;
    *) bins+=("$(path_arg binary "$1")"); shift ;;
  esac
done
((${#bins[@]})) || bins=("$here/../../build/bin/ljcheck")
command -v valgrind >/dev/null || die "valgrind is not installed"
work=$(mktemp -d)
sessions=()  # the folders the sessions' file lies in
trap 'rm -rf "$work" "${sessions[@]}"' EXIT

# Ir of one command, stdin from $1, the rest the command.
instructions() {
  local input=$1; shift
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$@" <"$input" >/dev/null 2>"$work/cg.err" || true
  awk '/Collected :/ { print $NF }' "$work/cg.err"
}

node "$here/edit_latency.mjs" "${project[@]}" --session "$work/one.txt" "${bins[0]}" 5000 1
node "$here/edit_latency.mjs" "${project[@]}" --session "$work/many.txt" "${bins[0]}" 5000 "$((edits + 1))"
session_file() { local f; f=$(grep -o 'file://[^"]*edit_latency.lua' "$1" | head -n 1); printf '%s' "${f#file://}"; }
file=$(session_file "$work/one.txt")
sessions=("$(dirname "$file")" "$(dirname "$(session_file "$work/many.txt")")")
for bin in "${bins[@]}"; do
  one=$(instructions "$work/one.txt" "$bin" lsp --no-config)
  many=$(instructions "$work/many.txt" "$bin" lsp --no-config)
  lint=$(instructions /dev/null "$bin" lint --no-config --format json "$file")
  per=$(calc '%.0f' "($many - $one) / $edits")
  printf '%s\tper edit %s Ir\tlint of the file %s Ir\tedit/lint %s\n' "$bin" "$per" "$lint" "$(calc '%.3f' "$per / $lint")"
done
