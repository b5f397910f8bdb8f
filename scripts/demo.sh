#!/usr/bin/env bash
# The main job on the bundled example: builds ljcheck, lints the example
# project, runs it under the runtime collector and prints the verification
# table that joins the two, and writes the HTML verification report. Reports
# land in out/.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/build.sh
ljcheck=build/bin/ljcheck
mkdir -p out

echo "== ljcheck lint examples/particles =="
"$ljcheck" lint examples/particles || true
"$ljcheck" lint --format json examples/particles > out/lint.json || true

echo
echo "== ljcheck run -- examples/particles/main.lua =="
"$ljcheck" run --interval 1 --trace out/trace.csv --json out/run.json --speedscope out/profile.speedscope.json \
  -- examples/particles/main.lua
echo "TraceReport (out/trace.csv):"
cat out/trace.csv

echo
echo "== ljcheck verify =="
"$ljcheck" verify --static out/lint.json --runtime out/run.json

echo
echo "== ljcheck report =="
"$ljcheck" report --static out/lint.json --runtime out/run.json --stacks out/profile.speedscope.json \
  --out out/report.html
echo "out/report.html: sites, costs, source excerpts and a flame graph, one self-contained page"
