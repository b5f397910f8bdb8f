#!/usr/bin/env bash
# Generates the seed corpora of the fuzz harnesses (fuzz/*.cpp) from the
# project's own inputs, so no seed needs to be committed:
#   lua_source       fixtures/*.lua, small files of the benchmark corpus
#                    (bench/corpus/, when bench/corpus.sh has built it), and
#                    their bytecode dumps (lint reads an ESC-led file as a dump)
#   bytecode_reader  those dumps, compiled by the real luajit (`luajit -bg`)
#   reports          the lint, run and verify JSON ljcheck writes per fixture,
#                    and one sampled run whose JSON carries stacks
#   registry_data    registry/profiles, registry/catalog, registry/overlays
# Usage: fuzz/make_seeds.sh OUT_DIR LJCHECK_BINARY
# OUT_DIR is emptied first. A fixture that does not compile or run still
# gives what it can; nothing here fails on one input.
set -euo pipefail
export LC_ALL=C

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: fuzz/make_seeds.sh OUT_DIR LJCHECK_BINARY}
ljcheck=${2:?usage: fuzz/make_seeds.sh OUT_DIR LJCHECK_BINARY}
[[ -x $ljcheck ]] || { echo "make_seeds: $ljcheck: not an executable ljcheck" >&2; exit 2; }
command -v luajit >/dev/null || { echo "make_seeds: luajit not found (scripts/setup.sh installs it)" >&2; exit 2; }

# Benchmark-corpus files above this size slow every mutation without adding coverage.
max_bench_bytes=8192
max_bench_files=200

rm -rf "$out"
mkdir -p "$out"/{lua_source,bytecode_reader,reports,registry_data}

sources=("$root"/fixtures/*.lua)
if [[ -f $root/bench/corpus/files.txt ]]; then
  taken=0
  while IFS= read -r rel && ((taken < max_bench_files)); do
    file=$root/bench/corpus/$rel
    if [[ -f $file && $(stat -c %s "$file") -le $max_bench_bytes ]]; then
      sources+=("$file")
      taken=$((taken + 1))
    fi
  done < "$root/bench/corpus/files.txt"
fi

n=0
for file in "${sources[@]}"; do
  n=$((n + 1))
  name=$(printf '%04d-%s' "$n" "$(basename "$file" .lua)")
  cp "$file" "$out/lua_source/$name.lua"
  if luajit -bg "$file" "$out/bytecode_reader/$name.raw" 2>/dev/null; then
    cp "$out/bytecode_reader/$name.raw" "$out/lua_source/$name.raw"
  fi
done

# Reports: one lint, run and verify report per fixture, as the tool writes them.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for fixture in "$root"/fixtures/*.lua; do
  name=$(basename "$fixture" .lua)
  lint=$out/reports/$name.lint.json run=$out/reports/$name.run.json
  (cd "$root" && timeout 20 "$ljcheck" lint --format json --confidence possible "fixtures/$name.lua" >"$lint" 2>/dev/null) || true
  (cd "$work" && timeout 20 "$ljcheck" run --json "$run" --root "$root" -- "$fixture" >/dev/null 2>&1) || true
  [[ -s $lint ]] || rm -f "$lint"
  [[ -s $run ]] || rm -f "$run"
  if [[ -f $lint && -f $run ]]; then
    timeout 20 "$ljcheck" verify --static "$lint" --runtime "$run" --format json \
      >"$out/reports/$name.verify.json" 2>/dev/null || true
    [[ -s $out/reports/$name.verify.json ]] || rm -f "$out/reports/$name.verify.json"
  fi
done

# A sampled run long enough to have stacks by VM state ("samples.stacks").
(cd "$work" && cp "$root/tests/browser/workload.lua" app.lua &&
  timeout 20 "$ljcheck" run --quiet --interval 1 --json "$out/reports/sampled.run.json" -- app.lua >/dev/null 2>&1) || true
[[ -s $out/reports/sampled.run.json ]] || rm -f "$out/reports/sampled.run.json"

for file in "$root"/registry/profiles/*.json "$root"/registry/catalog/*.json "$root"/registry/overlays/*.json; do
  cp "$file" "$out/registry_data/$(basename "$(dirname "$file")")-$(basename "$file")"
done

for dir in "$out"/*/; do
  printf 'make_seeds: %-16s %4d seeds\n' "$(basename "$dir")" "$(find "$dir" -type f | wc -l)"
done
