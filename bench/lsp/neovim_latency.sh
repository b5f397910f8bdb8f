#!/usr/bin/env bash
# Re-lint latency of `ljcheck lsp` in Neovim (neovim_latency.lua): the file
# and edits of edit_latency.mjs, made in a headless Neovim 0.7 buffer.
# Prints one JSON line: p50/p95/max of the first and the last 200 edits, to
# the publish reaching Neovim's handler (received) and to its return (handled),
# and the same for 200 edits against replay_server.mjs (replay).
#
# Usage: bench/lsp/neovim_latency.sh [LJCHECK] [LINES] [EDITS]
#   defaults: build/bin/ljcheck 5000 1000
set -euo pipefail
bench_name=lsp-neovim-latency
source "$(dirname "$0")/../lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
[[ ${1:-} == -h || ${1:-} == --help ]] && { usage; exit 0; }
exe=$(path_arg binary "${1:-$here/../../build/bin/ljcheck}")
lines=$(uint_arg lines "${2:-5000}")
edits=$(uint_arg edits "${3:-1000}")
[[ -x $exe ]] || die "$exe is not an executable (build ljcheck first: bash scripts/build.sh)"
command -v nvim >/dev/null || die "nvim is not installed (scripts/setup.sh installs Debian's neovim)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/root"
node "$here/edit_latency.mjs" --text "$work/root/edit_latency.lua" "$exe" "$lines"
LJCHECK_EXE=$exe REPLAY_SERVER=$here/replay_server.mjs BENCH_FILE=$work/root/edit_latency.lua BENCH_EDITS=$edits BENCH_OUT=$work/result.json \
  nvim --headless -u NONE -i NONE -n -c "luafile $here/neovim_latency.lua" </dev/null
cat "$work/result.json"
